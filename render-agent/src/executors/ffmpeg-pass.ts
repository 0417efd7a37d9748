import { execa, type ExecaError } from 'execa';
import { PASS_STEPS, type PassStep } from '@cutroom/shared/failure-details';
import { inputFailure, PipelineError } from '../errors.ts';
import { createFfmpegProgressParser } from './ffmpeg-progress.ts';
import { asFileUrl, FORMAT_REFUSED, formatRefused, hidePaths, PROTOCOL_REFUSED } from './media-path.ts';

/**
 * Options every ffmpeg pass of a cut starts with: machine-readable progress on stdout, and log
 * lines tagged with their level (`[error] …`, `level+…`) so a failure's own lines can be told
 * from the info lines that carry what a pass measured (ebur128's summary).
 * A pass that measures nothing logs errors only (`'error'`): a cut opens the source once per
 * segment, and each input's info would only fill the stderr kept.
 */
export function passPreamble(level: 'info' | 'error'): string[] {
  return ['-hide_banner', '-nostdin', '-nostats', '-loglevel', `level+${level}`, '-progress', 'pipe:1'];
}

/** The preamble of a pass that reads what its filters print (`passPreamble('info')`). */
export const PASS_PREAMBLE: readonly string[] = passPreamble('info');

/** Seconds as ffmpeg's time syntax takes them: fixed-point (String(1e-7) would be `1e-7`, which it refuses). */
export function ffmpegSeconds(seconds: number): string {
  return seconds.toFixed(6);
}

export interface FfmpegPassOptions {
  ffmpegPath: string;
  args: string[];
  /** Media seconds the pass covers; progress fractions are out_time / this. */
  durationSeconds: number;
  /** Kills ffmpeg's whole process group (SIGTERM, SIGKILL 2 s later); the pass rejects with the reason. */
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
  /** What the pass does, for failure messages (`measuring_loudness`: "… while measuring the loudness"). */
  step: PassStep;
  /** Local path → the name a failure message shows instead (`{ [source]: 'source' }`). */
  names: Record<string, string>;
  /** Files this pass writes: an error naming one of them is the work folder's state, not the upload's. */
  outputs?: string[];
}

/** The largest stderr kept: info-level logs of one pass are a few kB; a flood of decoder warnings stops here. */
const STDERR_MAX_BYTES = 4 * 1024 * 1024;

/**
 * Runs one ffmpeg pass over a cut and resolves with its stderr (what the measuring filters
 * printed). A failure is classified (see classifyPassFailure) with no local path in its message.
 */
export async function runFfmpegPass(o: FfmpegPassOptions): Promise<string> {
  const parser = createFfmpegProgressParser(o.durationSeconds);
  const child = execa(o.ffmpegPath, o.args, {
    cancelSignal: o.signal,
    killDescendants: true,
    forceKillAfterDelay: 2_000,
    buffer: { stdout: false },
    maxBuffer: { stderr: STDERR_MAX_BYTES },
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    for (const f of parser.push(chunk)) o.onProgress?.(f);
  });
  try {
    const r = await child;
    return String(r.stderr);
  } catch (err) {
    o.signal.throwIfAborted();
    throw classifyPassFailure(err as ExecaError, o);
  }
}

/** ffmpeg's own error lines (`level+info` tags them), oldest first. */
export function errorLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((l) => /\[(error|fatal|panic)\]/.test(l))
    .map((l) =>
      l
        .replace(/^\[[^\]]*@ 0x[0-9a-f]+\]\s*/, '')
        .replace(/^\[(error|fatal|panic)\]\s*/, '')
        .trim(),
    )
    .filter((l) => l !== '' && l !== 'Conversion failed!');
}

/** Lines that blame our side of the pass: the filter graph we built (and the streams it maps), the encoder, the output file, memory. */
const OURS =
  /No space left on device|Permission denied|Is a directory|Cannot allocate memory|Error (initializing|reinitializing|configuring) (output stream|(complex )?filters?|filter graph)|matches no streams|Unknown encoder|Error while opening encoder|Error while filtering|Failed to inject frame|Invalid too big or non positive size|\[(libx264|h264_nvenc|Parsed_[a-z0-9_]+|AVFilterGraph) @/i;

/**
 * ffprobe already accepted the source, so a decode that fails is most likely a corrupt upload
 * (the caller's: media_invalid). Ours (tool_failed): a missing binary or a signal, a full disk,
 * anything about the output, the filter graph or the encoder, and files the tool cannot open
 * (the work folder's state). Messages (log, attempt row) carry ffmpeg's last error line with local
 * paths replaced, never the command line; the caller reads the detail's sentence without it.
 */
export function classifyPassFailure(
  err: Pick<ExecaError, 'stderr' | 'exitCode' | 'code' | 'signal'>,
  o: Pick<FfmpegPassOptions, 'step' | 'names' | 'outputs'>,
): PipelineError {
  const stderr = String(err.stderr ?? '');
  const tagged = stderr.split('\n').filter((l) => /\[(error|fatal|panic)\]/.test(l));
  const lines = errorLines(stderr);
  const rawLast = lines.at(-1) ?? stderr.trim().split('\n').at(-1) ?? '';
  const last = hidePaths(rawLast, o.names);
  const isOurs =
    err.exitCode === undefined ||
    (o.outputs ?? []).some((p) => stderr.includes(asFileUrl(p))) ||
    tagged.some((l) => OURS.test(l)) ||
    /No such file or directory/i.test(rawLast);
  if (isOurs) {
    const why = last || err.code || (err.signal ? `killed by ${err.signal}` : 'no exit status');
    return new PipelineError('tool_failed', `ffmpeg failed while ${PASS_STEPS[o.step]}: ${why}`, { cause: err });
  }
  if (FORMAT_REFUSED.test(stderr)) return formatRefused(undefined, err);
  if (PROTOCOL_REFUSED.test(stderr)) return inputFailure({ code: 'refers_to_other_files', params: { input: 'source' } }, { cause: err });
  return inputFailure({ code: 'undecodable', params: { step: o.step } }, { tool: last || `ffmpeg exit ${err.exitCode}`, cause: err });
}
