import {
  CLIP_TARGETS,
  type ClipLengths,
  type ClipTarget,
  DEFAULT_CLIP_LENGTHS,
  DEFAULT_FALLBACK_LENGTHS,
  lengthsLabel,
} from '@cutroom/shared/clips/clip-targets';
import { type Span, spanSeconds, type Timed } from './candidates.ts';

/**
 * The lengths find_clips searches in, from the request's target and the topics found: a target
 * is taken as asked; no target is the spec's 2-5 minutes, unless no topic lasts 2 minutes (a
 * short recording, or a talk of short sections), where candidates fit the topics instead of
 * crossing them. And the notes that say what that cost: topics too short for a candidate.
 */

export interface ChosenLengths extends ClipLengths {
  /** The request's target; null: the default. */
  requested: ClipTarget | null;
  /** The default gave way to the topics' own lengths. */
  isFallback: boolean;
}

/** The least speech a recording needs for any candidate under `target` (before its topics are known). */
export const shortestClipFor = (target: ClipTarget | null): number => (target ? CLIP_TARGETS[target] : DEFAULT_FALLBACK_LENGTHS).minSeconds;

/** The lengths to search in: the target's, or the default's, or (no topic reaching the default's minimum) the topics' own. */
export function chooseLengths(target: ClipTarget | null, sentences: readonly Timed[], topics: readonly Span[]): ChosenLengths {
  if (target) return { ...CLIP_TARGETS[target], requested: target, isFallback: false };
  const longest = Math.max(0, ...topics.map((t) => spanSeconds(sentences, t)));
  const isFallback = longest < DEFAULT_CLIP_LENGTHS.minSeconds;
  return { ...(isFallback ? DEFAULT_FALLBACK_LENGTHS : DEFAULT_CLIP_LENGTHS), requested: null, isFallback };
}

const clock = (t: number) => `${Math.floor(t / 60)}:${String(Math.floor(t % 60)).padStart(2, '0')}`;

/**
 * What the lengths mean for this recording, in plain words: the default giving way, and the
 * topics too short for a candidate of their own (listed, with a shorter target that fits them).
 */
export function lengthNotes(chosen: ChosenLengths, sentences: readonly Timed[], topics: readonly Span[]): string[] {
  const notes: string[] = [];
  const label = lengthsLabel(chosen);
  if (chosen.isFallback) {
    notes.push(
      `no topic lasts ${DEFAULT_CLIP_LENGTHS.minSeconds} s, the shortest default clip: the candidates fit the recording's own topics (${label}) instead of 2-5 minutes`,
    );
  }
  const short = topics.filter((t) => spanSeconds(sentences, t) < chosen.minSeconds);
  if (short.length === 0) return notes;
  const list = short.map((t) => `${clock(sentences[t.first]!.start)}-${clock(sentences[t.last]!.end)} (${Math.round(spanSeconds(sentences, t))} s)`);
  const name = chosen.requested ? `the ${chosen.requested} target's` : "the default's";
  const shortest = Math.min(...short.map((t) => spanSeconds(sentences, t)));
  const fits = (['medium', 'short'] as const).find((t) => CLIP_TARGETS[t].minSeconds <= shortest && CLIP_TARGETS[t].minSeconds < chosen.minSeconds);
  const one = short.length === 1;
  notes.push(
    `${short.length} of ${topics.length} topics ${one ? 'is' : 'are'} shorter than ${chosen.minSeconds} s, ${name} shortest clip: ${list.join(', ')}; ` +
      `no candidate lies in ${one ? 'it' : 'them'} alone${fits ? ` (target ${fits}, ${lengthsLabel(CLIP_TARGETS[fits])}, fits ${one ? 'it' : 'them'})` : ''}`,
  );
  return notes;
}
