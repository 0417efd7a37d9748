import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import type { ClipsV1 } from '../../shared/src/clips/clips-v1.ts';
import type { SummaryV1 } from '../../shared/src/summary/summary-v1.ts';
import { TranscriptV2 } from '../../shared/src/transcript/transcript-v2.ts';
import { transcribeWithWhisper } from '../../render-agent/src/executors/whisper.ts';
import { candidateTexts } from '../../render-agent/src/understanding/candidate-texts.ts';
import type { Embedder } from '../../render-agent/src/understanding/embedder.ts';
import { findClips } from '../../render-agent/src/understanding/find-clips.ts';
import { summarize } from '../../render-agent/src/understanding/summarize.ts';
import { loadLocalGenerator, type TextGenerator } from '../../render-agent/src/understanding/text-generator.ts';
import { makeTopicTalk } from '../../test/harness/media-gen/topic-talk.ts';
import {
  type Claim,
  conveys,
  crossesBoundary,
  isOrphaned,
  judgeSentence,
  type SentenceVerdict,
  scoreBoundaries,
  sentencesOfText,
  unsureWordsIn,
} from './understanding-score.ts';
import type { EvalTalk } from './understanding-set.ts';
import { MACHINE_CACHE, recognizerVersions } from '../../test/harness/transcript-cache.ts';

/**
 * One run of the understanding evaluation: every talk of the set through summarize and find_clips
 * (the agent's own code, in process) with one text model, scored by understanding-score.ts. The
 * talks' audio and their tiny.en transcripts are made once per machine and kept in the set-up cache
 * (`$CUTROOM_CACHE/eval-understanding`, keyed by their text, voices and the recognizer's versions:
 * test/harness/transcript-cache.ts), so models are compared on the same transcripts and a clean
 * clone's test slice does not transcribe again.
 */

const root = resolve(import.meta.dirname, '../..');
const cacheDir = join(MACHINE_CACHE, 'eval-understanding');

export interface PreparedTalk {
  talk: EvalTalk;
  transcript: TranscriptV2;
  boundaries: number[];
  duration: number;
  /** The talk as written and as transcribed. */
  script: string;
  claims: (Claim & { topic: number })[];
}

/** The talk's transcript (tiny.en through the agent's runner), made once and cached. */
export async function prepareTalk(talk: EvalTalk, onStep: (what: string) => void = () => {}): Promise<PreparedTalk> {
  const key = createHash('sha256')
    .update(JSON.stringify([talk.topics.map((t) => [t.voice, t.text]), recognizerVersions()]))
    .digest('hex')
    .slice(0, 16);
  const file = join(cacheDir, `${talk.name}-${key}.json`);
  mkdirSync(cacheDir, { recursive: true });
  let cached: { transcript: unknown; boundaries: number[]; duration: number };
  if (existsSync(file)) cached = JSON.parse(readFileSync(file, 'utf8'));
  else {
    onStep(`synthesizing and transcribing ${talk.name} (once; cached in ${cacheDir})`);
    const made = await makeTopicTalk(join(cacheDir, talk.name), { topics: talk.topics, name: `${key}.wav` });
    const transcript = await transcribeWithWhisper({
      python: join(root, '.venv', 'bin', 'python'),
      audioPath: made.wav,
      model: 'tiny.en',
      device: 'cpu',
      computeType: 'int8',
      beamSize: 5,
      language: null,
      allowDownload: false,
      signal: new AbortController().signal,
    });
    cached = { transcript, boundaries: made.boundaries, duration: made.duration };
    writeFileSync(file, JSON.stringify(cached));
  }
  return {
    talk,
    transcript: TranscriptV2.parse(cached.transcript),
    boundaries: cached.boundaries,
    duration: cached.duration,
    // What was said and what was heard: a text that repeats a recognition error is faithful to the transcript it was given.
    script: [...talk.topics.map((t) => t.text), ...TranscriptV2.parse(cached.transcript).segments.map((s) => s.text)].join(' '),
    claims: talk.topics.flatMap((t, topic) => t.claims.map((c) => ({ ...c, topic }))),
  };
}

