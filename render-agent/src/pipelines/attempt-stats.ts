import type { Clock } from '../clock.ts';

/**
 * What an attempt measures about its own work for the coordinator's metrics: the optional
 * `stats` of its CompleteRequest (proto `AttemptStats`: the Whisper pass, the H.264 encode).
 * Timed with the agent's clock, so a manual clock in tests reads 0 s (the coordinator then
 * records no ratio).
 */

/** Seconds since `started` (a `clock.now()`), never negative: a wall clock stepped back reads as 0. */
export function elapsedSeconds(clock: Pick<Clock, 'now'>, started: number): number {
  return Math.max(0, (clock.now() - started) / 1000);
}
