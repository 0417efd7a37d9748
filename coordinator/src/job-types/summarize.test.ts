import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompleteRequest, MediaInfo } from '@cutroom/proto';
import type { SummaryV1 } from '@cutroom/shared/summary/summary-v1';
import { completeAttempt, reportStage } from '../agents/attempts.ts';
import { claimJob } from '../agents/claim.ts';
import { jobOutputs } from '../db/schema.ts';
import { completeUploadCall, createJobCall, createSessionCall } from '../service/index.ts';
import { createEngineCtx, type EngineCtx, jobRow } from '../testing/engine-ctx.ts';
import { mp4Bytes, wavBytes } from '@cutroom/shared/testing/media-bytes';

/** summarize through the engine (PGlite, manual clock): prices, the request, the claim, the probe check, completion. */
let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx({ MAX_ATTEMPTS: '1' });
}, 60_000);
afterAll(async () => {
  await ctx.close();
});

const audio: MediaInfo = { duration_seconds: 60, has_audio: true, has_video: false, format_name: 'wav' };

async function creds() {
  const s = await createSessionCall(ctx);
  return { bearer: s.session_token, authorization: `Bearer ${s.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' };
}

async function queued(contentType = 'audio/wav') {
  const c = await creds();
  const created = await createJobCall(ctx, c, { job_type: 'summarize', filename: 'talk.wav', content_type: contentType, language: 'en' });
  await ctx.blobs.put(`jobs/${created.value.job_id}/upload`, contentType.startsWith('video/') ? mp4Bytes() : wavBytes(), contentType);
  await completeUploadCall(ctx, c, created.value.job_id);
  const r = await claimJob(ctx, { v: 1, job_id: created.value.job_id, agent_id: 'agent-1' });
  if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
  return { assignment: r.assignment, fence: { v: 1 as const, job_id: created.value.job_id, attempt_id: r.assignment.attempt_id, agent_id: 'agent-1' } };
}

const summary: SummaryV1 = {
  version: 1,
  source: { duration: 60, language: 'en', sentences: 1 },
  generator: { embedder: 'e', text_generator: 'extractive', parts: 1, dropped: [], timings_ms: { total: 1 } },
  overview: 'Bees make honey.',
  overview_source: 'extractive',
  key_points: [{ text: 'Bees make honey.', source: 'extractive', evidence: { first_sentence: 0, last_sentence: 0, start: 0, end: 2 } }],
  chapters: [
    {
      index: 1,
      start: 0,
      end: 60,
      first_sentence: 0,
      last_sentence: 0,
      title: 'Bees',
      title_source: 'extractive',
      summary: 'Bees make honey.',
      summary_source: 'extractive',
    },
  ],
  notes: [],
};

async function writeOutputs(fence: { job_id: string; attempt_id: string }, doc: unknown) {
  const dir = `jobs/${fence.job_id}/outputs/${fence.attempt_id}`;
  await ctx.blobs.put(`${dir}/transcript_srt`, '1\n00:00:00,000 --> 00:00:02,000\nBees make honey.\n', 'application/x-subrip');
  await ctx.blobs.put(`${dir}/transcript_words`, JSON.stringify({ version: 2, language: 'en', duration: 60, segments: [] }), 'application/json');
  await ctx.blobs.put(`${dir}/summary`, JSON.stringify(doc), 'application/json');
}

const complete = (fence: Awaited<ReturnType<typeof queued>>['fence']) =>
  completeAttempt(ctx, {
    ...fence,
    job_type: 'summarize',
    media: audio,
    language: 'en',
    outputs: [
      { name: 'transcript_srt', bytes: 40 },
      { name: 'transcript_words', bytes: 60 },
      { name: 'summary', bytes: 500 },
    ],
  } as CompleteRequest);

describe('summarize (engine)', () => {
  it('is priced by media kind and takes no query', async () => {
    const c = await creds();
    const a = await createJobCall(ctx, c, { job_type: 'summarize', filename: 'a.mp3', content_type: 'audio/mpeg' });
    const v = await createJobCall(ctx, c, { job_type: 'summarize', filename: 'v.mp4', content_type: 'video/mp4' });
    expect([a.value.price_cents, v.value.price_cents]).toEqual([75, 125]);
    expect(a.value.next_endpoint).toBe('upload-url');
    await expect(createJobCall(ctx, c, { job_type: 'summarize', filename: 'a.mp3', content_type: 'audio/mpeg', query: 'bees' })).rejects.toThrow(
      /query does not apply to job_type summarize: .*use find_clips with a query/,
    );
  });

  it('is claimed as understand work with its three outputs, moves through analyzing and completes with a summary and a transcript', async () => {
    const { assignment, fence } = await queued();
    expect(assignment).toMatchObject({ job_type: 'summarize', kind: 'understand', params: { language: 'en' } });
    expect(Object.keys(assignment.outputs).sort()).toEqual(['summary', 'transcript_srt', 'transcript_words']);
    await reportStage(ctx, { ...fence, stage: 'transcribing', media: audio });
    await reportStage(ctx, { ...fence, stage: 'analyzing' });
    await writeOutputs(fence, summary);
    await complete(fence);
    const job = await jobRow(ctx, fence.job_id);
    expect(job).toMatchObject({ status: 'completed', durationSeconds: 60 });
    expect(job.expiresAt!.getTime() - job.completedAt!.getTime()).toBe(24 * 3600_000);
    const outputs = await ctx.db.select().from(jobOutputs).where(eq(jobOutputs.jobId, fence.job_id));
    expect(outputs.map((o) => [o.role, o.contentType]).sort()).toEqual([
      ['summary', 'application/json'],
      ['transcript', 'application/x-subrip'],
    ]);
  });

  it('fails a summary that does not match summary v1 (refunded), and a video paid as audio at the probe', async () => {
    const bad = await queued();
    await reportStage(ctx, { ...bad.fence, stage: 'transcribing', media: audio });
    await reportStage(ctx, { ...bad.fence, stage: 'analyzing' });
    await writeOutputs(bad.fence, { ...summary, key_points: [{ text: '', source: 'invented' }] });
    await expect(complete(bad.fence)).rejects.toThrow(/summary does not match its schema/);
    expect(await jobRow(ctx, bad.fence.job_id)).toMatchObject({ status: 'failed', paymentStatus: 'refunded', errorCode: 'output_invalid' });

    const video = await queued();
    await expect(reportStage(ctx, { ...video.fence, stage: 'transcribing', media: { ...audio, has_video: true } })).rejects.toThrow(/no longer holds/);
    expect(await jobRow(ctx, video.fence.job_id)).toMatchObject({ status: 'failed', paymentStatus: 'refunded', errorCode: 'media_kind_mismatch' });
  });
});
