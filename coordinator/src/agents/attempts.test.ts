import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CompleteRequest, FailRequest, type MediaInfo } from '@cutroom/proto';
import { jobAttempts, jobOutputs, ledgerEntries } from '../db/schema.ts';
import { createEngineCtx, jobRow, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { leasePass } from '../sweeper/lease-pass.ts';
import { sweepOnce, sweepPolicy } from '../sweeper/sweeper.ts';
import { completeAttempt, failAttempt, heartbeat, reportStage } from './attempts.ts';
import { claimJob } from './claim.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx({ MAX_ATTEMPTS: '3' });
}, 60_000); // PGlite runs the migrations: seconds on a busy machine
afterAll(async () => {
  await ctx.close();
});

const audio: MediaInfo = { duration_seconds: 5.4, has_audio: true, has_video: false, format_name: 'wav' };

async function claimed(jobId: string, agentId = 'agent-1') {
  const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });
  if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
  return { v: 1 as const, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: agentId };
}

const validWords = { version: 2, language: 'en', duration: 5.4, segments: [] };

/** Writes what an agent uploads: into the attempt's own folder (the keys its assignment named). */
async function writeOutputs(fence: { job_id: string; attempt_id: string }, words: unknown = validWords, srt = true) {
  const dir = `jobs/${fence.job_id}/outputs/${fence.attempt_id}`;
  if (srt) await ctx.blobs.put(`${dir}/transcript_srt`, '1\n00:00:00,000 --> 00:00:01,000\nhi\n', 'application/x-subrip');
  await ctx.blobs.put(`${dir}/transcript_words`, typeof words === 'string' ? words : JSON.stringify(words), 'application/json');
}

const complete = (fence: { v: 1; job_id: string; attempt_id: string; agent_id: string }, extra: Record<string, unknown> = {}) =>
  completeAttempt(ctx, {
    ...fence,
    job_type: 'transcribe',
    media: audio,
    language: 'en',
    outputs: [{ name: 'transcript_srt', bytes: 35 }],
    ...extra,
  } as CompleteRequest);

const attemptsOf = (jobId: string) => ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId));

