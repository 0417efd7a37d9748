import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outputSize, VERTICAL_PROFILES } from '@cutroom/shared/clips/profiles';
import type { SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import { jobs, ledgerEntries } from '../coordinator/src/db/schema.ts';
import type { StripeFake } from './fakes/stripe/index.ts';
import { waitFor } from './fixtures/index.ts';
import { makeTopicTalk, openingOf, TOPIC_TEXTS } from './harness/media-gen/topic-talk.ts';
import { makeVideo } from './harness/media.ts';
import { probeStreams, streamOf } from './harness/probe.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Clip bundles end to end on the real stack, billing on: a find_clips parent (an espeak-ng talk
 * of two topics, paid by hosted checkout, transcribed and analyzed by the agent, its clips
 * document in storage), then POST /jobs/{parent}/derivatives: one hosted checkout of quantity N
 * on the processor fake, paid there (its signed webhook starts the children), N
 * extract_vertical_clip children rendered by a real render-agent into N 9:16 mp4s. A clip the
 * agent cannot render (an unknown subject_id) fails alone and refunds one clip's price.
 */
describe('clip bundles over REST (clips_vertical)', () => {
  let stack: Stack;
  let fake: StripeFake;
  let token: string;
  let parentId: string;
  let candidates: { id: string; start: number; end: number; title: string }[];
  const work = mkdtempSync(join(tmpdir(), 'cutroom-bundles-'));
  const video = join(work, 'talk.mp4');

  /** The paying customer on the hosted page; the fake delivers the signed webhook to the coordinator before answering. */
  async function payCheckout(csId: string): Promise<string> {
    const res = await fetch(`${fake.url}/__fake/checkout/sessions/${csId}/pay`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(200);
    const out = (await res.json()) as { payment_intent: { id: string }; deliveries: Array<{ ok: boolean; status: number }> };
    expect(out.deliveries).toEqual([expect.objectContaining({ ok: true, status: 200 })]);
    return out.payment_intent.id;
  }

  const derivatives = (json: unknown) => stack.api.call('POST', `/api/v1/jobs/${parentId}/derivatives`, { token, json });
  const jobCount = async () => (await stack.coordinator.ctx.db.select({ id: jobs.id }).from(jobs)).length;

  beforeAll(async () => {
    // These flows test the bundle and its money, not how candidates are found (find-clips-flow) or
    // how a 9:16 clip is rendered (vertical-render.test.ts, extract-vertical-clip.test.ts): two topics
    // of eight sentences (about 45 s each; the whole topics made a 2.5-minute clip; six sentences are
    // too few for the segmentation to tell the topics apart), at 10 fps.
    const talk = await makeTopicTalk(work, { topics: TOPIC_TEXTS.slice(0, 2).map((t) => openingOf(t, 8)) });
    await makeVideo(talk.wav, video, { fps: 10 });
    stack = await startStack({ billing: true, storage: 'local', agents: 1, sweepMs: 500 });
    fake = stack.billing!.stripe;
    token = await stack.api.newSession();

    // The find_clips parent, paid by its own hosted checkout.
    const created = await stack.api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'find_clips', filename: 'talk.mp4', content_type: 'video/mp4' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    parentId = created.body.job_id;
    await payCheckout(created.body.card_checkout_session_id);
    const up = await stack.api.call('GET', `/api/v1/jobs/${parentId}/upload-url`, { token });
    expect(up.status).toBe(200);
    expect((await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(video) })).ok).toBe(true);
    expect((await stack.api.call('POST', `/api/v1/jobs/${parentId}/complete-upload`, { token })).status).toBe(200);
    const parent = await stack.api.waitForJob(token, parentId, undefined, 480_000);
    expect(parent.status, parent.error_message).toBe('completed');
    const clips: any = await (await fetch(parent.outputs.find((o: any) => o.role === 'clips').download_url)).json();
    candidates = clips.candidates;
    expect(candidates.length, JSON.stringify(clips.notes)).toBeGreaterThanOrEqual(1);
  }, 600_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses bad bundles with a 4xx {error} before any charge', async () => {
    const before = { checkouts: fake.state.checkoutSessions.size, jobs: await jobCount() };
    const refused = async (json: unknown, status: number, error: RegExp, t: string | undefined = token) => {
      const r = await stack.api.call('POST', `/api/v1/jobs/${parentId}/derivatives`, { ...(t && { token: t }), json });
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      expect(r.body).toEqual({ error: expect.stringMatching(error) });
    };
    await refused(
      { job_type: 'clips_vertical', clips: [{ candidate_id: 'c99' }] },
      400,
      /clip 1: candidate_id c99 is not a candidate of the parent; its candidates are c1/,
    );
    await refused({ job_type: 'clips_vertical', clips: Array.from({ length: 6 }, () => ({ candidate_id: 'c1' })) }, 400, /clips/);
    await refused(
      { job_type: 'clips_vertical', clips: [{ start: 0, end: 70, profile: 'vidB-stories' }] },
      400,
      /clip 1: profile vidB-stories takes clips of at most 60 s/,
    );
    await refused({ job_type: 'clips_horizontal', clips: [{ candidate_id: 'c1' }] }, 400, /offered through the MCP tool/);
    await refused({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c1' }] }, 403, /another session/, await stack.api.newSession());
    await refused({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c1' }] }, 401, /session/, '');
    // A route that charges by card only: no MPP or x402 challenge, ever.
    const raw = await fetch(`${stack.coordinator.url}/api/v1/jobs/${parentId}/derivatives`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ job_type: 'clips_vertical', clips: [{ candidate_id: 'c1' }] }),
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('www-authenticate')).toBeNull();
    expect(raw.headers.get('payment-required')).toBeNull();
    expect({ checkouts: fake.state.checkoutSessions.size, jobs: await jobCount() }).toEqual(before);
  });

  it('sells two clips in one checkout of quantity 2 and delivers two vertical mp4s, 9:16 and the 4:5 feed shape', async () => {
    const c1 = candidates[0]!;
    const created = await derivatives({
      job_type: 'clips_vertical',
      clips: [
        { candidate_id: c1.id, profile: 'vidA-primary-720p' },
        { start: 30, end: 42, title: 'Opening lines', aspect: '4:5' },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const b = created.body;
    expect(b).toMatchObject({
      job_type: 'clips_vertical',
      payment_status: 'pending',
      price_cents: 100,
      unit_price_cents: 50,
      quantity: 2,
      source_job_id: parentId,
    });
    expect(b.checkout_url).toBe(`${fake.url}/c/pay/${b.card_checkout_session_id}`);
    expect(fake.state.lineItems.get(b.card_checkout_session_id)).toEqual([expect.objectContaining({ unit_amount: 50, quantity: 2 })]);
    const [k1, k2] = b.children.map((c: any) => c.job_id);
    expect(b.children[0]).toMatchObject({ index: 1, candidate_id: c1.id, start: c1.start, end: c1.end });

    // Unpaid: nothing runs.
    await new Promise((r) => setTimeout(r, 1500));
    for (const k of [k1, k2])
      expect((await stack.api.call('GET', `/api/v1/jobs/${k}`, { token })).body).toMatchObject({
        status: 'pending',
        payment_status: 'paid_by_parent',
        bundle_job_id: b.job_id,
      });

    const pi = await payCheckout(b.card_checkout_session_id);
    const bundle = await stack.api.waitForJob(token, b.job_id, (j) => ['completed', 'failed'].includes(j.status), 420_000);
    expect(bundle.status, bundle.error_message).toBe('completed');
    expect(bundle).toMatchObject({ payment_status: 'paid', error_message: null });
    expect(bundle.outputs.map((o: any) => [o.role, o.job_id])).toEqual([
      ['clip_1', k1],
      ['subjects_1', k1],
      ['clip_2', k2],
      ['subjects_2', k2],
    ]);
    const expected = [
      { id: k1, profile: 'vidA-primary-720p' as const, aspect: '9:16' as const, seconds: c1.end - c1.start },
      { id: k2, profile: 'vidA-primary' as const, aspect: '4:5' as const, seconds: 12 },
    ];
    for (const e of expected) {
      const child = (await stack.api.call('GET', `/api/v1/jobs/${e.id}`, { token })).body;
      expect(child).toMatchObject({
        job_type: 'extract_vertical_clip',
        status: 'completed',
        payment_status: 'paid_by_parent',
        bundle_job_id: b.job_id,
        source_job_id: parentId,
      });
      const p = await probeStreams(child.outputs.find((o: any) => o.role === 'clip').download_url);
      const v = streamOf(p, 'video')!;
      const size = outputSize(e.profile, e.aspect);
      expect([v.width, v.height]).toEqual([size.width, size.height]);
      expect([v.width, v.height]).toEqual(e.aspect === '4:5' ? [1080, 1350] : [VERTICAL_PROFILES[e.profile].width, VERTICAL_PROFILES[e.profile].height]);
      // The window cut from the 320x240 source has the clip's shape: 136x240 for 9:16, 192x240 for 4:5.
      const subjects = (await (await fetch(child.outputs.find((o: any) => o.role === 'subjects').download_url)).json()) as SubjectsV1;
      expect(subjects.crop).toMatchObject({ width: e.aspect === '4:5' ? 192 : 136, height: 240, scaled_only: false });
      expect(Math.abs(p.duration - e.seconds)).toBeLessThan(0.2);
    }
    const ledger = await stack.coordinator.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, b.job_id));
    expect(ledger.map((r) => [r.kind, r.amount, r.reference])).toEqual([['charge', 100n, pi]]);
  });

  it('refunds one clip, not the bundle, when one clip fails', async () => {
    const created = await derivatives({
      job_type: 'clips_vertical',
      clips: [
        // Detection runs, finds no such subject, and the agent fails the clip (user-blamed, refunded).
        { start: 60, end: 66, subject: 'subject_id', subject_id: 'no-such-subject' },
        { start: 70, end: 75 },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const b = created.body;
    const [bad, good] = b.children.map((c: any) => c.job_id);
    const pi = await payCheckout(b.card_checkout_session_id);
    const bundle = await stack.api.waitForJob(token, b.job_id, (j) => ['completed', 'failed'].includes(j.status), 300_000);
    expect(bundle).toMatchObject({
      status: 'completed',
      payment_status: 'paid',
      error_message: expect.stringMatching(/^1 of 2 clips failed and were refunded .*clip 1: subject_id no-such-subject was not found/),
    });
    expect(bundle.outputs.map((o: any) => o.role)).toEqual(['clip_2', 'subjects_2']);
    // The bundle's view over REST lists every clip with where it stands.
    expect(bundle.children.map((c: any) => [c.index, c.job_id, c.status, c.payment_status])).toEqual([
      [1, bad, 'failed', 'refunded'],
      [2, good, 'completed', 'paid_by_parent'],
    ]);
    expect(bundle.children[0].error_message).toMatch(/no-such-subject/);
    expect((await stack.api.call('GET', `/api/v1/jobs/${bad}`, { token })).body).toMatchObject({
      status: 'failed',
      payment_status: 'refunded',
      bundle_job_id: b.job_id,
    });
    expect((await stack.api.call('GET', `/api/v1/jobs/${good}`, { token })).body).toMatchObject({ status: 'completed', payment_status: 'paid_by_parent' });

    // The refunder (sweeper cadence) pays back one clip's price as a partial refund of the bundle's payment.
    const refunds = () => [...fake.state.refunds.values()].filter((r) => r.payment_intent === pi);
    const refundRows = () => stack.coordinator.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.chargeReference, pi));
    // The refunder records the refund as done after the processor answers: wait for both, not only the processor's side.
    await waitFor(async () => refunds().length === 1 && (await refundRows()).every((r) => r.state === 'done'), 30_000);
    expect(refunds().map((r) => r.amount)).toEqual([50]);
    expect([...fake.state.charges.values()].find((c) => c.payment_intent === pi)).toMatchObject({ amount: 100, amount_refunded: 50, refunded: false });
    expect((await refundRows()).map((r) => [r.jobId, r.kind, r.amount, r.state])).toEqual([[bad, 'refund', 50n, 'done']]);
  });
});
