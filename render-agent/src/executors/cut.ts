import fs from 'node:fs/promises';
import path from 'node:path';
import type { VideoEncoder } from '@cutroom/proto';
import { JOIN_FADE_SECONDS } from '@cutroom/shared/clips/profiles';
import { type FfmpegPassOptions, ffmpegSeconds as sec, passPreamble, runFfmpegPass } from './ffmpeg-pass.ts';
import { AAC_ARGS, EXTRACT_CLIP_SETTINGS, h264Args, MP4_ARGS } from './h264-encoder.ts';
import { asFileUrl, INPUT_GUARD_ARGS } from './media-path.ts';

/** A segment on the source's frame grid: the times the cut really uses. */
export interface SnappedSegment {
  /** Source seconds of the first frame's start (`startFrame / fps`). */
  start: number;
  /** Source seconds just after the last frame (`(startFrame + frames) / fps`). */
  end: number;
  /** Index of the first frame (0 = the source's first frame). */
  startFrame: number;
  /** How many frames the segment keeps (at least 1). */
  frames: number;
}

/** Absorbs float noise in `t × fps` (2.0 × 30 = 59.99999…) without moving a real boundary. */
const FRAME_EPSILON = 1e-6;

/**
 * Puts every segment on the source's frame grid. Frame k is displayed over [k/fps, (k+1)/fps);
 * a segment keeps frames [floor(start·fps), floor(end·fps)): the first frame is the one shown at
 * `start`, the last the one before the frame shown at `end` (an `end` on a boundary ends just
 * before it). A segment shorter than a frame keeps the frame at `start`. With `sourceSeconds`,
 * frames past the source's last one are dropped (the segment still keeps at least one frame).
 * Order and repeats are kept: the output follows the segments as given.
 */
export function snapSegments(segments: readonly { start: number; end: number }[], fps: number, sourceSeconds?: number): SnappedSegment[] {
  const frameCount = sourceSeconds === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(sourceSeconds * fps + FRAME_EPSILON));
  return segments.map((s) => {
    const first = Math.min(Math.floor(s.start * fps + FRAME_EPSILON), frameCount - 1);
    const after = Math.min(Math.max(Math.floor(s.end * fps + FRAME_EPSILON), first + 1), Math.max(frameCount, first + 1));
    return { start: first / fps, end: after / fps, startFrame: first, frames: after - first };
  });
}

export interface CutArgsOptions {
  input: string;
  output: string;
  segments: readonly SnappedSegment[];
  fps: number;
  /** The source's exact rate (`30000/1001`): the output keeps it. */
  fpsRational: string;
  hasAudio: boolean;
  encoder: VideoEncoder;
}

/** Where a pass's segments sit in a longer cut (one part of several): joins before or after it still fade. */
export interface CutJoins {
  before: boolean;
  after: boolean;
}

const NO_JOINS: CutJoins = { before: false, after: false };

interface SegmentInput {
  /** Where the input seeks (`-ss`). */
  seek: number;
  /** Source time of the segment's first frame, on the input's timeline (which starts at `seek`). */
  offset: number;
}

/**
 * Each segment is its own input, opened with `-ss` half a frame before its first frame: ffmpeg
 * seeks to the keyframe before that, decodes from there and drops every frame before the seek
 * point (accurate seek), so the first frame left is exactly the segment's first frame whatever
 * the keyframe layout, and only the segment (plus one GOP) is decoded, never the file from 0.
 * The half-frame margin absorbs timestamp rounding in the container.
 */
function segmentInput(s: SnappedSegment, fps: number): SegmentInput {
  const seek = Math.max(0, s.start - 0.5 / fps);
  return { seek, offset: s.start - seek };
}

const EVEN_SIZE = 'crop=w=trunc(iw/2)*2:h=trunc(ih/2)*2:x=0:y=0';

/**
 * The filter graph: per segment, the video keeps what lies within (frames − ½)/fps of its first
 * frame (exactly `frames` frames on a constant-rate source; the right span on a variable-rate
 * one) and the audio exactly the snapped times, both rebased to 0; 15 ms fades on both sides of
 * every join (never at the clip's own start or end); then one concat. Audio and video of a
 * segment are cut on the same times, so they cannot drift apart however many segments follow.
 */
