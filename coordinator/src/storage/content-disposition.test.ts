import { describe, expect, it } from 'vitest';
import { assertValidContentType, formatAttachmentDisposition } from './content-disposition.ts';

describe('formatAttachmentDisposition', () => {
  it('keeps plain names', () => {
    expect(formatAttachmentDisposition('clip 1.mp4')).toBe(`attachment; filename="clip 1.mp4"; filename*=UTF-8''clip%201.mp4`);
  });

  it('gives non-ASCII names an ASCII fallback and an RFC 5987 form', () => {
    expect(formatAttachmentDisposition('café "x".srt')).toBe(`attachment; filename="caf_ _x_.srt"; filename*=UTF-8''caf%C3%A9%20%22x%22.srt`);
  });

  it('cannot be used to split headers or name paths', () => {
    const value = formatAttachmentDisposition('a\r\nSet-Cookie: x=1/../b');
    expect(value).not.toMatch(/[\r\n]/);
    expect(value).toContain('filename="aSet-Cookie: x=1_.._b"');
  });
});

describe('assertValidContentType', () => {
  it('accepts MIME types with parameters', () => {
    expect(() => assertValidContentType('text/plain; charset=utf-8')).not.toThrow();
  });

  it.each(['', 'video', 'video/mp4\r\nX: y', ' video/mp4'])('refuses %j', (ct) => {
    expect(() => assertValidContentType(ct)).toThrow('invalid content type');
  });
});
