import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SummaryV1 } from '@cutroom/shared/summary/summary-v1';
import { sentencesOf } from '@cutroom/shared/transcript/sentences';
import { DEFAULT_MODELS_DIR, loadLocalEmbedder } from '@cutroom/render-agent/understanding/embedder';
import { groundText, splitSentences } from '@cutroom/render-agent/understanding/grounding';
import { OVERVIEW_MAX_SENTENCES } from '@cutroom/render-agent/understanding/summarize';
import { makeTopicTalk, openingOf, TOPIC_TEXTS, type TopicTalk } from './harness/media-gen/topic-talk.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * summarize end to end on the real stack with the real models: a five-topic talk (the openings of
 * the five TOPIC_TEXTS topics, about 70 s each, 5.7 min in all; espeak-ng, alternating voices, true
 * boundaries known) uploaded as audio, transcribed by the
 * agent's Whisper, chaptered over the local embeddings, written by the local text model
 * (Qwen2.5-Coder-1.5B on llama.cpp, CPU: one request per chapter; the overview composed of them), every
 * generated sentence checked against the transcript. The summary must name most topics, stay
 * short, start chapters near the true boundaries, and hold only extractive or grounded text
 * (re-checked here with the same rule).
 */

/** Words that name each topic of TOPIC_TEXTS, in order. */
const TOPIC_WORDS: readonly RegExp[] = [
  /\b(bees?|beekeep\w*|hives?|honey)\b/i,
  /\b(bicycles?|bikes?|cycling|wheels?|velocipede|penny farthing)\b/i,
  /\b(sourdough|dough|bread|loaf|starter|bak\w+)\b/i,
  /\b(solar|panels?|photovoltaic|silicon|inverters?)\b/i,
  /\b(chess|openings?|gambits?|pawns?|sicilian)\b/i,
];
/** A true topic boundary is found when a chapter starts within this many seconds of it. */
const NEAR_SECONDS = 20;

