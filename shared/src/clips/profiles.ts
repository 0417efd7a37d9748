import { z } from 'zod';

/** The spec's vertical encoding profiles (CreateJobRequest `profile`). Enum members are only ever added. */
export const VerticalProfile = z.enum(['vidA-primary', 'vidA-primary-720p', 'vidB-reels', 'vidB-stories']);
export type VerticalProfile = z.infer<typeof VerticalProfile>;

/** How a profile spends bits: constant quality under a cap, or constant bit rate. */
export type RateControl = { mode: 'crf'; crf: number; maxKbps: number } | { mode: 'cbr'; kbps: number };

export interface ProfileSpec {
  width: number;
  height: number;
  /** Longest clip the profile takes, seconds (spec: Limits). */
  maxSeconds: number;
  /** x264 preset name; the NVENC mapping lives with the agent's encoder arguments. */
  preset: 'fast' | 'slow';
  rate: RateControl;
}

/**
 * The spec's profiles table, the one place both processes read: the coordinator for the duration
 * cap and the output size, the agent for the encode (libx264 and h264_nvenc from the same row).
 * vidA-primary-720p names no preset in the spec: it keeps vidA-primary's `fast`.
 */
export const VERTICAL_PROFILES: Readonly<Record<VerticalProfile, ProfileSpec>> = {
  'vidA-primary': { width: 1080, height: 1920, maxSeconds: 240, preset: 'fast', rate: { mode: 'crf', crf: 22, maxKbps: 6000 } },
  'vidA-primary-720p': { width: 720, height: 1280, maxSeconds: 240, preset: 'fast', rate: { mode: 'cbr', kbps: 3000 } },
  'vidB-reels': { width: 1080, height: 1920, maxSeconds: 180, preset: 'slow', rate: { mode: 'cbr', kbps: 4000 } },
  'vidB-stories': { width: 1080, height: 1920, maxSeconds: 60, preset: 'slow', rate: { mode: 'cbr', kbps: 4000 } },
};

export const DEFAULT_VERTICAL_PROFILE: VerticalProfile = 'vidA-primary';

/**
 * The picture's shape (CreateJobRequest `aspect`, a cutroom extension): 9:16 for stories, reels and
 * shorts (the spec's only shape, the default), 4:5 and 1:1 for feed posts. Enum members are only ever added.
 */
export const ClipAspect = z.enum(['9:16', '4:5', '1:1']);
export type ClipAspect = z.infer<typeof ClipAspect>;

export const DEFAULT_CLIP_ASPECT: ClipAspect = '9:16';

/** Width over height of an aspect: 9:16 → 0.5625. */
export function aspectRatio(aspect: ClipAspect): number {
  const [w, h] = aspect.split(':').map(Number) as [number, number];
  return w / h;
}

/**
 * The output size of a profile in an aspect: the profile's width, the height from the aspect (even,
 * for 4:2:0). vidA-primary: 9:16 1080x1920, 4:5 1080x1350, 1:1 1080x1080; vidA-primary-720p: 720x1280,
 * 720x900, 720x720. The profile's rate and preset stay as they are (fewer pixels, the same cap).
 */
export function outputSize(profile: VerticalProfile, aspect: ClipAspect = DEFAULT_CLIP_ASPECT): { width: number; height: number } {
  const { width } = VERTICAL_PROFILES[profile];
  return { width, height: Math.round(width / aspectRatio(aspect) / 2) * 2 };
}

/** Every profile normalizes loudness to this (spec: "-14 LUFS / -1.5 dBTP"); LRA is ffmpeg loudnorm's default. */
export const LOUDNESS_TARGET = { integratedLufs: -14, truePeakDbtp: -1.5, lra: 11 } as const;

/** Audio fade at every join of a multi-segment extract_clip (spec: 15 ms). */
export const JOIN_FADE_SECONDS = 0.015;
