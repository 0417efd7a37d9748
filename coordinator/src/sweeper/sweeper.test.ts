import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaInfo } from '@cutroom/proto';
import { claimJob } from '../agents/claim.ts';
import { completeAttempt, heartbeat, reportStage } from '../agents/attempts.ts';
import { jobAttempts, jobs, ledgerEntries, outbox } from '../db/schema.ts';
import { recordMovement } from '../payments/ledger.ts';
import { completeUploadCall, createJobCall, createSessionCall, deleteOutputCall, deleteSourceCall, uploadUrlCall } from '../service/index.ts';
import { BlobDeleteError } from '../storage/blob-store.ts';
import { createEngineCtx, jobRow, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { sweepOnce, sweepPolicy } from './sweeper.ts';
import { wavBytes } from '@cutroom/shared/testing/media-bytes';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx({ MAX_ATTEMPTS: '2', LEASE_MS: '30000', PRESIGN_TTL_SECONDS: '3600' });
}, 60_000); // PGlite runs the migrations: seconds on a busy machine
afterAll(async () => {
  await ctx.close();
});

const HOUR = 3600_000;
const audio: MediaInfo = { duration_seconds: 5.4, has_audio: true, has_video: false, format_name: 'wav' };

async function claim(jobId: string, agentId: string) {
  const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });
  if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
  return r.assignment.attempt_id;
}

/** Runs an attempt to completion the way an agent does: stage, outputs to its assignment's keys, complete. */
async function runToCompletion(jobId: string, agentId: string): Promise<string> {
  const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });
  if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
  const fence = { v: 1 as const, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: agentId };
  await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
  const { transcript_srt: srt, transcript_words: words } = r.assignment.outputs;
  await ctx.blobs.put(srt!.key, '1\n00:00:00,000 --> 00:00:01,000\nhi\n', srt!.content_type);
  await ctx.blobs.put(words!.key, JSON.stringify({ version: 2, language: 'en', duration: 5.4, segments: [] }), words!.content_type);
  await completeAttempt(ctx, { ...fence, job_type: 'transcribe', media: audio, language: 'en', outputs: [] });
  return fence.attempt_id;
}

const wakeupsOf = async (jobId: string) => (await ctx.db.select().from(outbox)).filter((r) => (r.payload as { job_id: string }).job_id === jobId);
/** What the relay does once JetStream accepted the rows. */
const relayPublished = () => ctx.db.update(outbox).set({ publishedAt: ctx.clock.now() }).where(isNull(outbox.publishedAt));
const keysOf = async (jobId: string) => (await ctx.blobs.head(`jobs/${jobId}/source`)) !== null;