describe('summarize over REST', () => {
  let stack: Stack;
  let token: string;
  let talk: TopicTalk;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-summarize-'));

  beforeAll(async () => {
    // Each topic's first 13 sentences: the text model's time goes by chapter, not by minute (a
    // chapter request reads at most KEY_CHARS of it), so the whole 12.8-min talk cost 2.2 times the
    // transcription and more chapters split off by the segmentation, and tested nothing more.
    talk = await makeTopicTalk(work, { topics: TOPIC_TEXTS.map((t) => openingOf(t, 13)) });
    stack = await startStack({ storage: 'local', agents: 0 });
    // The default text-model budget (LLM_SUMMARY_CALLS 12) covers every chapter of this talk. One
    // thread: another test file shares the two cores, and llama.cpp's threads spin-wait on each
    // other when a core is taken (two threads then run several times slower than one).
    await stack.startAgent('summarize-agent', { env: { LOG_LEVEL: 'warn', LLM_CANDIDATES: '3', LLM_SUMMARY_CALLS: '12', LLM_THREADS: '1' } });
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('summarizes a five-topic talk: chapters near the true boundaries, most topics named, a short overview, only extractive or grounded text', async () => {
    const { api } = stack;
    const created = await api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'summarize', filename: 'talk.wav', content_type: 'audio/wav' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ price_cents: 75, next_endpoint: 'upload-url' });
    const id = created.body.job_id as string;
    const up = await api.call('GET', `/api/v1/jobs/${id}/upload-url`, { token });
    expect((await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: readFileSync(talk.wav) })).ok).toBe(true);
    expect((await api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token })).status).toBe(200);

    const stages = new Set<string>();
    const started = Date.now();
    const job = await api.waitForJob(
      token,
      id,
      (j) => {
        stages.add(j.status);
        return ['completed', 'failed'].includes(j.status);
      },
      1_500_000,
    );
    expect(job.status, job.error_message).toBe('completed');
    expect([...stages]).toEqual(expect.arrayContaining(['transcribing', 'analyzing']));
    expect(Date.parse(job.expires_at) - Date.parse(job.completed_at)).toBe(24 * 3600_000);
    expect(job.outputs.map((o: any) => o.role)).toEqual(['summary', 'transcript']);

    const summary = (await (await fetch(job.outputs[0].download_url)).json()) as SummaryV1;
    const schema = (await (await fetch(`${stack.coordinator.url}/.well-known/cutroom-summary-v1.schema.json`)).json()) as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(summary), JSON.stringify(validate.errors)).toBe(true);
    console.info(
      `summarize: ${((Date.now() - started) / 1000).toFixed(0)} s for ${talk.duration.toFixed(0)} s of talk; true boundaries ${talk.boundaries.map((b) => b.toFixed(1)).join(', ')}\n${JSON.stringify(summary, null, 2)}`,
    );

    // The local text model wrote some of it, and what it wrote that the transcript does not say was dropped.
    expect(summary.generator.text_generator).toMatch(/^local:qwen2\.5/);
    const sources = [
      summary.overview_source,
      ...summary.key_points.map((k) => k.source),
      ...summary.chapters.flatMap((c) => [c.title_source, c.summary_source]),
    ];
    expect(sources).toContain('generated');

    // Most topics are named by the key points and chapter titles.
    const named = TOPIC_WORDS.filter((w) => [...summary.key_points.map((k) => k.text), ...summary.chapters.map((c) => c.title)].some((t) => w.test(t)));
    expect(named.length, `topics named: ${named.join(', ')}`).toBeGreaterThanOrEqual(4);

    // Short: an overview of a sentence a chapter (at most five), 3-8 key points, one chapter per topic or a few more.
    expect(summary.overview.length).toBeGreaterThan(40);
    expect(summary.overview.length).toBeLessThanOrEqual(1200);
    expect(splitSentences(summary.overview).length).toBeLessThanOrEqual(OVERVIEW_MAX_SENTENCES);
    // The overview speaks of the whole talk, not of its first parts only (a requested overview named 2 of 5 topics).
    const inOverview = TOPIC_WORDS.filter((w) => w.test(summary.overview));
    expect(inOverview.length, `topics in the overview: ${inOverview.join(', ')}`).toBeGreaterThanOrEqual(4);
    expect(summary.key_points.length).toBeGreaterThanOrEqual(3);
    expect(summary.key_points.length).toBeLessThanOrEqual(8);
    expect(summary.chapters.length).toBeGreaterThanOrEqual(4);
    expect(summary.chapters.length).toBeLessThanOrEqual(10);

    // Every true boundary has a chapter starting near it.
    for (const b of talk.boundaries) expect(Math.min(...summary.chapters.map((c) => Math.abs(c.start - b))), `boundary ${b}`).toBeLessThan(NEAR_SECONDS);

    // Every text is the transcript's own words, or generated and supported by the transcript (the same check, re-run here).
    const words = (await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=words`, { token })).body;
    const sentences = sentencesOf(words).map((s) => s.text);
    const transcriptText = sentences.join(' ');
    const embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
    const expectGrounded = async (text: string, against: string[], what: string) => {
      const g = await groundText(text, against, embedder, { wholeSpan: true });
      expect(g.dropped, `${what}: ${text}`).toEqual([]);
    };
    for (const k of summary.key_points) {
      expect(k.evidence.last_sentence).toBeLessThan(sentences.length);
      if (k.source === 'extractive') expect(sentences).toContain(k.text);
      else {
        // A generated key point is a chapter's summary sentence: its evidence lies in that chapter, and
        // it is grounded against the chapter as production judged it (a name may be said sentences
        // before the passage that supports the claim, so its evidence alone need not hold the name).
        const ch = summary.chapters.find((c) => c.first_sentence <= k.evidence.first_sentence && k.evidence.last_sentence <= c.last_sentence);
        expect(ch, `key point ${k.text}: its evidence lies in one chapter`).toBeDefined();
        await expectGrounded(k.text, sentences.slice(ch!.first_sentence, ch!.last_sentence + 1), 'key point');
      }
    }
    // The overview is composed of chapter summary sentences (checked below) and transcript sentences.
    const chapterSentences = summary.chapters.flatMap((c) => splitSentences(c.summary));
    for (const s of splitSentences(summary.overview)) expect(chapterSentences.includes(s) || transcriptText.includes(s), `overview: ${s}`).toBe(true);
    for (const c of summary.chapters) {
      const own = sentences.slice(c.first_sentence, c.last_sentence + 1);
      if (c.summary_source === 'extractive') for (const s of splitSentences(c.summary)) expect(own.join(' ')).toContain(s);
      else await expectGrounded(c.summary, own, `chapter ${c.index} summary`);
      if (c.title_source === 'extractive') expect(own.join(' ').toLowerCase()).toContain(c.title.toLowerCase());
    }
  }, 1_600_000);
});
