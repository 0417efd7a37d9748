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

/** Every profile normalizes loudness to this (spec: "-14 LUFS / -1.5 dBTP"); LRA is ffmpeg loudnorm's default. */
export const LOUDNESS_TARGET = { integratedLufs: -14, truePeakDbtp: -1.5, lra: 11 } as const;

/** Audio fade at every join of a multi-segment extract_clip (spec: 15 ms). */
export const JOIN_FADE_SECONDS = 0.015;
