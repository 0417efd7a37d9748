/**
 * What the detection scan samples: how often, at what size, and how raw RGB bytes from ffmpeg's
 * stdout become whole frames. Pure; the ffmpeg run is in scan-clip.ts.
 */

/**
 * Longest side of a sampled frame in pixels. BlazeFace reads it whole and in 3 x 2 tiles of 256 px
 * at full scale (blazeface.ts): a face of 4 % of the frame width is ~26 px here, which it finds;
 * more pixels would mean more tiles.
 * @default 640
 */
export const SAMPLE_MAX_SIDE = 640;

/** @default 480: about 50 s of detection here at ≈ 0.1 s a frame, whatever the clip's length. */
export const MAX_SAMPLES = 480;

/** Sample intervals are multiples of 1/20 s, so the rate is the exact rational 20/k. */
const INTERVAL_STEP_DENOMINATOR = 20;

export interface SampleRate {
  /** Seconds between samples (the document's sample_interval_s). */
  interval: number;
  /** The same as ffmpeg's `fps` filter takes it: `20/k`. */
  rational: string;
}

/**
 * The sampling rate for a clip: `preferredFps` (4 a second: plan.ts) unless that would take more
 * than `maxSamples` frames, in which case the interval grows (rounded up to a 1/20 s step).
 */
export function sampleRate(durationSeconds: number, preferredFps: number, maxSamples = MAX_SAMPLES): SampleRate {
  const wanted = Math.max(1 / preferredFps, durationSeconds / maxSamples);
  const k = Math.max(1, Math.ceil(wanted * INTERVAL_STEP_DENOMINATOR - 1e-9));
  return { interval: k / INTERVAL_STEP_DENOMINATOR, rational: `${INTERVAL_STEP_DENOMINATOR}/${k}` };
}

/** How many frames the scan should yield for a clip (progress denominator; ffmpeg may yield one more or less). */
export function expectedSamples(durationSeconds: number, rate: SampleRate): number {
  return Math.max(1, Math.ceil(durationSeconds / rate.interval - 1e-9));
}

/** A frame size with the longest side at most `maxSide`, both sides even, aspect kept. */
export function scaledSize(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const even = (v: number) => Math.max(2, Math.round((v * scale) / 2) * 2);
  return { width: even(width), height: even(height) };
}

/** Cuts a byte stream into whole frames of `frameBytes` each (chunks from a pipe break anywhere). */
export class FrameAssembler {
  readonly frameBytes: number;
  private pending: Uint8Array;
  private filled = 0;

  constructor(frameBytes: number) {
    this.frameBytes = frameBytes;
    this.pending = new Uint8Array(frameBytes);
  }

  /** Adds bytes; returns the frames they completed, in order (each its own copy). */
  push(chunk: Uint8Array): Uint8Array[] {
    const done: Uint8Array[] = [];
    let offset = 0;
    while (offset < chunk.length) {
      const take = Math.min(this.frameBytes - this.filled, chunk.length - offset);
      this.pending.set(chunk.subarray(offset, offset + take), this.filled);
      this.filled += take;
      offset += take;
      if (this.filled === this.frameBytes) {
        done.push(this.pending);
        this.pending = new Uint8Array(this.frameBytes);
        this.filled = 0;
      }
    }
    return done;
  }
}