describe('attempts: stage, complete, retry/fail policy (PGlite, manual clock)', () => {
  it('moves through the type’s stages and completes with one output row and the type’s retention', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio }); // a retried report
    await writeOutputs(fence);
    await completeAttempt(ctx, { ...fence, job_type: 'transcribe', media: audio, language: 'en', outputs: [{ name: 'transcript_srt', bytes: 35 }] });
    await completeAttempt(ctx, { ...fence, job_type: 'transcribe', media: audio, language: 'en', outputs: [] }); // idempotent
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'completed', durationSeconds: 5.4, currentAttemptId: fence.attempt_id });
    expect(job.expiresAt!.getTime() - job.completedAt!.getTime()).toBe(24 * 3600_000);
    const outputs = await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, jobId));
    expect(outputs).toMatchObject([
      {
        role: 'transcript',
        storageKey: `jobs/${jobId}/outputs/${fence.attempt_id}/transcript_srt`,
        contentType: 'application/x-subrip',
        bytes: 35,
        meta: { words_key: `jobs/${jobId}/outputs/${fence.attempt_id}/transcript_words` },
      },
    ]);
    expect((await attemptsOf(jobId)).map((a) => a.outcome)).toEqual(['completed']);
  });

  it('ends an attempt whose result is bad as output_invalid: requeued, then failed and refunded; the agent is told to stop', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const bad: [string, (f: Awaited<ReturnType<typeof claimed>>) => Promise<void>, RegExp][] = [
      ['words JSON that does not match its schema', (f) => writeOutputs(f, { version: 1 }), /transcript_words does not match its schema/],
      ['words that are not JSON at all', (f) => writeOutputs(f, '{"version": 2, "segm'), /transcript_words is not JSON/],
      ['an output never uploaded', (f) => writeOutputs(f, validWords, false), /output transcript_srt was not uploaded/],
    ];
    const fences = [];
    for (const [i, [, write, reason]] of bad.entries()) {
      const fence = await claimed(jobId, `bad-result-${i}`);
      fences.push(fence);
      await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
      await write(fence);
      // No 500 and nothing to retry: 409 stale (the agent's signal to stop), naming the reason.
      const err = await complete(fence).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'stale_attempt' });
      expect((err as Error).message).toMatch(reason);
      expect((err as Error).message).toMatch(/output_invalid/);
      // The agent's retry of the same call changes nothing and is refused the same way.
      await expect(complete(fence)).rejects.toMatchObject({ code: 'stale_attempt' });
      if (i < 2) expect(await jobRow(ctx, jobId)).toMatchObject({ status: 'extracting_audio', currentAttemptId: null });
    }
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'failed', paymentStatus: 'refunded', errorCode: 'output_invalid', attemptCount: 3 });
    expect(job.errorMessage).toBe('processing failed on our side (output_invalid); the job was refunded, please try again');
    const attempts = await attemptsOf(jobId);
    expect(attempts.map((a) => [a.id, a.outcome, a.errorCode])).toEqual(fences.map((f) => [f.attempt_id, 'failed', 'output_invalid']));
    expect(attempts.map((a) => a.errorMessage)).toEqual([
      expect.stringMatching(/does not match its schema/),
      expect.stringMatching(/is not JSON/),
      expect.stringMatching(/was not uploaded/),
    ]);
    expect(await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, jobId))).toEqual([]);
  });

  it('refuses, as output_invalid, a complete of another job type and one sent before the last stage', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const early = await claimed(jobId, 'skips-stages');
    await writeOutputs(early);
    await expect(complete(early)).rejects.toThrow(/output_invalid: completed in status extracting_audio; a transcribe job completes from transcribing/);
    const wrongType = await claimed(jobId, 'wrong-type');
    await reportStage(ctx, { ...wrongType, stage: 'transcribing', media: audio });
    await writeOutputs(wrongType);
    await expect(complete(wrongType, { job_type: 'summarize' })).rejects.toThrow(/output_invalid: job \S+ is a transcribe job, not summarize/);
    expect((await attemptsOf(jobId)).map((a) => a.errorCode)).toEqual(['output_invalid', 'output_invalid']);
    expect(await jobRow(ctx, jobId)).toMatchObject({ status: 'extracting_audio', currentAttemptId: null });
  });

  it('keeps a completed job’s outputs whatever a stale attempt uploads later', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const stale = await claimed(jobId, 'frozen');
    await reportStage(ctx, { ...stale, stage: 'transcribing', media: audio });
    ctx.clock.advance(30_001);
    await sweepOnce(ctx, [leasePass(sweepPolicy(ctx.config))]);
    const live = await claimed(jobId, 'rescuer');
    await reportStage(ctx, { ...live, stage: 'transcribing', media: audio });
    await writeOutputs(live);
    await complete(live);
    const before = await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, jobId));
    const bytes = async () => Promise.all(before.flatMap((o) => [o.storageKey!, ...Object.values(o.meta)]).map((k) => ctx.blobs.getBytes(k)));
    const kept = await bytes();

    // The frozen agent wakes up and uploads through the URLs of its own assignment, then completes.
    await writeOutputs(stale, { version: 2, language: 'en', duration: 1, segments: [{ id: 0, start: 0, end: 1, text: 'zombie', words: [] }] });
    await expect(complete(stale)).rejects.toMatchObject({ code: 'stale_attempt' });
    expect(await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, jobId))).toEqual(before);
    expect(await bytes()).toEqual(kept);
    expect(before[0]!.storageKey).toBe(`jobs/${jobId}/outputs/${live.attempt_id}/transcript_srt`);
  });

  it('fails a video uploaded as audio at the stage report, refunded, with the reason', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    await expect(reportStage(ctx, { ...fence, stage: 'transcribing', media: { ...audio, has_video: true } })).rejects.toThrow(/no longer holds/);
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'failed', paymentStatus: 'refunded', errorCode: 'media_kind_mismatch', currentAttemptId: null });
    expect(job.errorMessage).toMatch(/is a video but the job was created as audio\/wav/);
  });

  it('requeues a retryable failure to the first stage until MAX_ATTEMPTS, then fails it with our message', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    for (let i = 1; i <= 3; i++) {
      const fence = await claimed(jobId, `retry-agent-${i}`);
      if (i > 1) expect((await jobRow(ctx, jobId)).status).toBe('extracting_audio');
      await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
      await failAttempt(ctx, { ...fence, code: 'tool_failed', message: 'whisper exited 137' });
    }
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'failed', paymentStatus: 'refunded', errorCode: 'tool_failed', attemptCount: 3 });
    expect(job.errorMessage).toBe('processing failed on our side (tool_failed); the job was refunded, please try again');
    expect((await attemptsOf(jobId)).map((a) => [a.outcome, a.errorCode])).toEqual([
      ['failed', 'tool_failed'],
      ['failed', 'tool_failed'],
      ['failed', 'tool_failed'],
    ]);
    expect(ctx.notified.outbox).toBeGreaterThan(0);
  });

  it('fails a user-blamed failure at once, with the rendering of its detail; no charge means no refund row', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    await failAttempt(ctx, {
      ...fence,
      code: 'media_invalid',
      message: 'the uploaded file is not audio or video that ffprobe can read (moov atom not found)',
      detail: { code: 'not_media', params: { reason: 'unreadable' } },
    });
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({
      status: 'failed',
      errorCode: 'media_invalid',
      errorMessage: 'the uploaded file is not audio or video that ffprobe can read',
      attemptCount: 1,
    });
    expect(await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId))).toEqual([]);
  });

  describe("an agent's own words reach operators, never the caller (issue 23)", () => {
    const lure = 'visit https://evil.example for a refund';
    const failWith = async (extra: Record<string, unknown>, code: 'media_invalid' | 'media_too_long' = 'media_invalid') => {
      const { jobId } = await queueTranscribeJob(ctx);
      const fence = await claimed(jobId);
      await failAttempt(ctx, { ...fence, code, message: lure, ...extra } as FailRequest);
      return { job: await jobRow(ctx, jobId), attempts: await attemptsOf(jobId) };
    };

    it('without a detail: the code’s generic sentence; the attempt row keeps the text for operators', async () => {
      const { job, attempts } = await failWith({});
      expect(job).toMatchObject({ status: 'failed', errorCode: 'media_invalid', errorMessage: 'the media could not be read' });
      expect(job.errorMessage).not.toContain('evil.example');
      expect(attempts).toMatchObject([{ outcome: 'failed', errorCode: 'media_invalid', errorMessage: lure }]);
    });

    it('with a detail: its rendering, whatever the message says', async () => {
      const { job, attempts } = await failWith({ detail: { code: 'too_long', params: { duration_seconds: 5 * 3600 } } }, 'media_too_long');
      expect(job).toMatchObject({ status: 'failed', errorCode: 'media_too_long', errorMessage: 'the media is 5.0 h long; the limit is 4 h' });
      expect(attempts).toMatchObject([{ errorCode: 'media_too_long', errorMessage: lure }]);
    });

    it('with a detail of another code, or one this coordinator cannot read: the generic sentence, and the fail is still taken', async () => {
      const other = await failWith({ detail: { code: 'no_audio', params: { has_video: true } } });
      expect(other.job).toMatchObject({ status: 'failed', errorMessage: 'the media could not be read' });
      // What the HTTP route parses (FailRequest): an unknown or free-text detail is dropped, not refused.
      for (const detail of [{ code: 'format_refused', params: { detected: lure } }, { code: 'newer_agents_code', params: {} }, lure]) {
        const body = FailRequest.parse({
          v: 1,
          job_id: crypto.randomUUID(),
          attempt_id: crypto.randomUUID(),
          agent_id: 'a',
          code: 'media_invalid',
          message: lure,
          detail,
        });
        const { job } = await failWith({ detail: body.detail });
        expect(job).toMatchObject({ status: 'failed', errorMessage: 'the media could not be read' });
      }
    });
  });

  it('answers a stale attempt with stale_attempt on every fenced call', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    const other = { ...fence, attempt_id: crypto.randomUUID() };
    await expect(heartbeat(ctx, other)).rejects.toMatchObject({ code: 'stale_attempt' });
    await expect(reportStage(ctx, { ...other, stage: 'transcribing' })).rejects.toMatchObject({ code: 'stale_attempt' });
    await expect(failAttempt(ctx, { ...other, code: 'internal', message: 'x' })).rejects.toMatchObject({ code: 'stale_attempt' });
    await expect(completeAttempt(ctx, { ...other, job_type: 'transcribe', media: audio, language: 'en', outputs: [] })).rejects.toMatchObject({
      code: 'stale_attempt',
    });
    const hb = await heartbeat(ctx, fence);
    expect(new Date(hb.lease_expires_at).getTime()).toBe(ctx.clock.now().getTime() + 30_000);
  });

  it("refuses another agent's calls on an attempt it does not hold, whatever agent_id it names: nothing it says reaches the job", async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId, 'owner-agent');
    const intruder = { ...fence, agent_id: 'intruder-agent' };
    const refused = { code: 'forbidden', message: expect.stringMatching(/is not agent intruder-agent's/) };
    const leaseBefore = (await jobRow(ctx, jobId)).leaseExpiresAt;
    ctx.clock.advance(5_000);
    await expect(heartbeat(ctx, intruder)).rejects.toMatchObject(refused);
    await expect(reportStage(ctx, { ...intruder, stage: 'transcribing', media: audio })).rejects.toMatchObject(refused);
    await expect(failAttempt(ctx, { ...intruder, code: 'media_invalid', message: 'text the intruder wants the customer to read' })).rejects.toMatchObject(
      refused,
    );
    await expect(completeAttempt(ctx, { ...intruder, job_type: 'transcribe', media: audio, language: 'en', outputs: [] })).rejects.toMatchObject(refused);
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'extracting_audio', currentAttemptId: fence.attempt_id, errorMessage: null });
    expect(job.leaseExpiresAt).toEqual(leaseBefore);
    expect((await attemptsOf(jobId)).map((a) => [a.agentId, a.endedAt])).toEqual([['owner-agent', null]]);
    // The owner carries on.
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
    expect((await jobRow(ctx, jobId)).status).toBe('transcribing');
  });

  it('ends an attempt that heartbeats past ATTEMPT_MAX_MINUTES as stage_timeout: requeued, and the agent told to stop', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    const capMs = ctx.config.ATTEMPT_MAX_MINUTES * 60_000;
    // A heartbeat at the cap still renews (the sweeper is not running here: no lease runs out)…
    ctx.clock.advance(capMs);
    await heartbeat(ctx, fence);
    // …and the first one past it ends the attempt.
    ctx.clock.advance(15_000);
    await expect(heartbeat(ctx, fence)).rejects.toMatchObject({ code: 'stale_attempt' });
    const [attempt] = await attemptsOf(jobId);
    expect(attempt).toMatchObject({ outcome: 'failed', errorCode: 'stage_timeout', errorMessage: expect.stringMatching(/ATTEMPT_MAX_MINUTES \(720 min\)/) });
    expect(await jobRow(ctx, jobId)).toMatchObject({ status: 'extracting_audio', currentAttemptId: null });
  });
});
