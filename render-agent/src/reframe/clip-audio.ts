import { execa } from 'execa';
import { asFileUrl, INPUT_GUARD_ARGS } from '../executors/media-path.ts';

/** Sample rate of the audio speaking.ts reads: loudness over quarter-second intervals needs no more. */
export const CLIP_AUDIO_RATE = 8000;

/**
 * The clip's sound as mono 16-bit samples at CLIP_AUDIO_RATE (about 1 MB a minute), for telling
 * who speaks (speaking.ts). Null when the source has no audio or ffmpeg cannot read it: then no
 * face is said to speak, and the crop falls back to the largest and most central face.
 */
export async function clipAudio(o: { ffmpegPath: string; source: string; start: number; duration: number; signal: AbortSignal }): Promise<Int16Array | null> {
  const args = [
    ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error'],
    ...INPUT_GUARD_ARGS,
    ...['-ss', String(o.start), '-t', String(o.duration), '-i', asFileUrl(o.source)],
    ...['-vn', '-sn', '-dn', '-ac', '1', '-ar', String(CLIP_AUDIO_RATE), '-f', 's16le', 'pipe:1'],
  ];
  const r = await execa(o.ffmpegPath, args, { encoding: 'buffer', cancelSignal: o.signal, reject: false, stripFinalNewline: false });
  o.signal.throwIfAborted();
  const bytes = r.stdout as Uint8Array;
  if (r.exitCode !== 0 || bytes.length < 2) return null;
  // A copy: the Buffer's offset into its pool need not be 2-byte aligned.
  const aligned = new Uint8Array(bytes.length - (bytes.length % 2));
  aligned.set(bytes.subarray(0, aligned.length));
  return new Int16Array(aligned.buffer);
}
