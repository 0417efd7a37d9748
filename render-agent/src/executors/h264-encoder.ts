import type { VideoEncoder } from '@cutroom/proto';
import type { RateControl } from '@cutroom/shared/clips/profiles';
import type { HostFacts } from '../capabilities/requirements.ts';

/** The H.264 encoder a cut uses on this host: NVENC when a one-frame session opened at start-up, else libx264. */
export const h264EncoderOf = (host: Pick<HostFacts, 'nvenc'>): VideoEncoder => (host.nvenc ? 'h264_nvenc' : 'libx264');

export interface H264Settings {
  preset: 'fast' | 'slow';
  rate: RateControl;
}

/**
 * extract_clip keeps the source's size and rate and re-encodes every frame (that is what makes the
 * cut exact): constant quality high enough to be visually lossless for speech video, x264 `fast`.
 */
export const EXTRACT_CLIP_SETTINGS: H264Settings = { preset: 'fast', rate: { mode: 'crf', crf: 18, maxKbps: 20_000 } };

/** x264 preset → NVENC preset (p1 fastest … p7 best): `fast` ≈ p3, `slow` ≈ p6. */
const NVENC_PRESET = { fast: 'p3', slow: 'p6' } as const;

/**
 * Output-side video arguments for one row of settings, for either encoder: the same profile table
 * drives both (spec: profiles). CRF under a cap maps to NVENC's constant-quality VBR (`-cq`) with
 * the same cap; CBR to CBR with a two-second VBV buffer, which x264 needs
 * to hold a constant rate without starving on scene changes.
 */
export function h264Args(encoder: VideoEncoder, s: H264Settings): string[] {
  const common = ['-pix_fmt', 'yuv420p', '-profile:v', 'high'];
  if (encoder === 'libx264') {
    const rate =
      s.rate.mode === 'crf'
        ? ['-crf', String(s.rate.crf), '-maxrate', `${s.rate.maxKbps}k`, '-bufsize', `${s.rate.maxKbps * 2}k`]
        : [
            '-b:v',
            `${s.rate.kbps}k`,
            '-minrate',
            `${s.rate.kbps}k`,
            '-maxrate',
            `${s.rate.kbps}k`,
            '-bufsize',
            `${s.rate.kbps * 2}k`,
            '-x264-params',
            'nal-hrd=cbr',
          ];
    return ['-c:v', 'libx264', '-preset', s.preset, ...rate, ...common];
  }
  const rate =
    s.rate.mode === 'crf'
      ? ['-rc', 'vbr', '-cq', String(s.rate.crf), '-b:v', '0', '-maxrate', `${s.rate.maxKbps}k`, '-bufsize', `${s.rate.maxKbps * 2}k`]
      : ['-rc', 'cbr', '-b:v', `${s.rate.kbps}k`, '-maxrate', `${s.rate.kbps}k`, '-bufsize', `${s.rate.kbps * 2}k`];
  return ['-c:v', 'h264_nvenc', '-preset', NVENC_PRESET[s.preset], ...rate, ...common];
}

/** AAC stereo at 48 kHz, 192 kbit/s, for every cut. */
export const AAC_ARGS = ['-c:a', 'aac', '-b:a', '192k', '-ar', '48000', '-ac', '2'];

/** mp4 with the index up front, so playback starts before the download ends. */
export const MP4_ARGS = ['-movflags', '+faststart', '-f', 'mp4'];
