import { type Cue, cleanCueText, normalizeCues } from './cues.ts';
import { secondsToMs } from './timestamps.ts';
import type { TranscriptV1, TranscriptV2 } from './transcript-v2.ts';

/**
 * Subtitle cues laid out for reading, the rules subtitle tools and broadcasters use: at most two
 * lines of at most 42 characters, each cue shown between about 1 and 7 seconds, broken at the
 * ends of sentences, at pauses and at clause punctuation rather than mid-phrase. One module for
 * every SRT and VTT this service writes (the captions burned into clips reuse it); the JSON
 * transcripts keep Whisper's segments and words as they are.
 *
 * With word timings (transcript v2) a cue starts at its first word and ends at its last; without
 * them (v1), a segment too long for one cue is split at word boundaries and its time shared out
 * by characters.
 */
export interface CueLayout {
  lineChars: number;
  lines: number;
  minMs: number;
  maxMs: number;
  pauseMs: number;
}

export const CUE_LAYOUT: Readonly<CueLayout> = {
  /** Characters per line (Netflix, BBC and most platforms: 37-42). */
  lineChars: 42,
  lines: 2,
  /** A cue shorter than this is held longer when the next one leaves room. */
  minMs: 1000,
  /** A cue longer than this is split. */
  maxMs: 7000,
  /** A silence at least this long ends a cue: nothing is shown over it. */
  pauseMs: 700,
};

interface Token {
  text: string;
  startMs: number;
  endMs: number;
  /** Where a cue may end after this token, best first: 3 sentence end, 2 clause, 1 none. */
  strength: number;
  /** The last word of a Whisper segment. */
  segmentEnd?: boolean;
  /** A cue ends after it: the last word of a segment without word timings (all that is known of its phrasing). */
  hardEnd?: boolean;
}

