import { execa, type ExecaError } from 'execa';
import { inputFailure, PipelineError } from '../errors.ts';
import { createFfmpegProgressParser } from './ffmpeg-progress.ts';
import { asFileUrl, FORMAT_REFUSED, formatRefused, hidePaths, INPUT_GUARD_ARGS, PROTOCOL_REFUSED } from './media-path.ts';

export interface ExtractAudioPaths {
  input: string;
  output: string;
}

/**
 * Arguments for "first audio stream → 16 kHz mono s16 WAV", the input Whisper expects.
 * An array, never a string: paths with spaces or leading dashes stay one argument each.
 */
export function buildExtractAudioArgs({ input, output }: ExtractAudioPaths): string[] {
  return [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    // Machine-readable progress on stdout; -nostats stops the human one on stderr.
    '-progress',
    'pipe:1',
    '-nostats',
    '-y',
    // Input options: only local files, only the accepted demuxers (see INPUT_GUARD_ARGS).
    ...INPUT_GUARD_ARGS,
    '-i',
    asFileUrl(input),
    '-map',
    '0:a:0',
    '-vn',
    '-sn',
    '-dn',
    '-ac',
    '1',
    '-ar',
    '16000',
    '-c:a',
    'pcm_s16le',
    '-f',
    'wav',
    asFileUrl(output),
  ];
}

export interface ExtractAudioOptions extends ExtractAudioPaths {
  ffmpegPath: string;
  /** From the probe; progress fractions are out_time / duration. */
  durationSeconds: number;
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
}

/**
 * Extracts the audio track; rejects with the abort reason when `signal` fires. ffmpeg runs in its
 * own process group and the whole group is killed (SIGTERM, SIGKILL after 2 s), so nothing it
 * started outlives it, even when FFMPEG_PATH is a wrapper script.
 */
export async function extractAudio(opts: ExtractAudioOptions): Promise<void> {
  const parser = createFfmpegProgressParser(opts.durationSeconds);
  const child = execa(opts.ffmpegPath, buildExtractAudioArgs(opts), {
    cancelSignal: opts.signal,
    killDescendants: true,
    forceKillAfterDelay: 2_000,
    buffer: { stdout: false },
    maxBuffer: { stderr: 64 * 1024 },
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    for (const f of parser.push(chunk)) opts.onProgress?.(f);
  });
  let stderr: string;
  try {
    stderr = String((await child).stderr ?? '');
  } catch (err) {
    opts.signal.throwIfAborted();
    throw classifyExtractFailure(err as ExecaError, opts);
  }
  // A cut-short upload (an mp4 whose index names samples past the end of the file): ffmpeg decodes
  // what is there and exits 0, which would transcribe part of the file and charge for all of it.
  if (TRUNCATED_INPUT.test(stderr)) {
    throw inputFailure({ code: 'cut_short', params: {} });
  }
}

/** The demuxer's line for a sample that lies past the end of the file (mov/mp4: "stream 1, offset 0x8491: partial file"). */
const TRUNCATED_INPUT = /: partial file$/m;

/**
 * ffprobe already accepted the file, so a failing decode is most likely a corrupt upload
 * (the caller's). Ours: a missing binary or a signal, a full disk, and anything ffmpeg says about
 * the output or about files it cannot open (the work folder's state, not the upload's). The
 * messages (log, attempt row) carry ffmpeg's last error line with the work-folder paths replaced,
 * never the command line; the caller reads the detail's sentence without it.
 */
function classifyExtractFailure(err: ExecaError, paths: ExtractAudioPaths): PipelineError {
  const stderr = String(err.stderr ?? '').trim();
  const rawLast = stderr.split('\n').at(-1) ?? '';
  const lastLine = hidePaths(rawLast, { [paths.input]: 'source', [paths.output]: 'audio.wav' });
  const ours =
    err.exitCode === undefined ||
    /No space left on device/i.test(stderr) ||
    stderr.includes(asFileUrl(paths.output)) ||
    /No such file or directory|Permission denied|Is a directory/i.test(rawLast);
  if (ours) {
    const why = lastLine || err.code || (err.signal ? `killed by ${err.signal}` : 'no exit status');
    return new PipelineError('tool_failed', `ffmpeg failed while extracting audio: ${why}`, { cause: err });
  }
  if (FORMAT_REFUSED.test(stderr)) return formatRefused(undefined, err);
  if (PROTOCOL_REFUSED.test(stderr)) return inputFailure({ code: 'refers_to_other_files', params: { input: 'uploaded_file' } }, { cause: err });
  return inputFailure({ code: 'undecodable', params: { step: 'audio_extraction' } }, { tool: lastLine || `ffmpeg exit ${err.exitCode}`, cause: err });
}
