import { describe, expect, it } from 'vitest';
import { contentTypeOf, extensionOf, stemOf } from './media.ts';
import { outputFileName } from './outputs.ts';

describe('file names', () => {
  it('names outputs after the input', () => {
    expect(outputFileName('talk', 'transcript', 'application/x-subrip', undefined)).toBe('talk.srt');
    expect(outputFileName('talk', 'transcript', null, 'words')).toBe('talk.words.json');
    expect(outputFileName('talk', 'transcript', null, 'vtt')).toBe('talk.vtt');
    expect(outputFileName('talk.clip-1-2', 'clip', 'video/mp4', undefined)).toBe('talk.clip-1-2.mp4');
    expect(outputFileName('talk', 'clips', 'application/json', undefined)).toBe('talk.clips.json');
    expect(outputFileName('talk', 'subjects', 'application/json; charset=utf-8', undefined)).toBe('talk.subjects.json');
    expect(outputFileName('talk', 'odd', 'application/x-unknown', undefined)).toBe('talk.odd.bin');
  });
  it('makes stems safe and reads content types from extensions', () => {
    expect([stemOf('/a/b/talk.final.mp4'), stemOf('..\\..\\evil.mp4'), stemOf('.hidden'), stemOf('a:b?.wav')]).toEqual(['talk.final', 'evil', 'job', 'a_b_']);
    expect([contentTypeOf('x.MP4'), contentTypeOf('x.wav'), contentTypeOf('x.mkv'), contentTypeOf('x.txt')]).toEqual([
      'video/mp4',
      'audio/wav',
      'video/x-matroska',
      null,
    ]);
    expect(extensionOf(undefined)).toBe('bin');
  });
});
