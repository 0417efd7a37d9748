/**
 * Shot changes from ffmpeg's scene score: the scan's `select='gt(scene,T)',showinfo` branch logs
 * one showinfo line per frame whose scene score (0..1, how different it is from the previous
 * frame) exceeds the threshold; its `pts_time` is a cut, in clip seconds (the scan seeks with
 * `-ss` before `-i`, so the clip's first frame is at 0).
 */

/**
 * Scene score above which a frame starts a new shot. 0.3 is ffmpeg's documented starting point
 * for hard cuts; camera motion and fades stay well below it.
 * @default 0.3
 */
export const SCENE_THRESHOLD = 0.3;

/**
 * Shots shorter than this are merged into their neighbour (a flash, or a dissolve scoring over the
 * threshold on several frames, is not a shot).
 * @default 0.5
 */
export const MIN_SHOT_SECONDS = 0.5;

const SHOWINFO_FRAME = /\[Parsed_showinfo_\d+ @ [^\]]+\] n:\s*\d+ .*?pts_time:\s*(-?[\d.]+(?:e[-+]?\d+)?)/;

/** The cut time in one stderr line, or null when the line is not a showinfo frame line. */
export function parseCutLine(line: string): number | null {
  const m = SHOWINFO_FRAME.exec(line);
  if (!m) return null;
  const t = Number.parseFloat(m[1]!);
  return Number.isFinite(t) ? t : null;
}

export interface ShotRange {
  start: number;
  end: number;
}

/**
 * Cut times → the cuts kept (sorted, at least MIN_SHOT_SECONDS from the clip's ends and from the
 * previous kept cut) and the shots between them, covering [0, duration].
 */
export function shotsFromCuts(cuts: readonly number[], duration: number, minShot = MIN_SHOT_SECONDS): { cuts: number[]; shots: ShotRange[] } {
  const kept: number[] = [];
  for (const c of [...cuts].sort((a, b) => a - b)) {
    const previous = kept.at(-1) ?? 0;
    if (c - previous >= minShot && duration - c >= minShot) kept.push(c);
  }
  const bounds = [0, ...kept, duration];
  const shots = kept.length === 0 ? [{ start: 0, end: duration }] : bounds.slice(1).map((end, i) => ({ start: bounds[i]!, end }));
  return { cuts: kept, shots };
}
