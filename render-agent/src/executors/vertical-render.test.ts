import { describe, expect, it } from 'vitest';
import { AAC_ARGS, h264Args, MP4_ARGS } from './h264-encoder.ts';
import { buildVerticalRenderArgs, buildVerticalVideoFilter, type VerticalRenderSpec } from './vertical-render.ts';

const after = (args: string[], flag: string) => args[args.indexOf(flag) + 1];
/** Every value given to `-map`, in order. */
const maps = (args: string[]) => args.filter((_, i) => args[i - 1] === '-map');

const spec = (over: Partial<VerticalRenderSpec> = {}): VerticalRenderSpec => ({
  input: '/work/a b/-source',
  output: '/work/a b/clip.mp4',
  start: 61.2,
  duration: 30,
  cropFilter: 'crop=608:1080:656:0',
  width: 1080,
  height: 1920,
  audioFilter: 'aformat=channel_layouts=stereo,volume=6.000dB,aresample=48000',
  encoder: 'libx264',
  settings: { preset: 'slow', rate: { mode: 'cbr', kbps: 4000 } },
  ...over,
});

describe('buildVerticalVideoFilter', () => {
  it('crops in source pixels, then scales to the profile with lanczos, square pixels, yuv420p', () => {
    expect(buildVerticalVideoFilter({ cropFilter: 'crop=608:1080:656:0', width: 1080, height: 1920 })).toBe(
      'crop=608:1080:656:0,scale=1080:1920:flags=lanczos,setsar=1,format=yuv420p',
    );
  });

  it('keeps a moving crop (sendcmd) as given, and drops a trailing comma', () => {
    expect(buildVerticalVideoFilter({ cropFilter: 'sendcmd=f=cmds.txt,crop=608:1080:0:0,', width: 720, height: 1280 })).toBe(
      'sendcmd=f=cmds.txt,crop=608:1080:0:0,scale=720:1280:flags=lanczos,setsar=1,format=yuv420p',
    );
  });

  it('without a crop keeps the whole picture: fit inside, pad to the exact size, never stretch', () => {
    const f = buildVerticalVideoFilter({ cropFilter: '', width: 720, height: 1280 });
    expect(f).toBe(
      'scale=720:1280:force_original_aspect_ratio=decrease:force_divisible_by=2:flags=lanczos,pad=720:1280:(ow-iw)/2:(oh-ih)/2:color=black,setsar=1,format=yuv420p',
    );
    expect(f).not.toContain('crop');
  });
});

describe('buildVerticalRenderArgs', () => {
  const args = buildVerticalRenderArgs(spec());

  it('seeks the input to the clip (before -i) and reads it as a guarded local file', () => {
    const input = args.indexOf('-i');
    expect(args[input + 1]).toBe('file:/work/a b/-source');
    expect(after(args, '-ss')).toBe('61.200000');
    expect(after(args, '-t')).toBe('30.000000');
    for (const flag of ['-ss', '-t', '-protocol_whitelist', '-format_whitelist']) expect(args.indexOf(flag)).toBeLessThan(input);
  });

  it('maps the first video and audio streams through their chains', () => {
    expect(maps(args)).toEqual(['0:v:0', '0:a:0']);
    expect(after(args, '-vf')).toBe('crop=608:1080:656:0,scale=1080:1920:flags=lanczos,setsar=1,format=yuv420p');
    expect(after(args, '-af')).toBe('aformat=channel_layouts=stereo,volume=6.000dB,aresample=48000');
  });

  it('encodes with the profile row, AAC and a faststart mp4, dropping metadata, chapters, subtitles and data', () => {
    const joined = args.join(' ');
    expect(joined).toContain(h264Args('libx264', { preset: 'slow', rate: { mode: 'cbr', kbps: 4000 } }).join(' '));
    expect(joined).toContain(AAC_ARGS.join(' '));
    expect(joined).toContain(MP4_ARGS.join(' '));
    expect(after(args, '-map_metadata')).toBe('-1');
    expect(after(args, '-map_chapters')).toBe('-1');
    expect(args).toContain('-sn');
    expect(args).toContain('-dn');
    expect(args).not.toContain('-r');
    expect(args.at(-1)).toBe('file:/work/a b/clip.mp4');
  });

  it('uses the same row for NVENC', () => {
    const nvenc = buildVerticalRenderArgs(spec({ encoder: 'h264_nvenc', settings: { preset: 'fast', rate: { mode: 'crf', crf: 22, maxKbps: 6000 } } }));
    expect(after(nvenc, '-c:v')).toBe('h264_nvenc');
    expect(after(nvenc, '-cq')).toBe('22');
    expect(after(nvenc, '-maxrate')).toBe('6000k');
  });

  it('reports progress on stdout and overwrites a leftover output', () => {
    expect(after(args, '-progress')).toBe('pipe:1');
    expect(args).toContain('-nostats');
    expect(args).toContain('-y');
  });

  it('writes a silent clip (no audio stream) for a source without audio', () => {
    const silent = buildVerticalRenderArgs(spec({ audioFilter: null }));
    expect(maps(silent)).toEqual(['0:v:0']);
    expect(silent).toContain('-an');
    expect(silent).not.toContain('-af');
    expect(silent).not.toContain('-c:a');
  });
});
