import { z } from 'zod';

/** What agents measure about media and report at a stage change or a completion (proto re-exports these). */

/** The source as probed: checked against what the caller declared and paid for. */
export const MediaInfo = z.object({
  duration_seconds: z.number().nonnegative(),
  has_video: z.boolean(),
  has_audio: z.boolean(),
  format_name: z.string(),
});
export type MediaInfo = z.infer<typeof MediaInfo>;

/** The encoder that wrote a cut's video: the job records which one ran. */
export const VideoEncoder = z.enum(['libx264', 'h264_nvenc']);
export type VideoEncoder = z.infer<typeof VideoEncoder>;

/** A cut's output as the agent probed it after encoding. */
export const RenderedVideo = z.object({
  duration_seconds: z.number().nonnegative(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  fps: z.number().positive(),
  encoder: VideoEncoder,
});
export type RenderedVideo = z.infer<typeof RenderedVideo>;

/** Loudness of the delivered audio, measured (ebur128) after normalization. */
export const LoudnessResult = z.object({
  input_integrated_lufs: z.number(),
  output_integrated_lufs: z.number(),
  output_true_peak_dbtp: z.number(),
});
export type LoudnessResult = z.infer<typeof LoudnessResult>;