/** Whisper's word pieces that attach to the previous word: "-man" in "Two-man", "'s", closing punctuation. */
const ATTACHES = /^(?:-[\p{L}\p{N}]|['’]\p{L}|[.,!?;:%)\]}])/u;

/** Whether a Whisper word piece attaches to the word before it ("-man", "'s", a closing mark); the edit format groups by it too. */
export const attachesToPrevious = (piece: string): boolean => ATTACHES.test(piece.trim());

/** Words joined for reading: a space between them except before a piece that attaches ("Two-man-eat", "it's"). */
export function joinWords(words: readonly string[]): string {
  let out = '';
  for (const w of words) {
    const word = w.trim();
    if (!word) continue;
    out += out && !ATTACHES.test(word) ? ` ${word}` : word;
  }
  return out;
}

const SENTENCE_END = /[.!?…]["'”’)]*$/u;
const CLAUSE_END = /[,;:—–]["'”’)]*$/u;
const strengthOf = (text: string): number => {
  if (SENTENCE_END.test(text)) return 3;
  return CLAUSE_END.test(text) ? 2 : 1;
};

/** The cue's text in at most `lines` lines of `lineChars`, broken where the lines come out most even (after punctuation when that is as even); a single word longer than a line keeps its own line. */
export function wrapCueText(text: string, layout: Pick<CueLayout, 'lineChars' | 'lines'> = CUE_LAYOUT): string {
  const clean = cleanCueText(text);
  if (clean.length <= layout.lineChars || layout.lines < 2) return clean;
  const words = clean.split(' ');
  let best: { at: number; score: number } | null = null;
  for (let i = 1; i < words.length; i++) {
    const first = words.slice(0, i).join(' ');
    const second = words.slice(i).join(' ');
    const longest = Math.max(first.length, second.length);
    // Even lines first; a break after punctuation is worth a few characters of evenness.
    const score = longest - (strengthOf(first) > 1 ? 6 : 0) + (longest > layout.lineChars ? 1000 : 0);
    if (!best || score < best.score) best = { at: i, score };
  }
  return best ? `${words.slice(0, best.at).join(' ')}\n${words.slice(best.at).join(' ')}` : clean;
}

const fits = (text: string, layout: CueLayout) =>
  text.length <= layout.lineChars * layout.lines - (layout.lines - 1) &&
  wrapCueText(text, layout)
    .split('\n')
    .every((l) => l.length <= layout.lineChars);

/**
 * Tokens with times, in one stream: the words of v2 segments, or a v1 segment's words with its
 * time shared out by characters. Whisper's segments are not where a reader wants breaks (one
 * often ends mid-phrase), so they only mark their last word.
 */
function tokensOf(t: TranscriptV2 | TranscriptV1): Token[] {
  const runs = t.segments.map((s): Token[] => {
    const words = 'words' in s ? s.words.filter((w) => w.word.trim()) : [];
    if (words.length) {
      // Pieces that attach ("-man") become part of the word before them.
      const merged: { text: string; start: number; end: number }[] = [];
      for (const w of words) {
        const word = w.word.trim();
        const last = merged.at(-1);
        if (last && ATTACHES.test(word)) Object.assign(last, { text: last.text + word, end: Math.max(last.end, w.end) });
        else merged.push({ text: word, start: w.start, end: w.end });
      }
      return merged.map((w) => ({
        text: w.text,
        startMs: secondsToMs(w.start),
        endMs: Math.max(secondsToMs(w.end), secondsToMs(w.start)),
        strength: strengthOf(w.text),
      }));
    }
    const parts = cleanCueText(s.text).split(' ').filter(Boolean);
    const total = parts.reduce((n, p) => n + p.length + 1, 0);
    const startMs = secondsToMs(s.start);
    const span = Math.max(0, secondsToMs(s.end) - startMs);
    let at = 0;
    return parts.map((p) => {
      const from = startMs + Math.round((span * at) / total);
      at += p.length + 1;
      return { text: p, startMs: from, endMs: startMs + Math.round((span * at) / total), strength: strengthOf(p) };
    });
  });
  t.segments.forEach((s, i) => {
    const last = runs[i]!.at(-1);
    const timed = 'words' in s && (s as TranscriptV2['segments'][number]).words.some((w) => w.word.trim());
    if (last) Object.assign(last, { segmentEnd: true, hardEnd: !timed });
  });
  return runs.flat();
}

/**
 * Splits the stream of tokens into cues: a cue grows word by word until the next word would
 * overflow its two lines or its 7 s, or a pause comes; it then ends at the best place inside it
 * (a sentence end, else a clause end, in its later two thirds), else before that word. A sentence
 * end closes a cue that reads well on its own, or one where Whisper's segment ended too; a
 * segment without word timings is never joined to the next.
 */
function layoutRun(tokens: readonly Token[], layout: CueLayout): Token[][] {
  const cues: Token[][] = [];
  let cue: Token[] = [];
  const textOf = (ts: readonly Token[]) => joinWords(ts.map((x) => x.text));
  for (const tok of tokens) {
    const prev = cue.at(-1);
    if (prev && tok.startMs - prev.endMs >= layout.pauseMs) {
      cues.push(cue);
      cue = [];
    }
    const next = [...cue, tok];
    const tooLong = cue.length > 0 && (!fits(textOf(next), layout) || tok.endMs - cue[0]!.startMs > layout.maxMs);
    if (tooLong) {
      // The best break in the later two thirds of what is held, else right here.
      let cut = cue.length;
      let best = 1;
      for (let i = Math.ceil(cue.length / 3); i < cue.length; i++) {
        const strength = cue[i - 1]!.strength;
        // The strongest break wins; among equals, the later (fuller) one.
        if (strength > 1 && strength >= best) [cut, best] = [i, strength];
      }
      cues.push(cue.slice(0, cut));
      cue = [...cue.slice(cut), tok];
      continue;
    }
    cue = next;
    if (tok.hardEnd || (tok.strength === 3 && (tok.segmentEnd || textOf(cue).length >= layout.lineChars / 2))) {
      cues.push(cue);
      cue = [];
    }
  }
  if (cue.length) cues.push(cue);
  return cues;
}

/**
 * The transcript's cues, laid out for reading (CUE_LAYOUT): wrapped text (`\n` between its two
 * lines), sorted, never overlapping, each shown at least `minMs` where the next cue and the end
 * of the media leave room.
 */
export function readableCues(t: TranscriptV2 | TranscriptV1, layout: CueLayout = CUE_LAYOUT): Cue[] {
  const laid = layoutRun(tokensOf(t), layout);
  const raw = laid.map((ts) => ({ start: ts[0]!.startMs / 1000, end: ts.at(-1)!.endMs / 1000, text: joinWords(ts.map((x) => x.text)) }));
  // Sorted and made non-overlapping by the same rules as before; then held to the minimum.
  const cues = normalizeCues(raw);
  // Held, but never past the next cue nor the end of the media (a clip's last cue ends in the clip).
  const mediaEnd = t.duration > 0 ? secondsToMs(t.duration) : Number.POSITIVE_INFINITY;
  return cues.map((c, i) => {
    const nextStart = Math.min(cues[i + 1]?.startMs ?? Number.POSITIVE_INFINITY, mediaEnd);
    const endMs = c.endMs - c.startMs < layout.minMs ? Math.max(c.endMs, Math.min(c.startMs + layout.minMs, nextStart)) : c.endMs;
    return { startMs: c.startMs, endMs, text: wrapCueText(c.text, layout) };
  });
}
