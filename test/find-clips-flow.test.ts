import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentencesOf } from '@cutroom/shared/transcript/sentences';
import { DEFAULT_MODELS_DIR, loadLocalEmbedder } from '@cutroom/render-agent/understanding/embedder';
import { groundText, groundTitle, indexTranscript } from '@cutroom/render-agent/understanding/grounding';
import { makeTopicTalk, TOPIC_TEXTS, type TopicTalk } from './harness/media-gen/topic-talk.ts';
import { makeVideo } from './harness/media.ts';
import { probeStreams } from './harness/probe.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * find_clips end to end on the real stack: a three-topic talk synthesized with espeak-ng (true
 * boundaries known), uploaded as a video, transcribed by the agent's Whisper, analyzed with the
 * local embedding model, the best candidate's texts written by the local text model (LLM_CANDIDATES=1
 * keeps it to one request, 10-40 s on two cores); the clips document validates against the served
 * schema, every candidate is 120-300 s and sentence-snapped, the generated texts are grounded in
 * the candidate, and the best one is cut with extract_clip without a re-upload.
 */
describe('find_clips over REST', () => {
  let stack: Stack;
  let token: string;
  let talk: TopicTalk;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-find-clips-'));
  const video = join(work, 'talk.mp4');

  beforeAll(async () => {
    talk = await makeTopicTalk(work, { topics: TOPIC_TEXTS.slice(0, 3) });
    await makeVideo(talk.wav, video);
    stack = await startStack({ storage: 'local', agents: 0 });
    // One text-model thread: another test file shares the cores (see summarize-flow.test.ts).
    const env = { LOG_LEVEL: 'warn', LLM_CANDIDATES: '1', LLM_THREADS: '1' };
    await stack.startAgent('find-clips-agent', { env });
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('finds sentence-snapped 120-300 s moments near the true topic boundaries, with their transcript, and they can be cut', async () => {
    const { api } = stack;
    const created = await api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'find_clips', filename: 'talk.mp4', content_type: 'video/mp4' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ price_cents: 200, next_endpoint: 'upload-url' });
    const id = await (async () => {
      const up = await api.call('GET', `/api/v1/jobs/${created.body.job_id}/upload-url`, { token });
      const { readFileSync } = await import('node:fs');
      expect((await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(video) })).ok).toBe(true);
      expect((await api.call('POST', `/api/v1/jobs/${created.body.job_id}/complete-upload`, { token })).status).toBe(200);
      return created.body.job_id as string;
    })();
    const stages = new Set<string>();
    const job = await api.waitForJob(
      token,
      id,
      (j) => {
        stages.add(j.status);
        return ['completed', 'failed'].includes(j.status);
      },
      420_000,
    );
    expect(job.status, job.error_message).toBe('completed');
    expect(stages.has('analyzing')).toBe(true);
    expect(Date.parse(job.expires_at) - Date.parse(job.completed_at)).toBe(72 * 3600_000);
    expect(job.outputs.map((o: any) => o.role)).toEqual(['clips', 'transcript']);

    const clips = (await (await fetch(job.outputs[0].download_url)).json()) as any;
    const schema = (await (await fetch(`${stack.coordinator.url}/.well-known/cutroom-clips-v1.schema.json`)).json()) as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(clips), JSON.stringify(validate.errors)).toBe(true);
    expect(clips.mode).toBe('best');
    expect(clips.candidates.length).toBeGreaterThanOrEqual(2);

    // Every candidate starts at a sentence start and ends at a sentence end of the delivered transcript.
    const words = (await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=words`, { token })).body;
    const sentences = sentencesOf(words);
    for (const c of clips.candidates) {
      expect(c.end - c.start).toBeGreaterThanOrEqual(120);
      expect(c.end - c.start).toBeLessThanOrEqual(300);
      expect(sentences.some((s) => Math.abs(s.start - c.start) < 0.001)).toBe(true);
      expect(sentences.some((s) => Math.abs(s.end - c.end) < 0.001)).toBe(true);
      expect(c.score).toBeGreaterThanOrEqual(0);
      expect(c.score).toBeLessThanOrEqual(100);
      expect(c.reason.length).toBeGreaterThan(10);
    }
    // The best candidate's texts came from the local model, and each generated one holds up against
    // the candidate's own sentences (the same check, re-run here); the others are extractive.
    const best0 = clips.candidates[0];
    expect(clips.generator.text_generator).toMatch(/^local:qwen2\.5/);
    expect(Object.values(best0.texts_source)).toContain('generated');
    for (const c of clips.candidates.slice(1)) expect(c.texts_source).toEqual({ title: 'extractive', hook: 'extractive', summary: 'extractive' });
    expect(clips.notes).toContain("titles and summaries of the best 1 candidates are from the text model; hooks and the others' texts are extractive");
    const embedder = await loadLocalEmbedder({ modelsDir: DEFAULT_MODELS_DIR });
    const own = await indexTranscript(
      sentences.slice(best0.first_sentence, best0.last_sentence + 1).map((s) => s.text),
      embedder,
    );
    for (const field of ['title', 'hook'] as const) {
      if (best0.texts_source[field] === 'generated') expect((await groundTitle(best0[field], own, embedder)).isGrounded, best0[field]).toBe(true);
    }
    if (best0.texts_source.summary === 'generated') expect((await groundText(best0.summary, own, embedder, { wholeSpan: true })).dropped).toEqual([]);
    // What grounding refused is on record, each with a reason, and never shipped as a text.
    for (const d of clips.generator.dropped) {
      expect(d.candidate).toBe('c1');
      expect(d.reason.length).toBeGreaterThan(5);
      expect(best0[d.field]).not.toContain(d.text);
    }
    console.info(
      `find_clips c1 texts: ${JSON.stringify({ title: best0.title, hook: best0.hook, summary: best0.summary, source: best0.texts_source, dropped: clips.generator.dropped })}`,
    );

    // Each true boundary has a candidate edge within 20 s.
    const edges = clips.candidates.flatMap((c: any) => [c.start, c.end]);
    for (const b of talk.boundaries) expect(Math.min(...edges.map((e: number) => Math.abs(e - b)))).toBeLessThan(20);

    // No re-upload: cut the best candidate from the find_clips job's stored source.
    const best = clips.candidates[0];
    const cut = await api.call('POST', '/api/v1/jobs', {
      token,
      json: { job_type: 'extract_clip', source_job_id: id, segments: [{ start: best.start, end: best.end }] },
    });
    expect(cut.status, JSON.stringify(cut.body)).toBe(201);
    expect((await api.call('POST', `/api/v1/jobs/${cut.body.job_id}/process`, { token })).status).toBe(200);
    const cutJob = await api.waitForJob(token, cut.body.job_id, undefined, 180_000);
    expect(cutJob.status, cutJob.error_message).toBe('completed');
    const p = await probeStreams(cutJob.outputs.find((o: any) => o.role === 'clip').download_url);
    expect(Math.abs(p.duration - (best.end - best.start))).toBeLessThan(0.2);
    // As long as its own waits allow (420 s for find_clips, 180 s for the cut), like summarize-flow;
    // the tier default (180 s) cut it short when another file shares the cores.
  }, 600_000);
});
