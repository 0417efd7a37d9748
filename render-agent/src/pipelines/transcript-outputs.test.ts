import { describe, expect, it } from 'vitest';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { buildTranscriptOutputs, isTranscribeOutputName } from './transcript-outputs.ts';

const t: TranscriptV2 = {
  version: 2,
  language: 'en',
  duration: 3,
  segments: [
    {
      id: 0,
      start: 0,
      end: 2.5,
      text: 'Hello, world.',
      words: [
        { start: 0, end: 1, word: 'Hello,', probability: 0.9 },
        { start: 1.2, end: 2.5, word: 'world.', probability: 0.95 },
      ],
    },
  ],
};

describe('buildTranscriptOutputs', () => {
  it('writes the words JSON that round-trips through the schema, and an SRT', () => {
    const out = buildTranscriptOutputs(t);
    expect(TranscriptV2.parse(JSON.parse(out.transcript_words.toString('utf8')))).toEqual(t);
    const srt = out.transcript_srt.toString('utf8');
    expect(srt).toMatch(/^1\n00:00:00,000 --> 00:00:02,500\n/);
    expect(srt).toContain('Hello, world.');
  });

  it('knows its output names', () => {
    expect(isTranscribeOutputName('transcript_srt')).toBe(true);
    expect(isTranscribeOutputName('thumbnail')).toBe(false);
  });
});
