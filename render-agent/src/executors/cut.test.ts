import { describe, expect, it } from 'vitest';
import { buildCutArgs, buildCutFilter, buildJoinArgs, concatList, cutFailureContext, cutSeconds, snapSegments } from './cut.ts';
import { classifyPassFailure } from './ffmpeg-pass.ts';

const NTSC = 30000 / 1001;

describe('snapSegments', () => {
  it('keeps frames [floor(start·fps), floor(end·fps)): the frame shown at start through the one before end', () => {
    // At 25 fps frame 25 is shown over [1.00, 1.04): 1.039 is still frame 25; 2.0 ends before frame 50.
    expect(snapSegments([{ start: 1.039, end: 2.0 }], 25)).toEqual([{ start: 1, end: 2, startFrame: 25, frames: 25 }]);
    // An end inside frame 50 ([2.00, 2.04)) ends before it too.
    expect(snapSegments([{ start: 1, end: 2.039 }], 25)[0]).toMatchObject({ startFrame: 25, frames: 25 });
  });

  it('absorbs float noise at boundaries (2.0 × 30 = 59.999…)', () => {
    const [s] = snapSegments([{ start: 0.1 + 0.2, end: 2.0000000001 }], 30);
    expect(s).toMatchObject({ startFrame: 9, frames: 51 });
  });

  it('returns the exact times on the NTSC grid', () => {
    const [s] = snapSegments([{ start: 1.01, end: 2.5 }], NTSC);
    expect(s!.startFrame).toBe(30);
    expect(s!.frames).toBe(44);
    expect(s!.start).toBeCloseTo(30 / NTSC, 12);
    expect(s!.end).toBeCloseTo(74 / NTSC, 12);
  });

  it('keeps at least one frame, and never frames past the source', () => {
    expect(snapSegments([{ start: 5.005, end: 5.01 }], 30)[0]).toMatchObject({ startFrame: 150, frames: 1 });
    // 10 s at 30 fps = frames 0..299.
    expect(snapSegments([{ start: 9.5, end: 10.03 }], 30, 10)[0]).toMatchObject({ startFrame: 285, frames: 15 });
    expect(snapSegments([{ start: 10.01, end: 10.03 }], 30, 10)[0]).toMatchObject({ startFrame: 299, frames: 1 });
  });

  it('keeps the order and repeats of the request', () => {
    const snapped = snapSegments(
      [
        { start: 4, end: 5 },
        { start: 0, end: 1 },
        { start: 4, end: 5 },
      ],
      10,
    );
    expect(snapped.map((s) => s.startFrame)).toEqual([40, 0, 40]);
    expect(cutSeconds(snapped, 10)).toBeCloseTo(3, 12);
  });
});

describe('buildCutFilter', () => {
  const segments = snapSegments(
    [
      { start: 0, end: 1 },
      { start: 4, end: 5 },
      { start: 8, end: 9 },
    ],
    25,
  );

  it('trims video by duration from its first frame and audio on the snapped times, then concatenates', () => {
    const graph = buildCutFilter(segments, 25, true);
    // First segment starts at 0: no seek margin, audio from 0.
    expect(graph).toContain('[0:v:0]trim=duration=0.980000,setpts=PTS-STARTPTS[v0]');
    expect(graph).toContain('[0:a:0]atrim=start=0.000000:end=1.000000,asetpts=PTS-STARTPTS,afade=t=out:st=0.985000:d=0.015000[a0]');
    // Later ones seek half a frame early (0.02 s at 25 fps): their audio starts 0.02 s in.
    expect(graph).toContain('[1:a:0]atrim=start=0.020000:end=1.020000,asetpts=PTS-STARTPTS,afade=t=in:st=0:d=0.015000,afade=t=out:st=0.985000:d=0.015000[a1]');
    expect(graph).toContain('[2:a:0]atrim=start=0.020000:end=1.020000,asetpts=PTS-STARTPTS,afade=t=in:st=0:d=0.015000[a2]');
    expect(graph.endsWith('[v0][a0][v1][a1][v2][a2]concat=n=3:v=1:a=1[joined][a];[joined]crop=w=trunc(iw/2)*2:h=trunc(ih/2)*2:x=0:y=0[v]')).toBe(true);
  });

  it('fades only at joins: a single segment has none', () => {
    expect(buildCutFilter(segments.slice(0, 1), 25, true)).not.toContain('afade');
  });

  it('never fades longer than half a segment', () => {
    const short = snapSegments(
      [
        { start: 1, end: 1.01 },
        { start: 2, end: 3 },
      ],
      60,
    );
    expect(buildCutFilter(short, 60, true)).toContain('afade=t=out:st=0.008333:d=0.008333');
  });

  it('leaves audio out for a silent source', () => {
    const graph = buildCutFilter(segments, 25, false);
    expect(graph).not.toContain(':a:0');
    expect(graph).toContain('[v0][v1][v2]concat=n=3:v=1:a=0[joined];');
  });
});

