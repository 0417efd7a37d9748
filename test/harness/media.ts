import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { extname, join } from 'node:path';
import { execa } from 'execa';
import { MACHINE_CACHE } from './transcript-cache.ts';

/** Debian's pocketsphinx-testdata: LibriVox utterances (public domain) with reference text. */
export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';

export interface Utterance {
  file: string;
  reference: string;
}

export function librivoxUtterances(): Utterance[] {
  const lines = readFileSync(join(LIBRIVOX_DIR, 'transcription'), 'utf8').split('\n').filter(Boolean);
  return lines.map((line) => {
    const m = /^<s>\s*(.*?)\s*<\/s>\s*\((.+)\)$/.exec(line.trim());
    if (!m) throw new Error(`unexpected transcription line: ${line}`);
    return { file: join(LIBRIVOX_DIR, `${m[2]}.wav`), reference: m[1]! };
  });
}

/** Concatenates WAVs (repeated `times`) into one 16 kHz mono WAV at `out`, with short pauses. */
export async function concatWavs(files: string[], out: string, times = 1): Promise<void> {
  const list = Array.from({ length: times }, () => files).flat();
  const inputs = list.flatMap((f) => ['-i', f]);
  const filter = `${list.map((_, i) => `[${i}:a]apad=pad_dur=0.4[a${i}];`).join('')}${list.map((_, i) => `[a${i}]`).join('')}concat=n=${list.length}:v=0:a=1[out]`;
  await execa('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', filter, '-map', '[out]', '-ar', '16000', '-ac', '1', out]);
}

/**
 * A small H.264/AAC MP4: a test pattern with the given audio as its sound track. `videoKbps`
 * makes it larger on purpose (a file of a known size in bytes, e.g. several upload chunks).
 * `fps` (default 15) sets the test pattern's rate; a vertical clip keeps its source's rate, so a
 * lower one makes each 9:16 encode of a flow proportionally cheaper.
 */
export async function makeVideo(audio: string, out: string, opts: { pattern?: string; videoKbps?: number; fps?: number } = {}): Promise<void> {
  const bitrate = opts.videoKbps ? ['-b:v', `${opts.videoKbps}k`, '-movflags', '+faststart'] : [];
  const pattern = opts.pattern ?? `testsrc=size=320x240:rate=${opts.fps ?? 15}`;
  const args = ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', ...bitrate, '-c:a', 'aac', '-b:a', '64k'];
  // Made once per machine (the 7.8-min talk of find-clips-flow took 22 s of CPU, AAC most of it).
  await cachedMedia(out, [readFileSync(audio), pattern, ...args], (to) =>
    execa('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', pattern, '-i', audio, '-shortest', ...args, to]),
  );
}

/**
 * `out` made by `make(path)`, or copied from the machine cache (transcript-cache.ts: outside the
 * checkout, so a second clean clone does not make it again) when the same inputs made it before.
 * `inputs` name the result exactly (the source's bytes, the tool's arguments). Written under a
 * temporary name and renamed, so two test files making the same file at once never read half of it.
 */
export async function cachedMedia(out: string, inputs: readonly (string | Buffer)[], make: (to: string) => Promise<unknown>): Promise<void> {
  const hash = createHash('sha256');
  for (const i of inputs) hash.update(i).update('\0');
  const dir = join(MACHINE_CACHE, 'test-media');
  const file = join(dir, `${hash.digest('hex').slice(0, 24)}${extname(out)}`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}${extname(out)}`;
    await make(tmp);
    renameSync(tmp, file);
  }
  copyFileSync(file, out);
}
