import { execa, type ExecaError } from 'execa';
import { PipelineError } from '../errors.ts';
import { createFfmpegProgressParser } from './ffmpeg-progress.ts';
import { asFileUrl } from './media-path.ts';

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

/** Extracts the audio track; rejects with the abort reason when `signal` fires (ffmpeg is killed). */
export async function extractAudio(opts: ExtractAudioOptions): Promise<void> {
  const parser = createFfmpegProgressParser(opts.durationSeconds);
  const child = execa(opts.ffmpegPath, buildExtractAudioArgs(opts), {
    cancelSignal: opts.signal,
    forceKillAfterDelay: 2_000,
    buffer: { stdout: false },
    maxBuffer: { stderr: 64 * 1024 },
  });
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    for (const f of parser.push(chunk)) opts.onProgress?.(f);
  });
  try {
    await child;
  } catch (err) {
    opts.signal.throwIfAborted();
    throw classifyExtractFailure(err as ExecaError);
  }
}

/**
 * ffprobe already accepted the file, so a failing decode is most likely a corrupt upload
 * (the caller's); a missing binary or a full disk is ours.
 */
function classifyExtractFailure(err: ExecaError): PipelineError {
  const stderr = String(err.stderr ?? '').trim();
  const lastLine = stderr.split('\n').at(-1) ?? '';
  if (err.exitCode === undefined || /No space left on device/i.test(stderr)) {
    return new PipelineError('tool_failed', `ffmpeg failed while extracting audio: ${lastLine || err.shortMessage}`, { cause: err });
  }
  return new PipelineError('media_invalid', `the audio in the uploaded file could not be decoded (${lastLine || `ffmpeg exit ${err.exitCode}`})`, {
    cause: err,
  });
}
