import path from 'node:path';
import { execa, type ExecaError } from 'execa';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { PipelineError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { hidePaths } from './media-path.ts';
import { pythonEnv, TRANSCRIBE_SCRIPT } from '../python-scripts.ts';
import { createTranscriptCollector } from './transcript-collector.ts';
import { createLineSplitter, parseWhisperLine } from './whisper-events.ts';

export interface WhisperOptions {
  python: string;
  audioPath: string;
  model: string;
  device: 'cpu' | 'cuda';
  computeType: string;
  beamSize: number;
  /** CTranslate2 threads on the CPU; 0 or absent: its default (config.ts defaultWhisperCpuThreads). */
  cpuThreads?: number;
  /** ISO 639-1 code to force, or null to detect. */
  language: string | null;
  allowDownload: boolean;
  /**
   * Aborting kills the child's whole process group (SIGTERM, then SIGKILL after 2 s), so nothing
   * it started outlives it even when PYTHON is a wrapper, and rejects with the reason.
   */
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
  /** Called with the child's pid once it has started (logs, and tests that check it is gone). */
  onSpawn?: (pid: number) => void;
  logger?: Logger;
}

export function buildWhisperArgs(o: Pick<WhisperOptions, 'audioPath' | 'model' | 'device' | 'computeType' | 'beamSize' | 'cpuThreads' | 'language'>): string[] {
  const args = [
    TRANSCRIBE_SCRIPT,
    '--audio',
    o.audioPath,
    '--model',
    o.model,
    '--device',
    o.device,
    '--compute-type',
    o.computeType,
    '--beam-size',
    String(o.beamSize),
  ];
  if (o.cpuThreads) args.push('--cpu-threads', String(o.cpuThreads));
  if (o.language) args.push('--language', o.language);
  return args;
}

/** Runs the faster-whisper child and returns the validated transcript. */
export async function transcribeWithWhisper(o: WhisperOptions): Promise<TranscriptV2> {
  const collector = createTranscriptCollector();
  const lines = createLineSplitter();
  const child = execa(o.python, buildWhisperArgs(o), {
    cancelSignal: o.signal,
    killDescendants: true,
    forceKillAfterDelay: 2_000,
    env: pythonEnv(o.allowDownload),
    buffer: { stdout: false },
    maxBuffer: { stderr: 256 * 1024 },
  });
  if (child.pid !== undefined) o.onSpawn?.(child.pid);

  const handle = (line: string) => {
    const parsed = parseWhisperLine(line);
    if (parsed === null) return;
    if (!parsed.ok) {
      o.logger?.warn({ line: parsed.line.slice(0, 300), reason: parsed.reason }, 'ignored a malformed line from the whisper child');
      return;
    }
    if (parsed.event.type === 'progress') o.onProgress?.(parsed.event.fraction);
    collector.add(parsed.event);
  };
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => lines.push(chunk).forEach(handle));

  try {
    await child;
  } catch (err) {
    o.signal.throwIfAborted();
    lines.end().forEach(handle);
    // Prefer the child's own classified error line over the bare exit status.
    const own = collector.failure();
    throw own ? new PipelineError(own.code, hideAudioPath(own.message, o.audioPath), { detail: own.detail }) : childFailure(err as ExecaError, o.audioPath);
  }
  lines.end().forEach(handle);
  try {
    return collector.finish();
  } catch (err) {
    if (err instanceof PipelineError) throw new PipelineError(err.code, hideAudioPath(err.message, o.audioPath), { detail: err.detail });
    throw err;
  }
}

/** The child names the audio by its work-folder path; the failure message (log, attempt row) shows only its file name. */
const hideAudioPath = (text: string, audioPath: string) => hidePaths(text, { [audioPath]: path.basename(audioPath) });

/** The exit status and the last lines of stderr; not execa's message, which carries the command line. */
function childFailure(err: ExecaError, audioPath: string): PipelineError {
  const status = err.exitCode !== undefined ? `exit ${err.exitCode}` : (err.signal ?? err.code ?? 'did not start');
  const tail = String(err.stderr ?? '')
    .trim()
    .split('\n')
    .slice(-3)
    .join(' | ');
  return new PipelineError('tool_failed', hideAudioPath(`the Whisper process failed (${status})${tail ? `: ${tail}` : ''}`, audioPath).slice(0, 2000), {
    cause: err,
  });
}
