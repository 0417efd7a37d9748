import { describe, expect, it } from 'vitest';
import { TRANSCRIPT_FORMATS, isTranscriptFormat, renderTranscript } from './convert.ts';
import { seg, transcript } from './test-fixtures.ts';
import { TranscriptV1, TranscriptV2 } from './transcript-v2.ts';

const t = transcript([seg(0, 0, 1, ' Hello', [{ start: 0, end: 1, word: 'Hello', probability: 0.5 }])]);

describe('isTranscriptFormat', () => {
  it('accepts exactly the listed formats', () => {
    for (const f of TRANSCRIPT_FORMATS) expect(isTranscriptFormat(f)).toBe(true);
    for (const f of ['SRT', 'json1', '', undefined, 1, 'toString']) expect(isTranscriptFormat(f)).toBe(false);
  });
});

describe('renderTranscript', () => {
  it('renders each format with its content type and extension', () => {
    const srt = renderTranscript(t, 'srt');
    expect(srt).toEqual({ body: '1\n00:00:00,000 --> 00:00:01,000\nHello\n', contentType: 'application/x-subrip; charset=utf-8', extension: 'srt' });
    const vtt = renderTranscript(t, 'vtt');
    expect(vtt).toEqual({ body: 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nHello\n', contentType: 'text/vtt; charset=utf-8', extension: 'vtt' });
    expect(renderTranscript(t, 'txt')).toEqual({ body: 'Hello\n', contentType: 'text/plain; charset=utf-8', extension: 'txt' });
  });

  it('json is compact v1; words is compact v2', () => {
    const json = renderTranscript(t, 'json');
    expect(json.contentType).toBe('application/json');
    expect(json.extension).toBe('json');
    expect(json.body).not.toContain('\n');
    expect(TranscriptV1.parse(JSON.parse(json.body))).toEqual({
      version: 1,
      language: 'en',
      duration: 10,
      segments: [{ id: 0, start: 0, end: 1, text: ' Hello' }],
    });

    const words = renderTranscript(t, 'words');
    expect(words.contentType).toBe('application/json');
    expect(words.extension).toBe('words.json');
    expect(words.body).toBe(JSON.stringify(t));
    expect(TranscriptV2.parse(JSON.parse(words.body))).toEqual(t);
  });

  it('re-validates: strips unknown keys and rejects invalid transcripts', () => {
    const extra = { ...t, secret: 'x' } as TranscriptV2;
    expect(renderTranscript(extra, 'words').body).not.toContain('secret');
    const bad = { ...t, segments: [{ ...t.segments[0]!, start: -1 }] };
    expect(() => renderTranscript(bad, 'srt')).toThrow();
  });

  it('throws on an unknown format from an unchecked caller', () => {
    expect(() => renderTranscript(t, 'pdf' as never)).toThrow(RangeError);
  });
});