export function buildCutFilter(segments: readonly SnappedSegment[], fps: number, hasAudio: boolean, joins: CutJoins = NO_JOINS): string {
  const chains: string[] = [];
  const pads: string[] = [];
  segments.forEach((s, i) => {
    const { offset } = segmentInput(s, fps);
    const duration = s.frames / fps;
    // `duration` counts from the first frame kept, so a video track that starts a little after the
    // file (an mkv with AAC priming) still yields exactly `frames` frames.
    chains.push(`[${i}:v:0]trim=duration=${sec((s.frames - 0.5) / fps)},setpts=PTS-STARTPTS[v${i}]`);
    pads.push(`[v${i}]`);
    if (!hasAudio) return;
    // A fade never longer than half the segment, so a fade-in and a fade-out cannot overlap.
    const fade = Math.min(JOIN_FADE_SECONDS, duration / 2);
    const fades = [
      ...(i > 0 || joins.before ? [`afade=t=in:st=0:d=${sec(fade)}`] : []),
      ...(i < segments.length - 1 || joins.after ? [`afade=t=out:st=${sec(duration - fade)}:d=${sec(fade)}`] : []),
    ];
    chains.push(`[${i}:a:0]${[`atrim=start=${sec(offset)}:end=${sec(offset + duration)}`, 'asetpts=PTS-STARTPTS', ...fades].join(',')}[a${i}]`);
    pads.push(`[a${i}]`);
  });
  const outs = hasAudio ? '[joined][a]' : '[joined]';
  // 4:2:0 H.264 needs even sizes: an odd source loses its last column/row, any other passes as is.
  return `${chains.join(';')};${pads.join('')}concat=n=${segments.length}:v=1:a=${hasAudio ? 1 : 0}${outs};[joined]${EVEN_SIZE}[v]`;
}

/**
 * Decoder threads per segment input. Every input has its own decoder, all open at once although
 * only one decodes at a time, and each holds a frame per thread: 50 segments of a 1080p source
 * peaked at 6.4 GB with 16 threads per decoder (ffmpeg's default on a 16-core host), 1.4 GB with
 * 2 and 1.0 GB with 1. Two keep decoding ahead of the encoder without memory that grows with
 * cores × segments.
 */
const DECODER_THREADS = 2;

/**
 * The whole ffmpeg command line as an array (paths stay one argument each, behind `file:`).
 * With `part`, it writes one part of a longer cut (cutClip): the same video encode, the audio
 * still uncompressed (PCM in a .mov), so that the parts join by copying the video and the audio
 * is encoded once, with no encoder priming at the joins.
 */
export function buildCutArgs(o: CutArgsOptions & { part?: CutJoins }): string[] {
  const inputs = o.segments.flatMap((s) => {
    const { seek, offset } = segmentInput(s, o.fps);
    // -t only bounds how far the demuxer reads; the filters make the exact cut (one frame of slack).
    const bound = ['-ss', sec(seek), '-t', sec(offset + (s.frames + 1) / o.fps)];
    return [...bound, '-threads', String(DECODER_THREADS), ...INPUT_GUARD_ARGS, '-i', asFileUrl(o.input)];
  });
  return [
    // Errors only: a cut measures nothing, and 50 inputs' info lines would be noise.
    ...passPreamble('error'),
    '-y',
    ...inputs,
    '-filter_complex',
    buildCutFilter(o.segments, o.fps, o.hasAudio, o.part),
    '-map',
    '[v]',
    ...(o.hasAudio ? ['-map', '[a]'] : []),
    ...h264Args(o.encoder, EXTRACT_CLIP_SETTINGS),
    // The source's rate, constant: from a constant-rate source every output frame is one source
    // frame; a variable-rate one is evened out (frames repeated or dropped), keeping it in sync.
    '-fps_mode',
    'cfr',
    '-r',
    o.fpsRational,
    ...(o.hasAudio ? (o.part ? PART_AUDIO_ARGS : AAC_ARGS) : []),
    ...CLEAN_OUTPUT_ARGS,
    ...(o.part ? ['-f', 'mov'] : MP4_ARGS),
    asFileUrl(o.output),
  ];
}

/** Parts keep the audio as 16-bit PCM at the delivered rate and layout: AAC_ARGS encodes it once, at the join. */
const PART_AUDIO_ARGS = ['-c:a', 'pcm_s16le', '-ar', '48000', '-ac', '2'];
const CLEAN_OUTPUT_ARGS = ['-sn', '-dn', '-map_metadata', '-1', '-map_chapters', '-1'];

/** The concat demuxer's list of parts (`file` lines; a quote in a path is escaped as the format wants). */
export function concatList(parts: readonly string[]): string {
  return parts.map((p) => `file '${asFileUrl(p).replaceAll("'", "'\\''")}'\n`).join('');
}

/**
 * Joins the parts listed in `list` into the delivered mp4: the video copied (every part starts on
 * a keyframe and was encoded with the same settings, so the streams join as they are), the audio
 * encoded to AAC once. Only the concat demuxer and our own .mov parts may be opened.
 */