describe('buildCutArgs', () => {
  const segments = snapSegments(
    [
      { start: 10, end: 12 },
      { start: 0, end: 1 },
    ],
    25,
  );
  const args = buildCutArgs({
    input: '/work/a b/-source',
    output: '/work/a b/clip.mp4',
    segments,
    fps: 25,
    fpsRational: '25/1',
    hasAudio: true,
    encoder: 'libx264',
  });
  const after = (flag: string, from = 0) => args[args.indexOf(flag, from) + 1];

  it('opens the source once per segment, seeking half a frame before it, behind the input guard', () => {
    const inputs = args.flatMap((a, i) => (a === '-i' ? [i] : []));
    expect(inputs).toHaveLength(2);
    for (const i of inputs) {
      expect(args[i + 1]).toBe('file:/work/a b/-source');
      expect(args.slice(i - 4, i)).toEqual(['-protocol_whitelist', 'file', '-format_whitelist', 'mp3,wav,mov,ogg,flac,matroska,aac,avi']);
    }
    expect(args.slice(args.indexOf('-ss'), args.indexOf('-ss') + 6)).toEqual(['-ss', '9.980000', '-t', '2.060000', '-threads', '2']);
    expect(after('-ss', inputs[0])).toBe('0.000000');
    expect(after('-t', inputs[0])).toBe('1.040000');
  });

  it('re-encodes with the clip settings at the source rate, constant frame rate, AAC and a faststart mp4', () => {
    expect(after('-c:v')).toBe('libx264');
    expect(after('-crf')).toBe('18');
    expect(after('-preset')).toBe('fast');
    expect(after('-fps_mode')).toBe('cfr');
    expect(after('-r')).toBe('25/1');
    expect(after('-c:a')).toBe('aac');
    expect(after('-ar')).toBe('48000');
    expect(after('-movflags')).toBe('+faststart');
    expect(after('-map_metadata')).toBe('-1');
    expect(args).toContain('-sn');
    expect(args).toContain('-dn');
    expect(args.at(-1)).toBe('file:/work/a b/clip.mp4');
    expect(args.slice(args.indexOf('-map'), args.indexOf('-map') + 4)).toEqual(['-map', '[v]', '-map', '[a]']);
  });

  it('reports progress on stdout and never reads stdin', () => {
    expect(after('-progress')).toBe('pipe:1');
    expect(args).toContain('-nostdin');
    expect(args.indexOf('-progress')).toBeLessThan(args.indexOf('-i'));
  });

  it('uses NVENC when asked, and maps no audio for a silent source', () => {
    const silent = buildCutArgs({ input: 'in', output: 'out', segments, fps: 25, fpsRational: '25/1', hasAudio: false, encoder: 'h264_nvenc' });
    expect(silent[silent.indexOf('-c:v') + 1]).toBe('h264_nvenc');
    expect(silent).not.toContain('[a]');
    expect(silent).not.toContain('-c:a');
  });
});

