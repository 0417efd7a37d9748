import { describe, expect, it } from 'vitest';
import { parseSrt, toSrt } from './srt.ts';
import { seg, transcript } from './test-fixtures.ts';
import type { TranscriptV1 } from './transcript-v2.ts';

describe('toSrt', () => {
  it('renders numbered cues separated by blank lines with a trailing newline', () => {
    const out = toSrt(transcript([seg(0, 0, 1.5, ' Hello'), seg(1, 1.5, 3723.456, ' world.')]));
    expect(out).toBe('1\n00:00:00,000 --> 00:00:01,500\nHello\n\n2\n00:00:01,500 --> 01:02:03,456\nworld.\n');
    expect(out).not.toContain('\r');
  });

  it('gives "" for an empty transcript or one with only blank segments', () => {
    expect(toSrt(transcript([]))).toBe('');
    expect(toSrt(transcript([seg(0, 0, 1, '  '), seg(1, 1, 2, '\n')]))).toBe('');
  });

  it('numbers from 1 after skipping empty segments', () => {
    const out = toSrt(transcript([seg(0, 0, 1, ''), seg(1, 1, 2, 'x')]));
    expect(out).toBe('1\n00:00:01,000 --> 00:00:02,000\nx\n');
  });

  it('collapses newlines inside a segment and keeps unicode', () => {
    const out = toSrt(transcript([seg(0, 0, 1, ' Grüße,\n世界 🎬\r\n ça va?')]));
    expect(out).toBe('1\n00:00:00,000 --> 00:00:01,000\nGrüße, 世界 🎬 ça va?\n');
  });

  it('fixes zero-length and overlapping segments', () => {
    const cues = parseSrt(toSrt(transcript([seg(0, 2, 2, 'zero'), seg(1, 2.2, 5, 'a'), seg(2, 4, 6, 'b')])));
    expect(cues).toEqual([
      { start: 2, end: 2.2, text: 'zero' },
      { start: 2.2, end: 5, text: 'a' },
      { start: 5, end: 6, text: 'b' },
    ]);
  });

  it('rounds 0.9995 up to a whole second', () => {
    expect(toSrt(transcript([seg(0, 0.9995, 2, 'x')]))).toContain('00:00:01,000 --> 00:00:02,000');
  });

  it('accepts v1 transcripts and softens "-->" in text', () => {
    const v1: TranscriptV1 = { version: 1, language: 'en', duration: 1, segments: [{ id: 0, start: 0, end: 1, text: 'a --> b' }] };
    expect(toSrt(v1)).toBe('1\n00:00:00,000 --> 00:00:01,000\na -> b\n');
  });
});

describe('parseSrt', () => {
  it('round-trips toSrt output', () => {
    const t = transcript([seg(0, 0.25, 1.5, ' One'), seg(1, 3600, 3601.001, 'Two ünïcode')]);
    expect(parseSrt(toSrt(t))).toEqual([
      { start: 0.25, end: 1.5, text: 'One' },
      { start: 3600, end: 3601.001, text: 'Two ünïcode' },
    ]);
  });

  it('tolerates BOM, CRLF, multi-line text, missing numbers and no trailing blank line', () => {
    const text = '\uFEFF1\r\n00:00:01,000 --> 00:00:02,500\r\nline one\r\nline two\r\n\r\n00:00:03.000 --> 00:00:04.000\r\nno number';
    expect(parseSrt(text)).toEqual([
      { start: 1, end: 2.5, text: 'line one\nline two' },
      { start: 3, end: 4, text: 'no number' },
    ]);
  });

  it('returns [] for empty input and ignores junk blocks', () => {
    expect(parseSrt('')).toEqual([]);
    expect(parseSrt('garbage\n\n')).toEqual([]);
  });
});
