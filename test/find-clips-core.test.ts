import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClipsV1 } from '@cutroom/shared/clips/clips-v1';
import { sentencesOf } from '@cutroom/shared/transcript/sentences';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { DEFAULT_MODELS_DIR, type Embedder, loadLocalEmbedder } from '@cutroom/render-agent/understanding/embedder';
import { findClips } from '@cutroom/render-agent/understanding/find-clips';
import { transcribeWithWhisper } from '@cutroom/render-agent/executors/whisper';
import { cachedTranscription } from './harness/transcript-cache.ts';
import { makeTopicTalk, SHORT_TEXT, type TopicTalk } from './harness/media-gen/topic-talk.ts';

/**
 * find_clips' analysis on real speech with the real models, no stack: a 12.8-minute talk of five
 * distinct topics read by espeak-ng in alternating voices (true boundaries known from how it was
 * built), transcribed by the project's faster-whisper (tiny.en, CPU, int8, beam 5 like the agent's
 * default: about 60-90 s on two cores, once per machine: the transcript is kept in the set-up cache,
 * keyed by the audio's bytes and the recognizer's versions, harness/transcript-cache.ts), embedded
 * with the local all-MiniLM-L6-v2. The audio is synthesized per run in a temporary folder. Each candidate is checked against the true topics, not only the ones found.
 */

/** A true boundary counts as found when a candidate starts or ends within this many seconds of it. */
const NEAR_SECONDS = 20;
/** Share of true boundaries that must be found. */
const FOUND_SHARE = 0.7;

const PYTHON = path.resolve(import.meta.dirname, '..', '.venv', 'bin', 'python');

let dir: string;
let talk: TopicTalk;
let transcript: TranscriptV2;
let shortTranscript: TranscriptV2;
let embedder: Embedder;

const WHISPER = { model: 'tiny.en', device: 'cpu', computeType: 'int8', beamSize: 5, language: null } as const;
/** The talk's transcript: made once per machine for this audio and recognizer (harness/transcript-cache.ts). */
const transcribe = (audioPath: string) =>
  cachedTranscription({ audio: audioPath }, WHISPER, () =>
    transcribeWithWhisper({ python: PYTHON, audioPath, ...WHISPER, allowDownload: false, signal: new AbortController().signal }),
  );

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'find-clips-core-'));
  const started = performance.now();
  talk = await makeTopicTalk(dir);
  // Read at 120 words a minute: about 19 s of speech, clear of the shortest clip (15 s) either way Whisper times it.
  const short = await makeTopicTalk(dir, { topics: [SHORT_TEXT], name: 'short.wav', wordsPerMinute: 120 });
  const synthesized = performance.now();
  shortTranscript = await transcribe(short.wav);
  transcript = await transcribe(talk.wav);
  const transcribed = performance.now();
  embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
  console.log(
    `talk ${talk.duration.toFixed(1)} s (${talk.topics.map((t) => `${t.name} ${t.start.toFixed(1)}-${t.end.toFixed(1)}`).join(', ')}); ` +
      `synthesis ${Math.round(synthesized - started)} ms, transcription ${Math.round(transcribed - synthesized)} ms, embedder load ${Math.round(performance.now() - transcribed)} ms`,
  );
});

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

/** Share of a candidate's time inside a topic. */
const shareInside = (c: { start: number; end: number }, t: { start: number; end: number }) =>
  Math.max(0, Math.min(c.end, t.end) - Math.max(c.start, t.start)) / (c.end - c.start);

/**
 * Every candidate is whole sentences of the transcript, `min`-`max` s long (120-300 s: the
 * default, every topic of this talk lasting 148-160 s), and lies in one true topic: at most a
 * sentence or two of a neighbour (a boundary placed a sentence off by Whisper's timing), never
 * the tail of one and the head of the next.
 */
function expectSnapped(doc: ClipsV1, min = 120, max = 300) {
  const sentences = sentencesOf(transcript);
  const starts = new Set(sentences.map((s) => s.start));
  const ends = new Set(sentences.map((s) => s.end));
  for (const c of doc.candidates) {
    expect(starts.has(c.start) && c.start === sentences[c.first_sentence]!.start).toBe(true);
    expect(ends.has(c.end) && c.end === sentences[c.last_sentence]!.end).toBe(true);
    expect(c.end - c.start).toBeGreaterThanOrEqual(min);
    expect(c.end - c.start).toBeLessThanOrEqual(max);
    const inside = Math.max(...talk.topics.map((t) => shareInside(c, t)));
    expect(inside * (c.end - c.start), `${c.id} ${c.start}-${c.end}: ${Math.round(100 * inside)} % in one topic`).toBeGreaterThanOrEqual(c.end - c.start - 12);
  }
}

