import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { execa } from 'execa';
import { mp4Bytes } from '@cutroom/shared/testing/media-bytes';

/**
 * Bad input for test/bad-media.test.ts, made small and fast with ffmpeg (every file is under a few
 * MB and takes under two seconds to make on one core).
 */

const ffmpeg = (args: string[]) => execa('ffmpeg', ['-v', 'error', '-y', ...args]);

/** A 0-byte file. */
export function emptyFile(out: string): void {
  writeFileSync(out, Buffer.alloc(0));
}

/** Deterministic pseudo-random bytes (SHA-256 in counter mode): the same file every run. */
export function seededBytes(out: string, size: number, seed = 'cutroom-bad-media'): void {
  const chunks: Buffer[] = [];
  for (let i = 0, n = 0; n < size; i++, n += 32) chunks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  writeFileSync(out, Buffer.concat(chunks).subarray(0, size));
}

/** A plain text file (what a mislabelled upload of notes looks like). */
export function textFile(out: string): void {
  writeFileSync(out, 'These are meeting notes, not audio.\n'.repeat(200));
}

/** One 64x48 PNG frame. */
export async function pngImage(out: string): Promise<void> {
  await ffmpeg(['-f', 'lavfi', '-i', 'testsrc=size=64x48', '-frames:v', '1', out]);
}

/** An H.264 MP4 with a picture and no audio track at all. */
export async function videoWithoutAudio(out: string, seconds = 2): Promise<void> {
  await ffmpeg([
    '-f',
    'lavfi',
    '-i',
    `testsrc=size=64x48:rate=10:duration=${seconds}`,
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-pix_fmt',
    'yuv420p',
    '-an',
    out,
  ]);
}

/**
 * An H.264/AAC MP4 of `audio` with its moov box where ffmpeg writes it by default: after mdat
 * (no `+faststart`), so `dropMoov` can take it off the end, as an upload cut short would.
 */
export async function mp4MoovLast(audio: string, out: string): Promise<void> {
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-i', audio, '-shortest'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '32k', out],
  ]);
}

/** The same with `+faststart` (moov before mdat): cutting its tail leaves a readable index over missing samples. */
export async function mp4MoovFirst(audio: string, out: string): Promise<void> {
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc=size=64x48:rate=10', '-i', audio, '-shortest'],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '32k', '-movflags', '+faststart', out],
  ]);
}

/** The top-level ISO BMFF boxes of a file: type, offset and size (64-bit sizes and size 0 = to the end handled). */
export function topLevelBoxes(file: Buffer): { type: string; offset: number; size: number }[] {
  const boxes: { type: string; offset: number; size: number }[] = [];
  for (let offset = 0; offset + 8 <= file.length; ) {
    let size = file.readUInt32BE(offset);
    const type = file.toString('latin1', offset + 4, offset + 8);
    if (size === 1) size = Number(file.readBigUInt64BE(offset + 8));
    else if (size === 0) size = file.length - offset;
    if (size < 8) throw new Error(`box ${type} at ${offset} has size ${size}`);
    boxes.push({ type, offset, size });
    offset += size;
  }
  return boxes;
}

/** Writes `src` without its top-level moov box (every other box kept as is). */
export function dropMoov(src: string, out: string): void {
  const file = readFileSync(src);
  const kept = topLevelBoxes(file)
    .filter((b) => b.type !== 'moov')
    .map((b) => file.subarray(b.offset, b.offset + b.size));
  if (kept.length === topLevelBoxes(file).length) throw new Error(`${src} has no moov box`);
  writeFileSync(out, Buffer.concat(kept));
}

/** Writes the first `fraction` of `src`'s bytes. */
export function cutTail(src: string, out: string, fraction: number): void {
  const file = readFileSync(src);
  writeFileSync(out, file.subarray(0, Math.floor(file.length * fraction)));
}

/**
 * Digital silence of `seconds` as 8 kHz mono FLAC: FLAC stores silent frames as constant
 * subframes, so 4 hours are about 2.7 MB, made in under two seconds, and the duration is exact
 * (STREAMINFO carries the sample count).
 */
export async function longSilence(out: string, seconds: number): Promise<void> {
  await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=8000:cl=mono', '-t', String(seconds), '-c:a', 'flac', out]);
}

/**
 * An upload that passes complete-upload's signature check (an MP4 `ftyp` box) and then cannot be
 * decoded (random bytes where the movie should be): the agent's probe fails it as media_invalid,
 * so the job ends failed and is refunded. For tests of what a failed paid job does.
 */
export function undecodableMp4(size: number): Buffer {
  const ftyp = mp4Bytes();
  const chunks: Buffer[] = [ftyp];
  for (let i = 0, n = 0; n < size; i++, n += 32) chunks.push(createHash('sha256').update(`undecodable:${i}`).digest());
  return Buffer.concat(chunks).subarray(0, ftyp.length + size);
}