describe('a cut in parts (more segments than one pass opens)', () => {
  const segments = snapSegments(
    [
      { start: 0, end: 1 },
      { start: 4, end: 5 },
    ],
    25,
  );

  it('fades a part at the joins with the parts before and after it', () => {
    const graph = buildCutFilter(segments, 25, true, { before: true, after: true });
    expect(graph).toContain('[0:a:0]atrim=start=0.000000:end=1.000000,asetpts=PTS-STARTPTS,afade=t=in:st=0:d=0.015000,afade=t=out:st=0.985000:d=0.015000[a0]');
    expect(graph).toContain('afade=t=in:st=0:d=0.015000,afade=t=out:st=0.985000:d=0.015000[a1]');
    expect(buildCutFilter(segments, 25, true, { before: false, after: true })).not.toContain('[a0]afade=t=in');
  });

  it('writes a part as the same video encode with PCM audio in a .mov', () => {
    const args = buildCutArgs({
      input: 'in',
      output: '/w/clip-part-0.mov',
      segments,
      fps: 25,
      fpsRational: '25/1',
      hasAudio: true,
      encoder: 'libx264',
      part: { before: false, after: true },
    });
    expect(args[args.indexOf('-c:v') + 1]).toBe('libx264');
    expect(args[args.indexOf('-crf') + 1]).toBe('18');
    expect(args.slice(args.indexOf('-c:a'), args.indexOf('-c:a') + 6)).toEqual(['-c:a', 'pcm_s16le', '-ar', '48000', '-ac', '2']);
    expect(args.slice(-3)).toEqual(['-f', 'mov', 'file:/w/clip-part-0.mov']);
    expect(args).not.toContain('+faststart');
  });

  it('joins the parts by copying the video and encoding the audio once, opening only the concat list and .mov parts', () => {
    const args = buildJoinArgs({ list: '/w/clip-parts.txt', output: '/w/clip.mp4', hasAudio: true });
    expect(args.slice(args.indexOf('-f'), args.indexOf('-i') + 2)).toEqual([
      ...['-f', 'concat', '-safe', '0', '-protocol_whitelist', 'file', '-format_whitelist', 'concat,mov'],
      ...['-i', 'file:/w/clip-parts.txt'],
    ]);
    expect(args[args.indexOf('-c:v') + 1]).toBe('copy');
    expect(args[args.indexOf('-c:a') + 1]).toBe('aac');
    expect(args.slice(-4)).toEqual(['+faststart', '-f', 'mp4', 'file:/w/clip.mp4']);
    const silent = buildJoinArgs({ list: 'l', output: 'o', hasAudio: false });
    expect(silent).not.toContain('0:a:0');
    expect(silent).not.toContain('-c:a');
  });

  it('lists the parts as file: URLs, quotes escaped', () => {
    expect(concatList(['/w/a/clip-part-0.mov', "/w/it's/clip-part-1.mov"])).toBe("file 'file:/w/a/clip-part-0.mov'\nfile 'file:/w/it'\\''s/clip-part-1.mov'\n");
  });
});

describe("cut failures (classifyPassFailure with the cut's context)", () => {
  const context = cutFailureContext({ input: '/w/att/source', output: '/w/att/clip.mp4' });
  // What ffmpeg writes under `-loglevel level+error` (buildCutArgs): every line tagged.
  const failed = (stderr: string) => classifyPassFailure({ exitCode: 1, stderr, code: undefined, signal: undefined }, context);

  it('logs tagged errors only', () => {
    const args = buildCutArgs({
      input: 'in',
      output: 'out',
      segments: snapSegments([{ start: 0, end: 1 }], 25),
      fps: 25,
      fpsRational: '25/1',
      hasAudio: true,
      encoder: 'libx264',
    });
    expect(args[args.indexOf('-loglevel') + 1]).toBe('level+error');
  });

  it('blames a source that does not decode on the media, without local paths', () => {
    const e = failed('[mov,mp4,m4a,3gp,3g2,mj2 @ 0x55f3] [error] moov atom not found\n[error] file:/w/att/source: Invalid data found when processing input\n');
    expect(e.code).toBe('media_invalid');
    expect(e.message).toBe('the source could not be decoded while encoding the clip (source: Invalid data found when processing input)');
  });

  it('takes the output, a full disk, the encoder and a missing binary as ours', () => {
    const out = failed('[error] file:/w/att/clip.mp4: No space left on device\n');
    expect(out.code).toBe('tool_failed');
    expect(out.message).toBe('ffmpeg failed while encoding the clip: clip.mp4: No space left on device');
    expect(failed("[fatal] Unknown encoder 'libx264'\n").code).toBe('tool_failed');
    expect(failed('[error] Cannot allocate memory\n').code).toBe('tool_failed');
    expect(failed('[fatal] Error initializing complex filters.\n').code).toBe('tool_failed');
    expect(classifyPassFailure({ exitCode: undefined, stderr: '', code: 'ENOENT', signal: undefined }, context)).toMatchObject({
      code: 'tool_failed',
      message: 'ffmpeg failed while encoding the clip: ENOENT',
    });
  });

  it('takes a filter graph that does not fit the source as ours, and skips the closing line', () => {
    const stderr = "[fatal] Stream specifier ':a:0' in filtergraph description [0:a:0]atrim=start=0 matches no streams.\n[error] Conversion failed!\n";
    const e = failed(stderr);
    expect(e.code).toBe('tool_failed');
    expect(e.message).toMatch(/matches no streams\.$/);
  });

  it('names a refused format as the caller can fix it', () => {
    const e = failed('[error] Format not on whitelist\n');
    expect(e.code).toBe('media_invalid');
    expect(e.message).toMatch(/not in an accepted format/);
  });
});
