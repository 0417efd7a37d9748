import { execa, type ExecaError } from 'execa';
import { inputFailure, PipelineError } from '../errors.ts';
import { asFileUrl, FORMAT_REFUSED, formatRefused, hidePaths, INPUT_GUARD_ARGS, PROTOCOL_REFUSED } from '../executors/media-path.ts';
import { FrameAssembler, type SampleRate } from './sampling.ts';
import { parseCutLine, SCENE_THRESHOLD } from './shots.ts';

/** Longest side of the frames the scene score compares (it only needs coarse differences). @default 320 */
export const SCENE_MAX_SIDE = 320;

export interface ScanArgsOptions {
  source: string;
  /** Source seconds. */
  start: number;
  duration: number;
  rate: SampleRate;
  sample: { width: number; height: number };
  scene: { width: number; height: number };
  sceneThreshold?: number;
}

/**
 * One decode, two branches: sampled frames (fps → scale → packed RGB on stdout) and every frame
 * at low resolution through the scene-score select, whose showinfo lines (stderr) are the cuts.
 * `-ss`/`-t` before `-i`: frame-accurate input seeking, and the branches see clip time from 0.
 */
export function buildScanArgs(o: ScanArgsOptions): string[] {
  const threshold = o.sceneThreshold ?? SCENE_THRESHOLD;
  const graph =
    `[0:v:0]split=2[s][c];` +
    `[s]fps=fps=${o.rate.rational},scale=${o.sample.width}:${o.sample.height}:flags=area,format=rgb24[frames];` +
    `[c]scale=${o.scene.width}:${o.scene.height}:flags=fast_bilinear,select='gt(scene,${threshold})',showinfo,nullsink`;
  return [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    // showinfo logs at info level; it is the only chatty filter here.
    '-loglevel',
    'info',
    ...INPUT_GUARD_ARGS,
    '-ss',
    String(o.start),
    '-t',
    String(o.duration),
    '-i',
    asFileUrl(o.source),
    '-filter_complex',
    graph,
    '-map',
    '[frames]',
    '-an',
    '-sn',
    '-dn',
    '-f',
    'rawvideo',
    'pipe:1',
  ];
}

export interface ScanClipOptions extends ScanArgsOptions {
  ffmpegPath: string;
  signal: AbortSignal;
  /** Called with each sampled frame in order and awaited: ffmpeg waits while it runs. */
  onFrame: (rgb: Uint8Array, index: number) => Promise<void>;
}

/** Runs the scan; resolves with the cut times (clip seconds, as ffmpeg reported them) and the frame count. */
export async function scanClip(o: ScanClipOptions): Promise<{ cuts: number[]; frames: number }> {
  const stop = new AbortController();
  const child = execa(o.ffmpegPath, buildScanArgs(o), {
    cancelSignal: AbortSignal.any([o.signal, stop.signal]),
    killDescendants: true,
    forceKillAfterDelay: 2_000,
    buffer: false,
  });
  // The child may be cancelled (the attempt aborted) while a frame is being handled, before the
  // loop below awaits it: its rejection is awaited there, so it must not count as unhandled meanwhile.
  child.catch(() => undefined);
  const cuts: number[] = [];
  const tail: string[] = [];
  let partial = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      const cut = parseCutLine(line);
      if (cut !== null) cuts.push(cut);
      else if (line.trim()) {
        tail.push(line.trim());
        if (tail.length > 20) tail.shift();
      }
    }
  });
  const assembler = new FrameAssembler(o.sample.width * o.sample.height * 3);
  let frames = 0;
  let frameFailure: { error: unknown } | undefined;
  try {
    for await (const chunk of child.stdout) {
      for (const frame of assembler.push(chunk as Uint8Array)) {
        try {
          await o.onFrame(frame, frames++);
        } catch (error) {
          frameFailure = { error };
          throw error;
        }
      }
    }
    await child;
  } catch (err) {
    stop.abort();
    await child.catch(() => undefined);
    o.signal.throwIfAborted();
    if (frameFailure) throw frameFailure.error;
    throw classifyScanFailure(err as ExecaError, tail, o.source);
  }
  return { cuts, frames };
}

/** Same split as the audio extraction's: a missing binary is ours, a file ffmpeg cannot decode the caller's. */
function classifyScanFailure(err: ExecaError, tail: readonly string[], source: string): PipelineError {
  const text = tail.join('\n');
  const last = hidePaths(tail.at(-1) ?? '', { [source]: 'source' });
  if (err.exitCode === undefined || /No space left on device/i.test(text)) {
    return new PipelineError('tool_failed', `ffmpeg failed while sampling frames for subject detection: ${last || err.code || 'no exit status'}`, {
      cause: err,
    });
  }
  if (FORMAT_REFUSED.test(text)) return formatRefused(undefined, err);
  if (PROTOCOL_REFUSED.test(text)) return inputFailure({ code: 'refers_to_other_files', params: { input: 'uploaded_file' } }, { cause: err });
  return inputFailure({ code: 'undecodable', params: { step: 'subject_detection' } }, { tool: last || `ffmpeg exit ${err.exitCode}`, cause: err });
}