async function newCaller() {
  const session = await createSessionCall(ctx);
  return { bearer: session.session_token, authorization: `Bearer ${session.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' };
}

describe('sweeper: leases (PGlite, manual clock)', () => {
  it('leaves a lease that is still running, or renewed, alone', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const attemptId = await claim(jobId, 'alive');
    ctx.clock.advance(20_000);
    await heartbeat(ctx, { v: 1, job_id: jobId, attempt_id: attemptId, agent_id: 'alive' });
    ctx.clock.advance(20_000);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, jobId)).currentAttemptId).toBe(attemptId);
  });

  it('requeues an expired lease with a new wake-up and tells the old holder to stop; fails after MAX_ATTEMPTS', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    expect(await wakeupsOf(jobId)).toHaveLength(1);

    const first = await claim(jobId, 'doomed');
    ctx.clock.advance(30_001);
    expect((await sweepOnce(ctx)).leases!.requeued).toBeGreaterThanOrEqual(1);
    expect(await jobRow(ctx, jobId)).toMatchObject({ status: 'extracting_audio', currentAttemptId: null, leaseExpiresAt: null });
    expect(await wakeupsOf(jobId)).toHaveLength(2);
    expect(ctx.notified.cancelled).toContain(first);

    const second = await claim(jobId, 'doomed-too');
    ctx.clock.advance(30_001);
    expect((await sweepOnce(ctx)).leases!.failed).toBeGreaterThanOrEqual(1);
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'failed', paymentStatus: 'refunded', errorCode: 'attempts_exhausted' });
    expect(job.errorMessage).toMatch(/did not finish after 2 attempts/);
    const attempts = await ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId));
    expect(attempts.map((a) => [a.id, a.outcome, a.errorCode])).toEqual([
      [first, 'lease_expired', 'lease_expired'],
      [second, 'lease_expired', 'lease_expired'],
    ]);
  });
});

describe('sweeper: lost wake-ups', () => {
  const bound = () => sweepPolicy(ctx.config).republishAfterMs;

  it('re-publishes the wake-up of a queued job nobody claimed (dropped, or acked after a refused claim), and the job completes', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    await relayPublished();
    // The only wake-up is gone: the stream lost it, or an agent whose claim was refused with a
    // 4xx acked it. Nothing holds the job, and nothing would ever look at it again.
    ctx.clock.advance(bound() - 1000);
    await sweepOnce(ctx);
    expect(await wakeupsOf(jobId)).toHaveLength(1);

    ctx.clock.advance(2000);
    const outboxBefore = ctx.notified.outbox;
    expect((await sweepOnce(ctx)).wakeups!.republished).toBeGreaterThanOrEqual(1);
    const wakeups = await wakeupsOf(jobId);
    expect(wakeups).toHaveLength(2);
    expect(wakeups[1]).toMatchObject({ subject: 'cutroom.work.v1.transcribe', publishedAt: null, payload: { v: 1, job_id: jobId, kind: 'transcribe' } });
    expect(ctx.notified.outbox).toBe(outboxBefore + 1);
    // One per period, not one per sweep.
    await relayPublished();
    await sweepOnce(ctx);
    expect(await wakeupsOf(jobId)).toHaveLength(2);

    await runToCompletion(jobId, 'woken-agent');
    expect((await jobRow(ctx, jobId)).status).toBe('completed');
  });

  it('adds none while the job’s wake-up still waits in the outbox (NATS unreachable)', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    ctx.clock.advance(bound() + 1000);
    await sweepOnce(ctx);
    expect(await wakeupsOf(jobId)).toHaveLength(1);
  });

  it('leaves claimed jobs alone, and fails a queued job that can no longer be claimed (out of attempts)', async () => {
    const { jobId: held } = await queueTranscribeJob(ctx);
    await claim(held, 'busy');
    const { jobId: spent } = await queueTranscribeJob(ctx);
    await relayPublished();
    await ctx.db.update(jobs).set({ attemptCount: 2 }).where(eq(jobs.id, spent));
    ctx.clock.advance(bound() + 1000);
    await heartbeat(ctx, { v: 1, job_id: held, attempt_id: (await jobRow(ctx, held)).currentAttemptId!, agent_id: 'busy' });
    await sweepOnce(ctx);
    expect(await wakeupsOf(held)).toHaveLength(1);
    expect(await jobRow(ctx, spent)).toMatchObject({ status: 'failed', errorCode: 'attempts_exhausted', paymentStatus: 'refunded' });
  });
});

describe('sweeper: jobs that never start', () => {
  it('deletes an abandoned upload once its URL lapsed plus a margin, and the job with it (refunded)', async () => {
    const c = await newCaller();
    const id = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' })).value.job_id;
    expect((await jobRow(ctx, id)).expiresAt!.getTime()).toBe(ctx.clock.now().getTime() + 24 * HOUR);
    await uploadUrlCall(ctx, c, id);
    // URL for 1 h (PRESIGN_TTL_SECONDS) + 1 h margin for a PUT still streaming and complete-upload.
    expect((await jobRow(ctx, id)).expiresAt!.getTime()).toBe(ctx.clock.now().getTime() + 2 * HOUR);
    await ctx.blobs.put(`jobs/${id}/upload`, Buffer.from('half a file'), 'audio/wav'); // PUT, never completed

    ctx.clock.advance(2 * HOUR - 1000);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, id)).status).toBe('uploading');
    expect(await ctx.blobs.head(`jobs/${id}/upload`)).not.toBeNull();

    ctx.clock.advance(2000);
    const swept = await sweepOnce(ctx);
    expect(swept['open-jobs']).toMatchObject({ expired: 1 });
    const job = await jobRow(ctx, id);
    expect(job).toMatchObject({ status: 'deleted', paymentStatus: 'refunded', expiresAt: null });
    expect(job.errorMessage).toMatch(/upload was not completed in time/);
    expect(await ctx.blobs.head(`jobs/${id}/upload`)).toBeNull();
    await expect(completeUploadCall(ctx, c, id)).rejects.toMatchObject({ code: 'conflict' });
    await expect(uploadUrlCall(ctx, c, id)).rejects.toMatchObject({ code: 'conflict' });
  });

  it('queues the refund of a paid job whose upload never came', async () => {
    const c = await newCaller();
    const id = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' })).value.job_id;
    // As the payment gate leaves a paid job: a settled charge and the job's reference to it.
    const now = ctx.clock.now();
    await ctx.db
      .update(jobs)
      .set({ paymentReference: `ch_${id}`, paymentRail: 'card', amountPaidCents: 150 })
      .where(eq(jobs.id, id));
    await recordMovement(ctx.db, {
      jobId: id,
      rail: 'card',
      kind: 'charge',
      amount: 150n,
      currency: 'usd',
      state: 'done',
      reference: `ch_${id}`,
      idempotencyKey: `charge:${id}`,
      now,
    });
    ctx.clock.advance(24 * HOUR + 1000);
    await sweepOnce(ctx);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'deleted', paymentStatus: 'refunded' });
    const refunds = await ctx.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.jobId, id), eq(ledgerEntries.kind, 'refund')));
    expect(refunds).toMatchObject([{ amount: 150n, state: 'pending', chargeReference: `ch_${id}` }]);
  });

  it('expires a job never paid, and gives a job paid late a full upload window', async () => {
    const c = await newCaller();
    const unpaid = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' })).value.job_id;
    const late = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'b.wav', content_type: 'audio/wav' })).value.job_id;
    // Billing is off in engine tests, so jobs start paid: put one back to pending (unpaid).
    await ctx.db.update(jobs).set({ status: 'pending', paymentStatus: 'pending' }).where(eq(jobs.id, unpaid));
    ctx.clock.advance(23 * HOUR);
    await ctx.db.update(jobs).set({ updatedAt: ctx.clock.now() }).where(eq(jobs.id, late)); // paid just now
    ctx.clock.advance(HOUR + 1000);
    await sweepOnce(ctx);
    expect(await jobRow(ctx, unpaid)).toMatchObject({ status: 'deleted', paymentStatus: 'pending' });
    expect((await jobRow(ctx, unpaid)).errorMessage).toMatch(/not paid in time/);
    expect((await jobRow(ctx, late)).status).toBe('uploading');
    ctx.clock.advance(HOUR);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, late)).status).toBe('deleted');
  });

  it('lets complete-upload win against an expiry that is not due yet, and keeps a queued job out of expiry', async () => {
    const c = await newCaller();
    const id = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' })).value.job_id;
    await uploadUrlCall(ctx, c, id);
    await ctx.blobs.put(`jobs/${id}/upload`, wavBytes(), 'audio/wav');
    ctx.clock.advance(2 * HOUR - 1000);
    await completeUploadCall(ctx, c, id);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'extracting_audio', expiresAt: null, sourceKey: `jobs/${id}/source` });
    ctx.clock.advance(48 * HOUR);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, id)).status).toBe('extracting_audio');
    expect(await keysOf(id)).toBe(true);
  });
});

describe('sweeper: retention and purge', () => {
  it('deletes a finished job’s files and marks it deleted once past its retention', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    await claim(jobId, 'short-lived');
    ctx.clock.advance(30_001);
    await sweepOnce(ctx);
    await claim(jobId, 'short-lived-2');
    ctx.clock.advance(30_001);
    await sweepOnce(ctx); // failed: kept a day for inspection
    expect(await keysOf(jobId)).toBe(true);
    ctx.clock.advance(24 * HOUR + 1);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, jobId)).status).toBe('deleted');
    expect(await keysOf(jobId)).toBe(false);
  });

  it('goes on past an object that cannot be deleted, and tries that job again later', async () => {
    const { jobId: stuck } = await queueTranscribeJob(ctx);
    const { jobId: fine } = await queueTranscribeJob(ctx);
    await runToCompletion(stuck, 'agent-x');
    await runToCompletion(fine, 'agent-y');
    const real = ctx.blobs.deletePrefix.bind(ctx.blobs);
    ctx.blobs.deletePrefix = async (prefix) => {
      if (prefix === `jobs/${stuck}/`) throw new BlobDeleteError(prefix, [{ key: `${prefix}source`, reason: 'AccessDenied' }], 2);
      return real(prefix);
    };
    try {
      ctx.clock.advance(24 * HOUR + 1000);
      const swept = await sweepOnce(ctx);
      expect(swept.retention!.expired).toBeGreaterThanOrEqual(2);
      expect(swept.purge).toMatchObject({ failed: 1 });
      expect(await jobRow(ctx, fine)).toMatchObject({ status: 'deleted', expiresAt: null });
      expect(await keysOf(fine)).toBe(false);
      const waiting = await jobRow(ctx, stuck);
      expect(waiting.status).toBe('deleted');
      expect(waiting.expiresAt!.getTime()).toBe(ctx.clock.now().getTime() + sweepPolicy(ctx.config).purgeRetryMs);
    } finally {
      ctx.blobs.deletePrefix = real;
    }
    ctx.clock.advance(sweepPolicy(ctx.config).purgeRetryMs + 1000);
    await sweepOnce(ctx);
    expect(await jobRow(ctx, stuck)).toMatchObject({ status: 'deleted', expiresAt: null });
    expect(await keysOf(stuck)).toBe(false);
  });

  it('removes everything under the job once the caller deleted its source and outputs, and again after the last output URL lapsed', async () => {
    const c = await newCaller();
    const id = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' })).value.job_id;
    await ctx.blobs.put(`jobs/${id}/upload`, wavBytes(), 'audio/wav');
    await completeUploadCall(ctx, c, id);
    const lost = await claim(id, 'first');
    ctx.clock.advance(30_001);
    await sweepOnce(ctx);
    const done = await runToCompletion(id, 'second');
    // What a stale attempt left in its own folder: not an output of the job, but under its prefix.
    await ctx.blobs.put(`jobs/${id}/outputs/${lost}/transcript_srt`, 'late', 'application/x-subrip');

    await deleteOutputCall(ctx, c, id, 'transcript');
    await deleteSourceCall(ctx, c, id);
    expect((await jobRow(ctx, id)).status).toBe('deleted');
    await sweepOnce(ctx);
    expect(await ctx.blobs.head(`jobs/${id}/outputs/${lost}/transcript_srt`)).toBeNull();
    // The output URLs handed out minutes ago are valid for hours: one more purge after them.
    const [attempt] = await ctx.db.select().from(jobAttempts).where(eq(jobAttempts.id, done));
    const again = (await jobRow(ctx, id)).expiresAt!;
    expect(again.getTime()).toBe(attempt!.startedAt.getTime() + 6 * HOUR + HOUR);
    await ctx.blobs.put(`jobs/${id}/outputs/${lost}/transcript_words`, '{}', 'application/json'); // the zombie, later still
    ctx.clock.advance(7 * HOUR);
    await sweepOnce(ctx);
    expect(await ctx.blobs.head(`jobs/${id}/outputs/${lost}/transcript_words`)).toBeNull();
    expect((await jobRow(ctx, id)).expiresAt).toBeNull();
  });
});
