import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaInfo } from '@cutroom/proto';
import { jobAttempts, jobOutputs, ledgerEntries } from '../db/schema.ts';
import { createEngineCtx, jobRow, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { completeAttempt, failAttempt, heartbeat, reportStage } from './attempts.ts';
import { claimJob } from './claim.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx({ MAX_ATTEMPTS: '3' });
});
afterAll(async () => {
  await ctx.close();
});

const audio: MediaInfo = { duration_seconds: 5.4, has_audio: true, has_video: false, format_name: 'wav' };

async function claimed(jobId: string, agentId = 'agent-1') {
  const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });
  if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
  return { v: 1 as const, job_id: jobId, attempt_id: r.assignment.attempt_id, agent_id: agentId };
}

async function writeOutputs(jobId: string, words: unknown = { version: 2, language: 'en', duration: 5.4, segments: [] }) {
  await ctx.blobs.put(`jobs/${jobId}/outputs/transcript_srt`, '1\n00:00:00,000 --> 00:00:01,000\nhi\n', 'application/x-subrip');
  await ctx.blobs.put(`jobs/${jobId}/outputs/transcript_words`, JSON.stringify(words), 'application/json');
}

const attemptsOf = (jobId: string) => ctx.db.select().from(jobAttempts).where(eq(jobAttempts.jobId, jobId));

describe('attempts: stage, complete, retry/fail policy (PGlite, manual clock)', () => {
  it('moves through the type’s stages and completes with one output row and the type’s retention', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio }); // a retried report
    await writeOutputs(jobId);
    await completeAttempt(ctx, { ...fence, job_type: 'transcribe', media: audio, language: 'en', outputs: [{ name: 'transcript_srt', bytes: 35 }] });
    await completeAttempt(ctx, { ...fence, job_type: 'transcribe', media: audio, language: 'en', outputs: [] }); // idempotent
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({ status: 'completed', durationSeconds: 5.4, currentAttemptId: fence.attempt_id });
    expect(job.expiresAt!.getTime() - job.completedAt!.getTime()).toBe(24 * 3600_000);
    const outputs = await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, jobId));
    expect(outputs).toMatchObject([
      { role: 'transcript', contentType: 'application/x-subrip', bytes: 35, meta: { words_key: `jobs/${jobId}/outputs/transcript_words` } },
    ]);
    expect((await attemptsOf(jobId)).map((a) => a.outcome)).toEqual(['completed']);
  });

  it('refuses outputs that do not match their schema, and a complete of another job type', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
    await writeOutputs(jobId, { version: 1 });
    await expect(completeAttempt(ctx, { ...fence, job_type: 'transcribe', media: audio, language: 'en', outputs: [] })).rejects.toThrow(
      /transcript_words does not match its schema/,
    );
    expect((await jobRow(ctx, jobId)).status).toBe('transcribing');
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

  it('fails a user-blamed failure at once, showing the agent’s message; no charge means no refund row', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const fence = await claimed(jobId);
    await failAttempt(ctx, { ...fence, code: 'media_invalid', message: 'the uploaded file is not audio or video that ffprobe can read' });
    const job = await jobRow(ctx, jobId);
    expect(job).toMatchObject({
      status: 'failed',
      errorCode: 'media_invalid',
      errorMessage: 'the uploaded file is not audio or video that ffprobe can read',
      attemptCount: 1,
    });
    expect(await ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId))).toEqual([]);
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
});