describe('find_clips core on a synthesized five-topic talk (real Whisper, real embeddings)', () => {
  it('best mode: candidates are sentence-snapped, 120-300 s, with edges near the true topic boundaries', async () => {
    const doc = await findClips({ transcript, embedder });
    expect(ClipsV1.safeParse(doc).success).toBe(true);
    expect(doc.target).toEqual({ requested: null, min_seconds: 120, max_seconds: 300 });
    console.log(`timings ms ${JSON.stringify(doc.generator.timings_ms)}; segmentation boundaries ${doc.generator.segmentation.boundaries.join(', ')}`);
    console.log(`true boundaries ${talk.boundaries.map((b) => b.toFixed(1)).join(', ')}`);
    for (const c of doc.candidates) {
      const topic = talk.topics.reduce((best, t) => (shareInside(c, t) > shareInside(c, best) ? t : best));
      console.log(
        `${c.id} ${c.start.toFixed(1)}-${c.end.toFixed(1)} (${c.duration.toFixed(0)} s) score ${c.score} [${topic.name} ${Math.round(100 * shareInside(c, topic))} %] “${c.title}”\n   ${c.reason}`,
      );
    }
    expect(doc.candidates.length).toBeGreaterThanOrEqual(4);
    expectSnapped(doc);
    const edges = doc.candidates.flatMap((c) => [c.start, c.end]);
    const found = talk.boundaries.filter((b) => edges.some((e) => Math.abs(e - b) <= NEAR_SECONDS));
    console.log(`true boundaries with a candidate edge within ${NEAR_SECONDS} s: ${found.length}/${talk.boundaries.length}`);
    expect(found.length / talk.boundaries.length).toBeGreaterThanOrEqual(FOUND_SHARE);
    // Most topics give a candidate lying mostly inside them.
    const covered = talk.topics.filter((t) => doc.candidates.some((c) => shareInside(c, t) >= 0.6));
    expect(covered.length).toBeGreaterThanOrEqual(4);
  });

  it.each([
    ['sourdough baking', 'how do you bake bread with a sourdough starter'],
    ['solar panels', 'turning sunlight into electricity'],
  ])('query mode: a query about %s returns a top candidate mostly inside that topic', async (name, query) => {
    const doc = await findClips({ transcript, embedder, query });
    const topic = talk.topics.find((t) => t.name === name)!;
    expect(doc.mode).toBe('query');
    expect(doc.candidates.length).toBeGreaterThan(0);
    expectSnapped(doc);
    const top = doc.candidates[0]!;
    console.log(
      `query “${query}”: ${top.start.toFixed(1)}-${top.end.toFixed(1)} match ${top.match?.score}, ${Math.round(100 * shareInside(top, topic))} % inside ${name}; ${top.match?.why}`,
    );
    expect(shareInside(top, topic)).toBeGreaterThanOrEqual(0.6);
    expect(top.match!.why.length).toBeGreaterThan(0);
  });

  it('target short: 15-60 s candidates inside the topics, every topic offered', async () => {
    const doc = await findClips({ transcript, embedder, target: 'short' });
    expect(doc.target).toEqual({ requested: 'short', min_seconds: 15, max_seconds: 60 });
    for (const c of doc.candidates)
      console.log(`short ${c.id} ${c.start.toFixed(1)}-${c.end.toFixed(1)} (${c.duration.toFixed(0)} s) score ${c.score} “${c.title}”`);
    expectSnapped(doc, 15, 60);
    const offered = talk.topics.filter((t) => doc.candidates.some((c) => shareInside(c, t) >= 0.8));
    expect(offered.length).toBe(talk.topics.length);
  });

  it('a recording shorter than a 2-minute clip: the default fits its own topic, target long has none and says why', async () => {
    expect(shortTranscript.duration).toBeLessThan(120);
    const doc = await findClips({ transcript: shortTranscript, embedder });
    // About 19 s of speech, one topic: one candidate, the whole of it.
    const sentences = sentencesOf(shortTranscript);
    expect(doc.target).toEqual({ requested: null, min_seconds: 15, max_seconds: 300 });
    expect(doc.candidates).toHaveLength(1);
    expect(doc.candidates[0]).toMatchObject({ first_sentence: 0, last_sentence: sentences.length - 1 });
    expect(doc.notes[0]).toMatch(/^no topic lasts 120 s, the shortest default clip/);
    const long = await findClips({ transcript: shortTranscript, embedder, target: 'long' });
    expect(long.candidates).toEqual([]);
    expect(long.notes).toEqual([expect.stringMatching(/^the recording is \d+ s long with \d+ s of speech: shorter than a 120 s clip; no candidates$/)]);
    console.log(`short recording: ${doc.candidates[0]!.duration} s candidate; with target long: ${long.notes[0]}`);
  });
});
