import { readFileSync } from 'node:fs';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompleteRequest, MediaInfo } from '@cutroom/proto';
import { completeAttempt, reportStage } from '../agents/attempts.ts';
import { claimJob } from '../agents/claim.ts';
import type { Ctx } from '../context.ts';
import { metricsRoutes } from '../http/routes/metrics.ts';
import { addAgent, createEngineCtx, type EngineCtx, queueTranscribeJob } from '../testing/engine-ctx.ts';
import { installHttpMetrics } from './http.ts';
import { type Exposition, exposedNames, parsePromText, promqlMetricNames, samplesOf } from './prom-text.ts';

const dashboardPath = new URL('../../../deploy/grafana/cutroom-dashboard.json', import.meta.url);

/** The /metrics route and the HTTP hook on a bare fastify app over the engine context (the embedded default: served on loopback without a token). */
async function metricsApp(ctx: Ctx, listener: 'public' | 'agent' = 'public'): Promise<FastifyInstance> {
  const app = Fastify();
  installHttpMetrics(app, ctx);
  app.get('/api/v1/jobs/:id', async () => ({ ok: true }));
  await app.register(metricsRoutes, { ctx, listener });
  return app;
}

describe('GET /metrics (PGlite, manual clock)', () => {
  let ctx: EngineCtx;
  let app: FastifyInstance;
  beforeAll(async () => {
    ctx = await createEngineCtx();
    app = await metricsApp(ctx);
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await ctx?.close();
  });

  const scrape = async (): Promise<Exposition> => {
    const res = await app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePromText(res.body);
  };
  const value = (e: Exposition, name: string, labels: Record<string, string> = {}) => {
    const found = samplesOf(e, name, labels);
    expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
    return found[0]!.value;
  };

  it('shows queues, agents and jobs from Postgres, then the completion’s stage times and Whisper speed', async () => {
    await addAgent(ctx, 'agent-1', ['transcribe']);
    const { jobId } = await queueTranscribeJob(ctx);
    ctx.clock.advance(7_000);
    await app.inject({ method: 'GET', url: `/api/v1/jobs/${jobId}` });

    const before = await scrape();
    expect(value(before, 'cutroom_metrics_db_up')).toBe(1);
    expect(value(before, 'cutroom_queued_jobs', { kind: 'transcribe' })).toBe(1);
    expect(value(before, 'cutroom_queued_jobs', { kind: 'cut' })).toBe(0);
    expect(value(before, 'cutroom_queue_oldest_age_seconds', { kind: 'transcribe' })).toBe(7);
    expect(value(before, 'cutroom_agents', { state: 'online' })).toBe(1);
    expect(value(before, 'cutroom_agents', { state: 'offline' })).toBe(0);
    expect(value(before, 'cutroom_jobs', { job_type: 'transcribe', status: 'extracting_audio' })).toBe(1);
    expect(value(before, 'cutroom_jobs_created_total', { job_type: 'transcribe' })).toBe(1);
    expect(value(before, 'cutroom_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/jobs/:id', status_class: '2xx' })).toBe(1);
    expect(before.types.get('cutroom_process_cpu_seconds_total')).toBe('counter');
    expect(samplesOf(before, 'cutroom_build_info')).toHaveLength(1);

    const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: 'agent-1' });
    if (!r.claimed) throw new Error(r.reason);
    const fence = { v: 1 as const, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: 'agent-1' };
    ctx.clock.advance(3_000);
    const media: MediaInfo = { duration_seconds: 5.4, has_audio: true, has_video: false, format_name: 'wav' };
    await reportStage(ctx, { ...fence, stage: 'transcribing', media });
    ctx.clock.advance(10_000);
    const dir = `jobs/${jobId}/outputs/${fence.attempt_id}`;
    await ctx.blobs.put(`${dir}/transcript_srt`, '1\n00:00:00,000 --> 00:00:01,000\nhi\n', 'application/x-subrip');
    await ctx.blobs.put(`${dir}/transcript_words`, JSON.stringify({ version: 2, language: 'en', duration: 5.4, segments: [] }), 'application/json');
    const done: CompleteRequest = {
      ...fence,
      job_type: 'transcribe',
      media,
      language: 'en',
      outputs: [],
      stats: { transcription: { model: 'tiny.en', device: 'cpu', compute_type: 'int8', media_seconds: 5.4, wall_seconds: 2.7 } },
    };
    await completeAttempt(ctx, done);
    await completeAttempt(ctx, done); // a retried complete is not observed twice

    const after = await scrape();
    expect(value(after, 'cutroom_jobs_finished_total', { job_type: 'transcribe', outcome: 'completed' })).toBe(1);
    expect(value(after, 'cutroom_queued_jobs', { kind: 'transcribe' })).toBe(0);
    expect(value(after, 'cutroom_queue_oldest_age_seconds', { kind: 'transcribe' })).toBe(0);
    const rtf = { model: 'tiny.en', device: 'cpu' };
    expect(value(after, 'cutroom_transcription_realtime_ratio_count', rtf)).toBe(1);
    expect(value(after, 'cutroom_transcription_realtime_ratio_sum', rtf)).toBeCloseTo(2, 6);
    expect(value(after, 'cutroom_transcription_realtime_ratio_bucket', { ...rtf, le: '2' })).toBe(1);
    expect(value(after, 'cutroom_transcription_media_seconds_total', rtf)).toBeCloseTo(5.4, 6);
    const stage = (s: string) => value(after, 'cutroom_job_stage_duration_seconds_sum', { job_type: 'transcribe', stage: s });
    expect([stage('queued'), stage('extracting_audio'), stage('transcribing')]).toEqual([7, 3, 10]);
  });

  it('drops malformed stats instead of refusing the result', async () => {
    const { CompleteRequest } = await import('@cutroom/proto');
    const base = {
      v: 1,
      job_id: crypto.randomUUID(),
      attempt_id: crypto.randomUUID(),
      agent_id: 'a',
      job_type: 'transcribe',
      media: { duration_seconds: 1, has_audio: true, has_video: false, format_name: 'wav' },
      language: 'en',
      outputs: [],
    };
    const parsed = CompleteRequest.parse({ ...base, stats: { transcription: { model: 'm', device: 'cpu', media_seconds: -1, wall_seconds: 1 } } });
    expect(parsed.stats).toBeUndefined();
    expect(CompleteRequest.parse({ ...base, stats: { encode: { encoder: 'libx264', frames: 10, wall_seconds: 1 } } }).stats).toEqual({
      encode: { encoder: 'libx264', frames: 10, wall_seconds: 1 },
    });
  });

  it('has a Grafana dashboard whose every PromQL expression reads a metric /metrics exposes', async () => {
    const dashboard = JSON.parse(readFileSync(dashboardPath, 'utf8'));
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }));
    const names = exposedNames(await scrape());
    const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
    expect(exprs.length).toBeGreaterThan(20);
    for (const expr of exprs) {
      const used = promqlMetricNames(expr);
      expect(used.length, expr).toBeGreaterThan(0);
      for (const n of used) expect(names.has(n), `${n} in ${expr}`).toBe(true);
      // rate()/increase() only over counters and histogram series; histogram_quantile only over buckets.
      for (const m of expr.matchAll(/(?:rate|increase)\((cutroom_[a-z0-9_]+)/g)) expect(m[1], expr).toMatch(/_total$|_bucket$|_count$|_sum$/);
      for (const m of expr.matchAll(/histogram_quantile\([^,]+,[\s\S]*?(cutroom_[a-z0-9_]+)/g)) expect(m[1], expr).toMatch(/_bucket$/);
    }
    // Grafana's variable syntax, not a template literal: every panel reads the chosen Prometheus.
    const chosen = { type: 'prometheus', uid: '$' + '{datasource}' };
    for (const p of dashboard.panels.filter((p: any) => p.type !== 'row')) expect(p.datasource).toEqual(chosen);
  });

  it('asks for METRICS_TOKEN when one is set, and is absent where the rule says off', async () => {
    const withToken: Ctx = { ...ctx, config: { ...ctx.config, METRICS_TOKEN: 'metrics-token-0123456789' } };
    const guarded = await metricsApp(withToken);
    try {
      const none = await guarded.inject({ method: 'GET', url: '/metrics' });
      expect(none.statusCode).toBe(401);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const wrong = await guarded.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456780' } });
      expect(wrong.statusCode).toBe(401);
      const right = await guarded.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789' } });
      expect(right.statusCode).toBe(200);
    } finally {
      await guarded.close();
    }
    const production: Ctx = { ...ctx, config: { ...ctx.config, DATABASE_URL: 'postgres://db/cutroom' } };
    const closed = await metricsApp(production);
    const agentSide = await metricsApp(production, 'agent');
    try {
      expect((await closed.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404);
      expect((await agentSide.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
    } finally {
      await closed.close();
      await agentSide.close();
    }
  });
});