export function buildJoinArgs(o: { list: string; output: string; hasAudio: boolean }): string[] {
  return [
    ...passPreamble('error'),
    '-y',
    ...['-f', 'concat', '-safe', '0', '-protocol_whitelist', 'file', '-format_whitelist', 'concat,mov'],
    ...['-i', asFileUrl(o.list)],
    ...['-map', '0:v:0', ...(o.hasAudio ? ['-map', '0:a:0'] : [])],
    ...['-c:v', 'copy', ...(o.hasAudio ? AAC_ARGS : [])],
    ...CLEAN_OUTPUT_ARGS,
    ...MP4_ARGS,
    asFileUrl(o.output),
  ];
}

/** Output seconds of a cut: its frames at the source's rate. */
export function cutSeconds(segments: readonly SnappedSegment[], fps: number): number {
  return segments.reduce((sum, s) => sum + s.frames, 0) / fps;
}

export interface CutOptions extends CutArgsOptions {
  ffmpegPath: string;
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
}

/**
 * Cuts and joins the segments into one mp4 at `output`; rejects with the abort reason when
 * `signal` fires (ffmpeg's whole process group is killed: SIGTERM, SIGKILL after 2 s), or with a
 * failure classified as every pass's is (`classifyPassFailure`).
 */
export async function cutClip(o: CutOptions): Promise<void> {
  if (o.segments.length <= SEGMENTS_PER_PASS) {
    await runFfmpegPass({
      ffmpegPath: o.ffmpegPath,
      args: buildCutArgs(o),
      durationSeconds: cutSeconds(o.segments, o.fps),
      signal: o.signal,
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      ...cutFailureContext(o),
    });
    return;
  }
  // More segments than one pass may open: SEGMENTS_PER_PASS at a time into parts, then one join.
  const groups: SnappedSegment[][] = [];
  for (let i = 0; i < o.segments.length; i += SEGMENTS_PER_PASS) groups.push(o.segments.slice(i, i + SEGMENTS_PER_PASS));
  const dir = path.dirname(o.output);
  const parts = groups.map((_, i) => path.join(dir, `clip-part-${i}.mov`));
  const list = path.join(dir, 'clip-parts.txt');
  const total = cutSeconds(o.segments, o.fps);
  // The join only copies: the parts' encodes are nearly all of the work.
  const ENCODE_SHARE = 0.97;
  let done = 0;
  try {
    for (const [i, group] of groups.entries()) {
      const seconds = cutSeconds(group, o.fps);
      const part = { before: i > 0, after: i < groups.length - 1 };
      await runFfmpegPass({
        ffmpegPath: o.ffmpegPath,
        args: buildCutArgs({ ...o, segments: group, output: parts[i]!, part }),
        durationSeconds: seconds,
        signal: o.signal,
        onProgress: (f) => o.onProgress?.((ENCODE_SHARE * (done + f * seconds)) / total),
        ...cutFailureContext({ input: o.input, output: parts[i]! }),
        names: { [o.input]: 'source', [parts[i]!]: `part ${i + 1} of the clip` },
      });
      done += seconds;
    }
    await fs.writeFile(list, concatList(parts));
    await runFfmpegPass({
      ffmpegPath: o.ffmpegPath,
      args: buildJoinArgs({ list, output: o.output, hasAudio: o.hasAudio }),
      durationSeconds: total,
      signal: o.signal,
      onProgress: (f) => o.onProgress?.(ENCODE_SHARE + (1 - ENCODE_SHARE) * f),
      step: 'joining_clip',
      names: { [list]: 'the list of parts', [o.output]: 'clip.mp4', ...Object.fromEntries(parts.map((p, i) => [p, `part ${i + 1}`])) },
      outputs: [o.output, ...parts, list],
    });
  } finally {
    await Promise.all([...parts, list].map((p) => fs.rm(p, { force: true })));
  }
}

/**
 * Segments one ffmpeg run opens at most. Each segment is an input with its own demuxer and
 * decoder, all open for the whole run: on a 1080p source 50 segments peaked at 1.45 GB and 300 at
 * over 6 GB, so a longer cut (an edit_from_transcript of up to 300) is rendered 50 at a time
 * into parts that are then joined, and memory stays where one 50-segment cut puts it.
 */
export const SEGMENTS_PER_PASS = 50;

/**
 * How a cut's failures are told (ffmpeg-pass.ts `classifyPassFailure`): ffprobe already read the
 * source, so a decode that fails is the caller's (media_invalid); the encoder, the graph, the
 * output and the disk are ours (tool_failed). Messages name the files `source` and `clip.mp4`,
 * never their local paths.
 */
export function cutFailureContext(paths: { input: string; output: string }): Pick<FfmpegPassOptions, 'step' | 'names' | 'outputs'> {
  return { step: 'encoding_clip', names: { [paths.input]: 'source', [paths.output]: 'clip.mp4' }, outputs: [paths.output] };
}
