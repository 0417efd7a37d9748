import { describe, expect, it } from 'vitest';
import { toJsonV1 } from './json-v1.ts';
import { seg, transcript } from './test-fixtures.ts';
import { TranscriptV1 } from './transcript-v2.ts';

describe('toJsonV1', () => {
  it('drops words and keeps id/start/end/text verbatim', () => {
    const t = transcript([seg(3, 0.5, 1.25, ' Hello', [{ start: 0.5, end: 1.25, word: 'Hello', probability: 0.9 }])], 42);
    const v1 = toJsonV1(t);
    expect(v1).toEqual({
      version: 1,
      language: 'en',
      duration: 42,
      segments: [{ id: 3, start: 0.5, end: 1.25, text: ' Hello' }],
    });
    expect(TranscriptV1.parse(v1)).toEqual(v1);
    expect(JSON.stringify(v1)).not.toContain('words');
  });

  it('handles an empty transcript', () => {
    expect(toJsonV1(transcript([], 0))).toEqual({ version: 1, language: 'en', duration: 0, segments: [] });
  });
});
