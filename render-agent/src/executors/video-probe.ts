import { execa } from 'execa';
import { z } from 'zod';
import { inputFailure } from '../errors.ts';
import { asFileUrl, INPUT_GUARD_ARGS } from './media-path.ts';

/** The first video stream of a file, as a cut needs it (size after rotation, exact frame rate). */
export interface VideoStreamInfo {
  /** Display width/height in pixels (rotation metadata of ±90° swaps them, as players do). */
  width: number;
  height: number;
  /** Frames per second as a number (30000/1001 → 29.97…). */
  fps: number;
  /** The exact rate as ffmpeg writes it (`30000/1001`), for filters that take a rational. */
  fpsRational: string;
  /** Sample aspect ratio as `num:den` (`1:1` when absent). */
  sar: string;
  /** Container duration, seconds (the stream's when the container has none). */
  durationSeconds: number;
  hasAudio: boolean;
  /** Codec of the first video stream (h264, hevc, vp9 …). */
  codec: string;
}

const Probe = z.object({
  streams: z
    .array(
      z.object({
        codec_type: z.string().optional(),
        codec_name: z.string().optional(),
        width: z.number().optional(),
        height: z.number().optional(),
        avg_frame_rate: z.string().optional(),
        r_frame_rate: z.string().optional(),
        sample_aspect_ratio: z.string().optional(),
        duration: z.string().optional(),
        tags: z.record(z.string(), z.string()).optional(),
        side_data_list: z.array(z.object({ rotation: z.number().optional() }).loose()).optional(),
        disposition: z.object({ attached_pic: z.number().optional() }).partial().optional(),
      }),
    )
    .default([]),
  format: z.object({ duration: z.string().optional() }).optional(),
});

function rate(r: string | undefined): number | null {
  if (!r) return null;
  const [n, d = '1'] = r.split('/');
  const v = Number(n) / Number(d);
  return Number.isFinite(v) && v > 0 ? v : null;
}

/** ffprobe JSON → VideoStreamInfo; a file without a (non-cover-art) video stream is `media_invalid`. */
export function parseVideoProbe(json: string): VideoStreamInfo {
  const parsed = Probe.safeParse(JSON.parse(json));
  if (!parsed.success) throw inputFailure({ code: 'not_video', params: {} });
  const { streams, format } = parsed.data;
  const v = streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  if (!v?.width || !v.height) throw inputFailure({ code: 'no_video_stream', params: {} });
  const avg = rate(v.avg_frame_rate);
  const real = rate(v.r_frame_rate);
  // avg_frame_rate is what players show; r_frame_rate is a fallback for streams that lack it.
  const fpsRational = avg ? v.avg_frame_rate! : real ? v.r_frame_rate! : '25/1';
  const rotation = Number(v.tags?.['rotate'] ?? v.side_data_list?.find((s) => s.rotation !== undefined)?.rotation ?? 0);
  const swap = Math.abs(rotation) % 180 === 90;
  const duration = Number.parseFloat(format?.duration ?? v.duration ?? 'NaN');
  return {
    width: swap ? v.height : v.width,
    height: swap ? v.width : v.height,
    fps: rate(fpsRational)!,
    fpsRational,
    sar: v.sample_aspect_ratio && v.sample_aspect_ratio !== '0:1' ? v.sample_aspect_ratio : '1:1',
    durationSeconds: Number.isFinite(duration) ? duration : 0,
    hasAudio: streams.some((s) => s.codec_type === 'audio'),
    codec: v.codec_name ?? 'unknown',
  };
}

/** Probes a local file's first video stream (under the same input guard as every other probe). */
export async function probeVideo(ffprobePath: string, input: string, signal?: AbortSignal): Promise<VideoStreamInfo> {
  const r = await execa(ffprobePath, ['-v', 'error', ...INPUT_GUARD_ARGS, '-print_format', 'json', '-show_format', '-show_streams', asFileUrl(input)], {
    reject: false,
    killDescendants: true,
    forceKillAfterDelay: 2_000,
    ...(signal ? { cancelSignal: signal } : {}),
  });
  signal?.throwIfAborted();
  if (r.exitCode !== 0) throw inputFailure({ code: 'not_video', params: {} });
  return parseVideoProbe(String(r.stdout));
}
