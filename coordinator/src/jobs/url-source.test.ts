import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeader, startStripeFake, type StripeFake } from '../../../test/fakes/stripe/index.ts';
import type { MediaInfo } from '@cutroom/proto';
import { wavBytes } from '@cutroom/shared/testing/media-bytes';
import { completeAttempt, reportStage } from '../agents/attempts.ts';
import { claimJob } from '../agents/claim.ts';
import { ledgerEntries } from '../db/schema.ts';
import { cardWebhookCall, completeUploadCall, createJobCall, createSessionCall, processCall, uploadUrlCall } from '../service/index.ts';
import { createEngineCtx, jobRow, type EngineCtx } from '../testing/engine-ctx.ts';

/** Media by URL through the service layer and the agent protocol (PGlite, billing off, no agent process). */
let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx({ SOURCE_URL_FETCH_TIMEOUT_MS: '60000' });
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

async function creds() {
  const s = await createSessionCall(ctx);
  return { bearer: s.session_token, authorization: `Bearer ${s.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' };
}
const audio: MediaInfo = { duration_seconds: 5.4, has_audio: true, has_video: false, format_name: 'wav' };

describe('a job created with source_url', () => {
  it('is started by process, not by the upload calls, and names its file after the URL', async () => {
    const c = await creds();
    const created = await createJobCall(ctx, c, {
      job_type: 'summarize',
      source_url: 'https://media.example/talks/Caf%C3%A9%20talk.mp3?sig=abc',
      content_type: 'audio/mpeg',
    });
    expect(created.value).toMatchObject({ next_endpoint: 'process', payment_status: 'paid', price_cents: 75 });
    const id = created.value.job_id;
    expect(await jobRow(ctx, id)).toMatchObject({
      status: 'uploading',
      originalFilename: 'Café talk.mp3',
      sourceKey: null,
      params: { source_url: 'https://media.example/talks/Caf%C3%A9%20talk.mp3?sig=abc' },
    });
    for (const call of [uploadUrlCall, completeUploadCall]) {
      await expect(call(ctx, c, id)).rejects.toMatchObject({ code: 'wrong_endpoint', next: { call: 'process', jobId: id } });
    }
    expect((await processCall(ctx, c, id)).value).toEqual({ job_id: id, status: 'processing' });
    expect((await jobRow(ctx, id)).status).toBe('extracting_audio');
    expect((await processCall(ctx, c, id)).value.status).toBe('processing');
  });

  it('refuses at creation what is never fetched: other schemes, credentials, http (not allowed here), non-public literals', async () => {
    const c = await creds();
    for (const [url, why] of [
      ['http://media.example/a.mp3', /http URLs are not fetched by this service: use https/],
      ['ftp://media.example/a.mp3', /ftp URLs are not fetched/],
      ['https://me:secret@media.example/a.mp3', /user name or password/],
      ['https://169.254.169.254/latest/meta-data', /link-local/],
      ['https://[fd00:ec2::254]/a.mp3', /unique-local/],
      ['https://2130706433/a.mp3', /127\.0\.0\.1 is a loopback address/],
    ] as const) {
      await expect(createJobCall(ctx, c, { job_type: 'transcribe', source_url: url, content_type: 'audio/mpeg' }), url).rejects.toMatchObject({
        code: 'invalid_request',
        message: expect.stringMatching(why),
      });
    }
  });

  it('gives the claiming agent the URL, its limits and a key of its own; the completed attempt’s copy becomes the job’s source', async () => {
    const c = await creds();
    const created = await createJobCall(ctx, c, { job_type: 'transcribe', source_url: 'https://media.example/a.wav', content_type: 'audio/wav' });
    const id = created.value.job_id;
    await processCall(ctx, c, id);
    const claim = async () => {
      const r = await claimJob(ctx, { v: 1, job_id: id, agent_id: 'agent-1' });
      if (!r.claimed) throw new Error(r.reason);
      return r.assignment;
    };
    const first = await claim();
    const key = `jobs/${id}/outputs/${first.attempt_id}/source`;
    expect(first.source).toMatchObject({
      size: null,
      fetch: {
        url: 'https://media.example/a.wav',
        max_bytes: ctx.config.UPLOAD_MAX_BYTES,
        timeout_ms: 60_000,
        allow_http: false,
        put: { key, content_type: 'audio/wav', put_url: expect.any(String) },
      },
    });
    const fence = { v: 1 as const, job_id: id, attempt_id: first.attempt_id, agent_id: 'agent-1' };
    const outputs = async () => {
      const dir = `jobs/${id}/outputs/${fence.attempt_id}`;
      await ctx.blobs.put(`${dir}/transcript_srt`, '1\n00:00:00,000 --> 00:00:01,000\nhi\n', 'application/x-subrip');
      await ctx.blobs.put(`${dir}/transcript_words`, JSON.stringify({ version: 2, language: 'en', duration: 5.4, segments: [] }), 'application/json');
    };
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
    await outputs();
    const done = { ...fence, job_type: 'transcribe' as const, media: audio, language: 'en', outputs: [{ name: 'transcript_srt', bytes: 35 }] };
    // An attempt that did not store what it fetched cannot complete the job.
    await expect(completeAttempt(ctx, done)).rejects.toMatchObject({ code: 'stale_attempt', message: expect.stringContaining('was not stored') });
    expect((await jobRow(ctx, id)).sourceKey).toBeNull();

    // The next attempt stores it (its own key), and completes: that copy is the job's source.
    const second = await claim();
    expect(second.source.fetch?.put.key).toBe(`jobs/${id}/outputs/${second.attempt_id}/source`);
    Object.assign(fence, { attempt_id: second.attempt_id });
    await ctx.blobs.put(second.source.fetch!.put.key, wavBytes(100), 'audio/wav');
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
    await outputs();
    await completeAttempt(ctx, { ...done, attempt_id: second.attempt_id });
    expect(await jobRow(ctx, id)).toMatchObject({
      status: 'completed',
      sourceKey: `jobs/${id}/outputs/${second.attempt_id}/source`,
      fileSize: wavBytes(100).length,
    });
  });
});

describe('a source_url job with billing on (card through the processor fake)', () => {
  const WEBHOOK_SECRET = 'whsec_source_url_test_0123456789';
  let paid: EngineCtx;
  let fake: StripeFake;
  beforeAll(async () => {
    fake = await startStripeFake();
    paid = await createEngineCtx({
      CARD_SECRET_KEY: fake.secretKey,
      CARD_WEBHOOK_SECRET: WEBHOOK_SECRET,
      CARD_API_BASE: fake.url,
      PAYMENT_CHALLENGE_SECRET: 'source-url-test-challenge-secret-0123456789',
    });
  }, 60_000);
  afterAll(async () => {
    await paid?.close();
    await fake?.stop();
  });

  it('answers process with 402 until paid; paying at the checkout starts it, and process then charges nothing more', async () => {
    const s = await createSessionCall(paid);
    const c = { bearer: s.session_token, authorization: `Bearer ${s.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' };
    const created = await createJobCall(paid, c, { job_type: 'transcribe', source_url: 'https://media.example/a.mp4', content_type: 'video/mp4' });
    expect(created.value).toMatchObject({ next_endpoint: 'process', payment_status: 'pending', price_cents: 100, checkout_url: expect.any(String) });
    const id = created.value.job_id;
    await expect(processCall(paid, c, id)).rejects.toMatchObject({ name: expect.stringMatching(/PaymentRequired/) });
    expect((await jobRow(paid, id)).status).toBe('pending');

    // The customer pays on the hosted page; the processor's signed webhook books it and the job starts (nothing to upload).
    const res = await fetch(`${fake.url}/__fake/checkout/sessions/${created.value.card_checkout_session_id}/pay`, { method: 'POST', body: '{}' });
    const out = (await res.json()) as { event_id: string };
    const raw = JSON.stringify(fake.state.events.find((e) => e.id === out.event_id));
    const header = signatureHeader(raw, WEBHOOK_SECRET, Math.floor(paid.clock.now().getTime() / 1000));
    expect(await cardWebhookCall(paid, Buffer.from(raw), header)).toEqual({ received: true, applied: true });
    expect(await jobRow(paid, id)).toMatchObject({ status: 'extracting_audio', paymentStatus: 'paid' });
    const charges = await paid.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, id));
    expect((await processCall(paid, c, id)).value.status).toBe('processing');
    expect(await paid.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, id))).toHaveLength(charges.length);
  });
});
