import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Assignment } from '@cutroom/proto';
import { claimJob } from '../agents/claim.ts';
import { completeAttempt, reportStage } from '../agents/attempts.ts';
import { completeUploadCall, createJobCall, createSessionCall, uploadUrlCall } from '../service/index.ts';
import type { LocalBlobStore } from '../storage/local-blob-store.ts';
import { registerLocalBlobRoutes } from '../storage/local-blob-routes.ts';
import { leasePass } from '../sweeper/lease-pass.ts';
import { sweepOnce, sweepPolicy } from '../sweeper/sweeper.ts';
import { createEngineCtx, jobRow, type EngineCtx } from '../testing/engine-ctx.ts';
import { jobBlobWriteCheck } from './blob-write-guard.ts';
import { wavBytes } from '@cutroom/shared/testing/media-bytes';

// The local store's routes with the job check the coordinator injects: a signed PUT writes only
// while what it was signed for is still open.
let ctx: EngineCtx;
let app: FastifyInstance;
beforeAll(async () => {
  ctx = await createEngineCtx();
  app = Fastify();
  registerLocalBlobRoutes(app, ctx.blobs as LocalBlobStore, { acceptsWrite: jobBlobWriteCheck(ctx.db) });
  await app.ready();
}, 60_000);
afterAll(async () => {
  await app?.close();
  await ctx?.close();
});

const put = (url: string, body: string | Buffer, contentType: string) => {
  const u = new URL(url);
  return app.inject({ method: 'PUT', url: u.pathname + u.search, payload: body, headers: { 'content-type': contentType } });
};

async function caller() {
  const session = await createSessionCall(ctx);
  return { bearer: session.session_token, authorization: `Bearer ${session.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' };
}

async function claim(jobId: string, agentId: string): Promise<Assignment> {
  const r = await claimJob(ctx, { v: 1, job_id: jobId, agent_id: agentId });
  if (!r.claimed) throw new Error(`not claimed: ${r.reason}`);
  return r.assignment;
}

describe('local PUT guarded by the job (PGlite, manual clock)', () => {
  it('accepts the upload while the job is uploading and refuses it once the job left uploading', async () => {
    const c = await caller();
    const id = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' })).value.job_id;
    const { upload_url } = (await uploadUrlCall(ctx, c, id)).value;
    expect((await put(upload_url, wavBytes(), 'audio/wav')).statusCode).toBe(200);
    await completeUploadCall(ctx, c, id);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'extracting_audio', fileSize: wavBytes().length });

    // The URL is still valid for an hour, but the job is queued: nothing may replace its input.
    const late = await put(upload_url, 'RIFF something else entirely', 'audio/wav');
    expect(late.statusCode).toBe(409);
    expect(late.json()).toEqual({ error: `the upload of job ${id} is closed (status extracting_audio); nothing was stored` });
    expect(await ctx.blobs.getBytes(`jobs/${id}/source`)).toEqual(wavBytes());
    expect(await ctx.blobs.head(`jobs/${id}/upload`)).toBeNull();
  });

  it('accepts outputs only from the attempt that holds the job, and none once it completed', async () => {
    const c = await caller();
    const id = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' })).value.job_id;
    await ctx.blobs.put(`jobs/${id}/upload`, wavBytes(), 'audio/wav');
    await completeUploadCall(ctx, c, id);
    const stale = await claim(id, 'frozen');
    ctx.clock.advance(30_001);
    await sweepOnce(ctx, [leasePass(sweepPolicy(ctx.config))]);
    const live = await claim(id, 'rescuer');
    const srt = '1\n00:00:00,000 --> 00:00:01,000\nhi\n';
    const words = JSON.stringify({ version: 2, language: 'en', duration: 1, segments: [] });

    const refused = await put(stale.outputs.transcript_srt!.put_url, 'zombie', 'application/x-subrip');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error).toMatch(new RegExp(`attempt ${stale.attempt_id} no longer holds job ${id}`));
    expect(await ctx.blobs.head(stale.outputs.transcript_srt!.key)).toBeNull();

    expect((await put(live.outputs.transcript_srt!.put_url, srt, 'application/x-subrip')).statusCode).toBe(200);
    expect((await put(live.outputs.transcript_words!.put_url, words, 'application/json')).statusCode).toBe(200);
    const fence = { v: 1 as const, job_id: id, attempt_id: live.attempt_id, agent_id: 'rescuer' };
    const media = { duration_seconds: 1, has_audio: true, has_video: false, format_name: 'wav' };
    await reportStage(ctx, { ...fence, stage: 'transcribing', media });
    await completeAttempt(ctx, { ...fence, job_type: 'transcribe', media, language: 'en', outputs: [] });
    expect((await put(live.outputs.transcript_srt!.put_url, 'again', 'application/x-subrip')).statusCode).toBe(409);
    expect((await ctx.blobs.getBytes(live.outputs.transcript_srt!.key)).toString()).toBe(srt);
  });

  it('leaves keys outside any job to the signature alone', async () => {
    const url = await ctx.blobs.presignPut('health/probe', { expiresInSeconds: 60, contentType: 'text/plain' });
    expect((await put(url, 'ok', 'text/plain')).statusCode).toBe(200);
  });
});
