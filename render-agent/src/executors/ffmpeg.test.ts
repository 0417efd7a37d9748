import { describe, expect, it } from 'vitest';
import { buildExtractAudioArgs } from './ffmpeg.ts';

describe('buildExtractAudioArgs', () => {
  const args = buildExtractAudioArgs({ input: '/work/a b/-source file.mp4', output: '/work/a b/audio.wav' });

  it('keeps each path one argument, prefixed so it cannot read as an option or URL', () => {
    expect(args).toContain('file:/work/a b/-source file.mp4');
    expect(args.at(-1)).toBe('file:/work/a b/audio.wav');
    expect(args[args.indexOf('-i') + 1]).toBe('file:/work/a b/-source file.mp4');
  });

  it('asks for 16 kHz mono s16 WAV without video', () => {
    const pairs = (flag: string) => args[args.indexOf(flag) + 1];
    expect(pairs('-ar')).toBe('16000');
    expect(pairs('-ac')).toBe('1');
    expect(pairs('-c:a')).toBe('pcm_s16le');
    expect(pairs('-f')).toBe('wav');
    expect(args).toContain('-vn');
  });

  it('reports machine-readable progress on stdout before the input', () => {
    expect(args[args.indexOf('-progress') + 1]).toBe('pipe:1');
    expect(args).toContain('-nostats');
    expect(args.indexOf('-progress')).toBeLessThan(args.indexOf('-i'));
  });

  it('reads only local files with the accepted demuxers: the input guard comes before -i', () => {
    const input = args.indexOf('-i');
    expect(args[args.indexOf('-protocol_whitelist') + 1]).toBe('file');
    expect(args[args.indexOf('-format_whitelist') + 1]).toBe('mp3,wav,mov,ogg,flac,matroska,aac,avi');
    expect(args.indexOf('-protocol_whitelist')).toBeLessThan(input);
    expect(args.indexOf('-format_whitelist')).toBeLessThan(input);
  });
});
