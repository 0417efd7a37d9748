import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/**
 * Transcripts of synthesized test talks, made once per machine. A test that needs a real Whisper
 * transcript as its input (find_clips' analysis on real recognition errors, the understanding
 * evaluation) gets the same words for the same audio from the same recognizer, so the transcript is
 * kept outside the checkout in the set-up cache (scripts/lib/cache.sh: `$CUTROOM_CACHE`, else
 * `$XDG_CACHE_HOME/cutroom` or `~/.cache/cutroom`), keyed by the audio's bytes (or the caller's key),
 * the recognizer settings and the installed faster-whisper and CTranslate2 versions: a second clean
 * clone does not transcribe again, and an upgrade of either transcribes afresh. The flows that test
 * transcription itself (transcribe-flow, the agent's jobs) never read it.
 */

const root = resolve(import.meta.dirname, '../..');

export const MACHINE_CACHE = process.env['CUTROOM_CACHE'] ?? join(process.env['XDG_CACHE_HOME'] ?? join(process.env['HOME'] ?? homedir(), '.cache'), 'cutroom');

/** The recognizer packages installed in the project's Python environment, e.g. `ctranslate2-4.8.5 faster_whisper-1.2.1`. */
export function recognizerVersions(): string {
  const lib = join(root, '.venv', 'lib');
  const python = existsSync(lib) ? readdirSync(lib).find((d) => d.startsWith('python')) : undefined;
  if (!python) return 'no-venv';
  return readdirSync(join(lib, python, 'site-packages'))
    .filter((d) => /^(faster_whisper|ctranslate2)-.*\.dist-info$/.test(d))
    .map((d) => d.replace(/\.dist-info$/, ''))
    .sort()
    .join(' ');
}

/**
 * `make()`'s result for `what` (an audio file, or any string that names the input exactly), read
 * from the machine cache when the same input, settings and recognizer made it before.
 */
export async function cachedTranscription<T>(what: { audio: string } | { key: string }, settings: object, make: () => Promise<T>): Promise<T> {
  const input = 'audio' in what ? createHash('sha256').update(readFileSync(what.audio)).digest('hex') : what.key;
  const key = createHash('sha256')
    .update(JSON.stringify([input, settings, recognizerVersions()]))
    .digest('hex')
    .slice(0, 24);
  const dir = join(MACHINE_CACHE, 'test-transcripts');
  const file = join(dir, `${key}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T;
  const made = await make();
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(made));
  return made;
}