export interface TalkResult {
  talk: string;
  minutes: number;
  summary: {
    seconds: number;
    /** Share of topics the overview and key points cover. */
    topicCoverage: number;
    /** Share of reference claims the whole summary (overview, key points, chapters) conveys. */
    claimCoverage: number;
    generated: SentenceVerdict[];
    boundaries: ReturnType<typeof scoreBoundaries>;
    chapters: number;
    orphaned: string[];
    doc: SummaryV1;
  };
  clips: {
    seconds: number;
    generationSeconds: number;
    generatedCandidates: number;
    crossing: number;
    candidates: number;
    generated: SentenceVerdict[];
    orphaned: string[];
    unsure: string[];
    doc: ClipsV1;
  } | null;
}

/** Summarize and find_clips on one prepared talk with one generator (null: extractive only). */
export async function evaluateTalk(p: PreparedTalk, embedder: Embedder, generator: TextGenerator | null, o: { clips?: boolean } = {}): Promise<TalkResult> {
  const minutes = p.duration / 60;
  let t = performance.now();
  const doc = await summarize({ transcript: p.transcript, embedder, generator });
  const summarySeconds = (performance.now() - t) / 1000;
  const whole = [doc.overview, ...doc.key_points.map((k) => k.text)].join(' ');
  const everything = [whole, ...doc.chapters.flatMap((c) => [c.title, c.summary])].join(' ');
  const generatedTexts = [
    ...(doc.overview_source === 'generated' ? [doc.overview] : []),
    ...doc.key_points.filter((k) => k.source === 'generated').map((k) => k.text),
    ...doc.chapters.filter((c) => c.summary_source === 'generated').map((c) => c.summary),
  ];
  const judge = (texts: string[]) => texts.flatMap(sentencesOfText).map((s) => judgeSentence(s, p.script, p.claims));
  const topics = p.talk.topics.map((_, i) => p.claims.filter((c) => c.topic === i));
  const summary = {
    seconds: summarySeconds,
    topicCoverage: topics.filter((cs) => cs.some((c) => conveys(c, whole))).length / topics.length,
    claimCoverage: p.claims.filter((c) => conveys(c, everything)).length / p.claims.length,
    generated: judge(generatedTexts),
    boundaries: scoreBoundaries(
      p.boundaries,
      doc.chapters.map((c) => c.start),
    ),
    chapters: doc.chapters.length,
    orphaned: [doc.overview, ...doc.key_points.map((k) => k.text), ...doc.chapters.flatMap((c) => [c.title, c.summary])].filter(isOrphaned),
    doc,
  };
  if (o.clips === false) return { talk: p.talk.name, minutes, summary, clips: null };

  t = performance.now();
  const generate = generator ? candidateTexts({ generator, embedder, top: 3, language: p.transcript.language }) : null;
  const clipsDoc = await findClips({
    transcript: p.transcript,
    embedder,
    ...(generate && generator ? { generate, generatorId: generator.id } : {}),
  });
  const clipsSeconds = (performance.now() - t) / 1000;
  const words = p.transcript.segments.flatMap((s) => s.words ?? []);
  const generatedClipTexts = clipsDoc.candidates.flatMap((c) => [
    ...(c.texts_source.hook === 'generated' ? [c.hook] : []),
    ...(c.texts_source.summary === 'generated' ? [c.summary] : []),
  ]);
  const titlesAndHooks = clipsDoc.candidates.flatMap((c) => [c.title, c.hook]);
  return {
    talk: p.talk.name,
    minutes,
    summary,
    clips: {
      seconds: clipsSeconds,
      generationSeconds: clipsDoc.generator.timings_ms.generation / 1000,
      generatedCandidates: clipsDoc.candidates.filter((c) => Object.values(c.texts_source).includes('generated')).length,
      crossing: clipsDoc.candidates.filter((c) => crossesBoundary(c.start, c.end, p.boundaries)).length,
      candidates: clipsDoc.candidates.length,
      generated: judge(generatedClipTexts),
      orphaned: [...titlesAndHooks, ...clipsDoc.candidates.map((c) => c.summary)].filter(isOrphaned),
      unsure: titlesAndHooks.flatMap((t) => unsureWordsIn(t, words)),
      doc: clipsDoc,
    },
  };
}

/** The local GGUF model at `path` with every core, as the agent opens it (or `threads`: the test slice shares the cores). */
export const openModel = (path: string, threads = availableParallelism()): Promise<TextGenerator> => loadLocalGenerator({ modelPath: path, threads });
