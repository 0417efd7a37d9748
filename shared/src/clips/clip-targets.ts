import { z } from 'zod';

/**
 * What find_clips' candidates are sized for (the request's optional `target`): `short` for
 * stories and shorts, `medium` for reels and feeds, `long` for the spec's 2-5 minute clips. The
 * coordinator reads it for the request and the products (a profile's cap picks one), the agent
 * for the search, the clips document records it. Enum members are only ever added.
 */
export const ClipTarget = z.enum(['short', 'medium', 'long']);
export type ClipTarget = z.infer<typeof ClipTarget>;

export interface ClipLengths {
  /** Shortest candidate, seconds. */
  minSeconds: number;
  /** Longest candidate, seconds. */
  maxSeconds: number;
  /** Where the search settles when a topic leaves room: ties between two ends go towards this length. */
  idealSeconds: number;
}

/** Each target's candidate lengths: a clip never lasts less than `minSeconds` nor more than `maxSeconds`. */
export const CLIP_TARGETS: Readonly<Record<ClipTarget, ClipLengths>> = {
  short: { minSeconds: 15, maxSeconds: 60, idealSeconds: 30 },
  medium: { minSeconds: 60, maxSeconds: 180, idealSeconds: 90 },
  long: { minSeconds: 120, maxSeconds: 300, idealSeconds: 180 },
};

/**
 * No target: the spec's 2-5 minutes (the lengths of `long`). Unlike an explicit `long`, the
 * default gives way when the recording has no topic of 2 minutes: its candidates then fit the
 * recording's own topics (`DEFAULT_FALLBACK_LENGTHS`), where `long` would offer none.
 */
export const DEFAULT_CLIP_LENGTHS: ClipLengths = CLIP_TARGETS.long;

/** The default's lengths when no topic is long enough for it: a topic of 15 s or more is a candidate whole. */
export const DEFAULT_FALLBACK_LENGTHS: ClipLengths = {
  minSeconds: CLIP_TARGETS.short.minSeconds,
  maxSeconds: DEFAULT_CLIP_LENGTHS.maxSeconds,
  idealSeconds: DEFAULT_CLIP_LENGTHS.idealSeconds,
};

/** The shortest clip find_clips makes, whatever the target (what the clips document's schema allows). */
export const SHORTEST_CLIP_SECONDS = CLIP_TARGETS.short.minSeconds;
/** The longest clip find_clips makes, whatever the target. */
export const LONGEST_CLIP_SECONDS = CLIP_TARGETS.long.maxSeconds;

/** "15-60 s": how a target's lengths read in notes and documentation. */
export const lengthsLabel = (l: ClipLengths): string => `${l.minSeconds}-${l.maxSeconds} s`;

/**
 * The target a vertical render of at most `capSeconds` asks find_clips for, or null for the
 * default. The default's candidates are 2 minutes or more, so a cap under that (vidB-stories, 60 s)
 * would cut every one of them mid-thought: the longest target whose every candidate fits the cap
 * is asked instead, so the clips end where the speaker ends, not where the cap falls. A cap of 2
 * minutes or more (180, 240 s) keeps the default: a candidate over it is trimmed, still 2 minutes
 * long at least.
 */
export function clipTargetForCap(capSeconds: number): ClipTarget | null {
  if (capSeconds >= DEFAULT_CLIP_LENGTHS.minSeconds) return null;
  const fitting = ClipTarget.options.filter((t) => CLIP_TARGETS[t].maxSeconds <= capSeconds);
  // No target fits a cap under 60 s (no such profile today): the shortest one comes closest.
  return fitting.at(-1) ?? 'short';
}
