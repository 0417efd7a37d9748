import type { VideoEncoder } from '@cutroom/proto';
import { ffmpegSeconds, PASS_PREAMBLE, runFfmpegPass } from './ffmpeg-pass.ts';
import { AAC_ARGS, type H264Settings, h264Args, MP4_ARGS } from './h264-encoder.ts';
import { asFileUrl, INPUT_GUARD_ARGS } from './media-path.ts';

export interface VerticalFrame {
  /**
   * The crop window as a filter chain in source pixels (reframe/crop-filter.ts: `crop=…`, or
   * `sendcmd=…,crop=…` for a moving window); empty = no crop, the whole picture (a vertical source).
   */
  cropFilter: string;
  /** Output size in pixels (the profile's). */
  width: number;
  height: number;
}

/**
 * The video chain: crop → scale to the profile's size (lanczos) → square pixels → yuv420p. With
 * no crop the whole picture is kept: scaled to fit and padded (black) to exactly width x height
 * when its aspect differs from 9:16, never cropped and never stretched. The filter graph sees
 * clip-relative timestamps (the input seek starts them at 0), which is what a crop path's `t` is.
 */
export function buildVerticalVideoFilter(f: VerticalFrame): string {
  const { width: w, height: h } = f;
  const crop = f.cropFilter.trim().replace(/,+$/, '');
  const fit = crop
    ? [crop, `scale=${w}:${h}:flags=lanczos`]
    : [`scale=${w}:${h}:force_original_aspect_ratio=decrease:force_divisible_by=2:flags=lanczos`, `pad=${w}:${h}:(ow-iw)/2:(oh-ih)/2:color=black`];
  return [...fit, 'setsar=1', 'format=yuv420p'].join(',');
}

export interface VerticalRenderSpec extends VerticalFrame {
  /** Local path of the source. */
  input: string;
  /** Local path of the mp4 to write. */
  output: string;
  /** Source seconds. */
  start: number;
  /** Seconds from `start`. */
  duration: number;
  /** The audio chain (loudness.ts planLoudness), or null for a source without audio: the clip is silent. */
  audioFilter: string | null;
  encoder: VideoEncoder;
  /** The profile row's preset and rate control. */
  settings: H264Settings;
}

/**
 * One ffmpeg pass from the source's range to the delivered mp4. The input seek (`-ss`/`-t` before
 * `-i`) is frame-exact here because every frame is re-encoded: ffmpeg decodes from the keyframe
 * before `start` and drops what precedes it. The frame rate is the source's; metadata, chapters,
 * subtitles and data streams are not carried over.
 */
export function buildVerticalRenderArgs(s: VerticalRenderSpec): string[] {
  const audio = s.audioFilter === null ? ['-an'] : ['-af', s.audioFilter, ...AAC_ARGS];
  return [
    ...PASS_PREAMBLE,
    '-y',
    ...INPUT_GUARD_ARGS,
    '-ss',
    ffmpegSeconds(s.start),
    '-t',
    ffmpegSeconds(s.duration),
    '-i',
    asFileUrl(s.input),
    '-map',
    '0:v:0',
    ...(s.audioFilter === null ? [] : ['-map', '0:a:0']),
    '-vf',
    buildVerticalVideoFilter(s),
    ...h264Args(s.encoder, s.settings),
    ...audio,
    '-map_metadata',
    '-1',
    '-map_chapters',
    '-1',
    '-sn',
    '-dn',
    ...MP4_ARGS,
    asFileUrl(s.output),
  ];
}

export interface RenderVerticalClipOptions extends VerticalRenderSpec {
  ffmpegPath: string;
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
}

/** Renders the clip; rejects with the abort reason on `signal`, or a classified PipelineError. */
export async function renderVerticalClip(o: RenderVerticalClipOptions): Promise<void> {
  await runFfmpegPass({
    ffmpegPath: o.ffmpegPath,
    args: buildVerticalRenderArgs(o),
    durationSeconds: o.duration,
    signal: o.signal,
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    step: 'encoding_vertical_clip',
    names: { [o.input]: 'source', [o.output]: 'clip.mp4' },
    outputs: [o.output],
  });
}
