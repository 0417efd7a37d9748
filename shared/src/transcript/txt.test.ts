import { describe, expect, it } from 'vitest';
import { toTxt } from './txt.ts';
import { seg, transcript } from './test-fixtures.ts';

describe('toTxt', () => {
  it('writes one trimmed segment per line with a trailing newline', () => {
    expect(toTxt(transcript([seg(0, 0, 1, ' Hello'), seg(1, 1, 2, ' world. ')]))).toBe('Hello\nworld.\n');
  });

  it('drops empty segments and collapses inner newlines; keeps unicode', () => {
    const t = transcript([seg(0, 0, 1, '  '), seg(1, 1, 2, 'a\nb\r\n c'), seg(2, 2, 2, '日本語 ✓')]);
    expect(toTxt(t)).toBe('a b c\n日本語 ✓\n');
  });

  it('gives "" for an empty transcript', () => {
    expect(toTxt(transcript([]))).toBe('');
  });
});
