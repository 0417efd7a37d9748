import type { CropPoint } from '@cutroom/shared/clips/subjects-v1';
import { centeredCropX, cropXForCenter } from './crop-geometry.ts';

/** Where the window's center should be (source px) at clip time `t` (seconds), from one detection. */
export interface CenterTarget {
  t: number;
  x: number;
}

/** A shot (clip seconds) and the window-center targets of the subject the crop frames in it. */
export interface ShotTargets {
  start: number;
  end: number;
  /** Sorted by `t`; empty when the shot has no subject (the crop stays centered). */
  targets: CenterTarget[];
}

const roundTime = (t: number): number => Math.round(t * 1e6) / 1e6;

/** The median of the target centers, or null for none. */
export function medianCenter(targets: readonly CenterTarget[]): number | null {
  if (targets.length === 0) return null;
  const xs = targets.map((p) => p.x).sort((a, b) => a - b);
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid]! : (xs[mid - 1]! + xs[mid]!) / 2;
}

/**
 * auto / subject_id: one steady window per shot, centered on the median of that shot's targets
 * (the frame's center when it has none), one point at each shot's start. The crop jumps only at
 * shot changes, where the cut in the picture hides the jump.
 */
export function steadyPath(shots: readonly ShotTargets[], cropWidth: number, sourceWidth: number): CropPoint[] {
  return shots.map((s) => {
    const center = medianCenter(s.targets);
    const x = center === null ? centeredCropX(cropWidth, sourceWidth) : cropXForCenter(center, cropWidth, sourceWidth);
    return { t: roundTime(s.start), x, y: 0 };
  });
}

/**
 * The `follow` camera. Per output frame it compares the target (the subject's center, linearly
 * interpolated between detections) with the window's center and moves the window like a
 * critically damped spring:
 *
 * - dead zone: the window does not start moving while the target stays within ±`deadZone` × crop
 *   width of its center; once it leaves, the window heads for the (anticipated, below) target until
 *   it is within ±`settle` × crop width of it (hysteresis: no hunting around the zone's edge);
 * - smoothing: acceleration = ω²·(goal − position) − 2ω·velocity (critically damped, no overshoot
 *   toward a still target; settles in ≈ 5.8/ω s), integrated in ≤ 1/120 s steps;
 * - anticipation: the goal is where the target will be `lead` seconds later (the whole clip's
 *   detections are known before rendering). A critically damped spring trails a subject walking
 *   at a steady speed by 2/ω seconds; aiming that far ahead cancels the lag, so the window moves
 *   with the subject, not after it, and slows before the subject stops. The dead zone judges
 *   where the target is now; the window stops once it is within `settle` of where it is heading;
 * - speed limit: |velocity| ≤ `maxSpeed` × crop width per second;
 * - gaps: targets more than `maxInterpolationGap` samples apart are not interpolated, the last one
 *   holds (a lost face keeps the window where it was); before a shot's first detection the first
 *   one holds;
 * - a shot change resets the camera onto the new shot's target (the cut hides the jump).
 */
export interface FollowConstants {
  /** @default 0.1 (of the crop width, either side) */
  deadZone: number;
  /** @default 0.02 (of the crop width) */
  settle: number;
  /** Spring stiffness ω in rad/s. @default 6 (settles in about 1 s) */
  omega: number;
  /** Crop widths per second. @default 0.5 (at 25 fps: 2 % of the crop width per frame) */
  maxSpeed: number;
  /** In sample intervals. @default 2.5 */
  maxInterpolationGap: number;
  /** Seconds the goal looks ahead. @default 2/ω = 1/3 s (the spring's lag behind a steady walk) */
  lead: number;
}

export const FOLLOW_CONSTANTS: FollowConstants = { deadZone: 0.1, settle: 0.02, omega: 6, maxSpeed: 0.5, maxInterpolationGap: 2.5, lead: 2 / 6 };

export interface FollowPathOptions {
  shots: readonly ShotTargets[];
  /** Output (= source) frame rate: one decision per frame. */
  fps: number;
  cropWidth: number;
  sourceWidth: number;
  /** Seconds between sampled frames (the detector's sample_interval_s). */
  sampleInterval: number;
  constants?: FollowConstants;
}

/** Interpolated target at `t`, holding across gaps wider than `maxGap` seconds. */
function targetAt(targets: readonly CenterTarget[], t: number, maxGap: number): number {
  const first = targets[0]!;
  if (t <= first.t) return first.x;
  let i = 0;
  while (i + 1 < targets.length && targets[i + 1]!.t <= t) i++;
  const a = targets[i]!;
  const b = targets[i + 1];
  if (!b || b.t - a.t > maxGap) return a.x;
  return a.x + ((b.x - a.x) * (t - a.t)) / (b.t - a.t);
}

/**
 * The per-frame `follow` path: a point at the first frame of every shot and at every frame whose
 * (even, clamped) left offset differs from the previous frame's.
 */
export function followPath(o: FollowPathOptions): CropPoint[] {
  const k = o.constants ?? FOLLOW_CONSTANTS;
  const w = o.cropWidth;
  const lo = w / 2;
  const hi = Math.max(lo, o.sourceWidth - w / 2);
  const clampCenter = (c: number) => Math.min(hi, Math.max(lo, c));
  const vmax = k.maxSpeed * w;
  const dt = 1 / o.fps;
  const steps = Math.max(1, Math.ceil(dt * 120));
  const h = dt / steps;
  const points: CropPoint[] = [];
  for (const shot of o.shots) {
    const firstFrame = Math.max(0, Math.ceil(shot.start * o.fps - 1e-6));
    const endFrame = Math.max(firstFrame + 1, Math.ceil(shot.end * o.fps - 1e-6));
    if (shot.targets.length === 0) {
      points.push({ t: roundTime(firstFrame / o.fps), x: centeredCropX(w, o.sourceWidth), y: 0 });
      continue;
    }
    const maxGap = k.maxInterpolationGap * o.sampleInterval;
    let p = clampCenter(targetAt(shot.targets, firstFrame / o.fps, maxGap));
    let v = 0;
    let isMoving = false;
    let lastX = Number.NaN;
    for (let n = firstFrame; n < endFrame; n++) {
      const t = n / o.fps;
      const target = clampCenter(targetAt(shot.targets, t, maxGap));
      // Never past the shot: the next shot's subject is not this one.
      const ahead = clampCenter(targetAt(shot.targets, Math.min(t + k.lead, shot.end), maxGap));
      for (let s = 0; s < steps; s++) {
        // Starts when the subject now leaves the dead zone; stops when the window has reached where it is heading.
        if (!isMoving && Math.abs(target - p) > k.deadZone * w) isMoving = true;
        else if (isMoving && Math.abs(ahead - p) < k.settle * w) isMoving = false;
        const goal = isMoving ? ahead : p;
        v += (k.omega * k.omega * (goal - p) - 2 * k.omega * v) * h;
        v = Math.min(vmax, Math.max(-vmax, v));
        const next = clampCenter(p + v * h);
        if (next !== p + v * h) v = 0;
        p = next;
      }
      const x = cropXForCenter(p, w, o.sourceWidth);
      if (n === firstFrame || x !== lastX) points.push({ t: roundTime(t), x, y: 0 });
      lastX = x;
    }
  }
  return points;
}
