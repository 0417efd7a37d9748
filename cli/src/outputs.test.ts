import { describe, expect, it } from 'vitest';
import { contentTypeOf, extensionOf, stemOf } from './media.ts';
import { outputFileName, pathInside } from './outputs.ts';

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
  it('never lets a role a server names leave the output folder', () => {
    expect(outputFileName('talk', '../../../.bashrc', 'text/plain', undefined)).toBe('talk.__________bashrc.txt');
    expect(outputFileName('talk', 'a/b\\c', 'application/json', undefined)).toBe('talk.a_b_c.json');
    expect(outputFileName('talk', '', null, undefined)).toBe('talk.output.bin');
    expect(pathInside('/out', 'talk.srt')).toBe('/out/talk.srt');
    for (const name of ['../talk.srt', '/etc/passwd', 'sub/talk.srt', '..', '.'])
      expect(() => pathInside('/out', name), name).toThrow(/not a file name inside \/out/);
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
