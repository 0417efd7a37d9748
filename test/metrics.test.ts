import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Exposition, exposedNames, parsePromText, promqlMetricNames, samplesOf } from '../coordinator/src/metrics/prom-text.ts';
import { concatWavs, librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

const METRICS_TOKEN = 'test-metrics-token-0123456789';
const dashboardPath = new URL('../deploy/grafana/cutroom-dashboard.json', import.meta.url);

/**
 * GET /metrics on the real stack (Postgres, JetStream, local-disk blobs, one render-agent with
 * ffmpeg and faster-whisper): one transcribe job of real speech, then a scrape read with the
 * text-format reader, and the Grafana dashboard checked against what the scrape exposes.
 */
describe('metrics on a real stack', () => {
  let stack: Stack;
  let token: string;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-metrics-'));
  const speech = join(work, 'speech.wav');

  beforeAll(async () => {
    await concatWavs(
      librivoxUtterances()
        .slice(0, 2)
        .map((u) => u.file),
      speech,
    );
    stack = await startStack({ storage: 'local', agents: 1, env: { METRICS_TOKEN } });
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const scrape = async (): Promise<{ text: string; contentType: string | null; e: Exposition }> => {
    const res = await fetch(`${stack.coordinator.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    return { text, contentType: res.headers.get('content-type'), e: parsePromText(text) };
  };
  const one = (e: Exposition, name: string, labels: Record<string, string> = {}) => {
    const found = samplesOf(e, name, labels);
    expect(found, `${name} ${JSON.stringify(labels)}`).toHaveLength(1);
    return found[0]!.value;
  };

  it('counts a transcribe job, its queue, the agent, the Whisper speed and the HTTP calls', async () => {
    const id = await stack.api.submitTranscribe(token, speech, 'two lines.wav', 'audio/wav');
    const job = await stack.api.waitForJob(token, id);
    expect(job.status, job.error_message).toBe('completed');

    const { contentType, e } = await scrape();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(one(e, 'cutroom_metrics_db_up')).toBe(1);

    // Jobs by type and outcome (Postgres at scrape time).
    expect(one(e, 'cutroom_jobs_finished_total', { job_type: 'transcribe', outcome: 'completed' })).toBe(1);
    expect(one(e, 'cutroom_jobs_created_total', { job_type: 'transcribe' })).toBe(1);
    expect(one(e, 'cutroom_jobs', { job_type: 'transcribe', status: 'completed' })).toBe(1);
    expect(e.types.get('cutroom_jobs_finished_total')).toBe('counter');

    // Queues: every work kind, empty now.
    for (const kind of ['transcribe', 'cut', 'understand']) {
      expect(one(e, 'cutroom_queued_jobs', { kind })).toBe(0);
      expect(one(e, 'cutroom_queue_oldest_age_seconds', { kind })).toBe(0);
    }

    // Agents by state: the one agent is live and idle.
    expect(one(e, 'cutroom_agents', { state: 'online' })).toBe(1);
    expect(one(e, 'cutroom_agents', { state: 'offline' })).toBe(0);

    // Whisper speed from the agent's completion stats, labelled by model and device.
    const rtf = samplesOf(e, 'cutroom_transcription_realtime_ratio_count');
    expect(rtf).toHaveLength(1);
    expect(rtf[0]!.labels['model']).toBe('tiny.en');
    expect(['cpu', 'cuda']).toContain(rtf[0]!.labels['device']);
    expect(rtf[0]!.value).toBe(1);
    const ratio = one(e, 'cutroom_transcription_realtime_ratio_sum', rtf[0]!.labels);
    expect(ratio).toBeGreaterThan(0);
    const media = one(e, 'cutroom_transcription_media_seconds_total', rtf[0]!.labels);
    expect(media).toBeCloseTo(job.duration_seconds, 0);

    // Time in each stage of the completed job, once.
    for (const stage of ['queued', 'extracting_audio', 'transcribing']) {
      expect(one(e, 'cutroom_job_stage_duration_seconds_count', { job_type: 'transcribe', stage })).toBe(1);
    }

    // HTTP latency by route pattern (the job polls), never by raw URL.
    const polls = samplesOf(e, 'cutroom_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/jobs/:id', status_class: '2xx' });
    expect(polls).toHaveLength(1);
    expect(polls[0]!.value).toBeGreaterThanOrEqual(1);
    expect(samplesOf(e, 'cutroom_http_request_duration_seconds_bucket', { route: '/api/v1/jobs/:id', le: '+Inf' }).length).toBeGreaterThan(0);
    expect(e.samples.some((s) => s.labels['route']?.includes(id))).toBe(false);

    // The default process metrics, prefixed.
    expect(e.types.get('cutroom_process_cpu_seconds_total')).toBe('counter');
  });

  it('asks for the token, and stays out of the public API document', async () => {
    expect((await fetch(`${stack.coordinator.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${stack.coordinator.url}/metrics`, { headers: { authorization: 'Bearer not-the-metrics-token' } })).status).toBe(401);
    const doc = (await (await fetch(`${stack.coordinator.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).not.toContain('/metrics');
  });

  it('has a Grafana dashboard whose every PromQL expression reads a metric /metrics exposes', async () => {
    const dashboard = JSON.parse(readFileSync(dashboardPath, 'utf8'));
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(dashboard.templating.list).toContainEqual(expect.objectContaining({ type: 'datasource', query: 'prometheus' }));
    const names = exposedNames((await scrape()).e);
    const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
    expect(exprs.length).toBeGreaterThan(20);
    const used = new Set<string>();
    for (const expr of exprs) {
      const found = promqlMetricNames(expr);
      expect(found.length, expr).toBeGreaterThan(0);
      for (const n of found) {
        expect(names.has(n), `${n} (in ${expr}) is not exposed by /metrics`).toBe(true);
        used.add(n.replace(/_(bucket|sum|count)$/, ''));
      }
    }
    // A panel for every metric family the issue asks for.
    for (const family of [
      'cutroom_jobs_finished_total',
      'cutroom_job_stage_duration_seconds',
      'cutroom_queued_jobs',
      'cutroom_queue_oldest_age_seconds',
      'cutroom_agents',
      'cutroom_transcription_realtime_ratio',
      'cutroom_encode_frames_per_second',
      'cutroom_payments_total',
      'cutroom_refunds_total',
      'cutroom_http_request_duration_seconds',
    ]) {
      expect(used.has(family), family).toBe(true);
    }
  });
});
