import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobCall, createSessionCall, completeUploadCall, uploadUrlCall } from '../service/index.ts';
import { createEngineCtx, jobRow, type EngineCtx } from '../testing/engine-ctx.ts';
import { wavBytes } from '@cutroom/shared/testing/media-bytes';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000); // PGlite runs the migrations: seconds on a busy machine
afterAll(async () => {
  await ctx.close();
});

async function creds() {
  const s = await createSessionCall(ctx);
  return { bearer: s.session_token, authorization: `Bearer ${s.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' };
}

describe('job creation through the service layer (billing off, PGlite)', () => {
  it('creates a transcribe job prepaid, priced by media kind, ready for upload', async () => {
    const c = await creds();
    const audio = await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.mp3', content_type: 'Audio/MPEG; codecs=mp3' });
    expect(audio.value).toMatchObject({ job_type: 'transcribe', payment_status: 'paid', price_cents: 50, next_endpoint: 'upload-url' });
    expect(await jobRow(ctx, audio.value.job_id)).toMatchObject({
      status: 'uploading',
      contentType: 'audio/mpeg',
      mediaKind: 'audio',
      priceCents: 50,
      priceChainUnits: 200_000n,
      amountPaidCents: 0,
    });
    const video = await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'v.mp4', content_type: 'video/mp4', language: 'de' });
    expect(video.value.price_cents).toBe(100);
    expect((await jobRow(ctx, video.value.job_id)).params).toMatchObject({ language: 'de' });
  });

  it('refuses what the type’s definition does not take, naming it', async () => {
    const c = await creds();
    await expect(
      createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.mp3', content_type: 'audio/mpeg', segments: [{ start: 0, end: 1 }] }),
    ).rejects.toThrow('segments does not apply to job_type transcribe');
    await expect(createJobCall(ctx, c, { job_type: 'transcribe', content_type: 'audio/mpeg' })).rejects.toThrow(/filename is required/);
    await expect(createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.pdf', content_type: 'application/pdf' })).rejects.toMatchObject({
      code: 'unsupported_media',
    });
    // publish_video (run by the coordinator) on a server without a video host: refused first, naming the settings.
    await expect(createJobCall(ctx, c, { job_type: 'publish_video', filename: 'a.mp4', content_type: 'video/mp4' })).rejects.toThrow(
      /publishing is not configured on this server.*VIDEO_HOST_CLIENT_ID/,
    );
  });

  it('needs a session when billing is off, and names the next call without naming a REST route', async () => {
    const err = await createJobCall(
      ctx,
      { bearer: null, authorization: undefined, paymentSignature: undefined, resourceUrl: 'http://test/' },
      { job_type: 'transcribe', filename: 'a.mp3', content_type: 'audio/mpeg' },
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'unauthenticated', next: { call: 'create_session' } });
    expect((err as Error).message).not.toMatch(/\/api\/v1/);
  });

  it('queues the job at its type’s first stage once the upload is complete, exactly once', async () => {
    const c = await creds();
    const created = await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' });
    const id = created.value.job_id;
    expect((await uploadUrlCall(ctx, c, id)).value.upload_url).toMatch(/^http/);
    await expect(completeUploadCall(ctx, c, id)).rejects.toMatchObject({ code: 'upload_missing', next: { call: 'upload_url', jobId: id } });
    await ctx.blobs.put(`jobs/${id}/upload`, wavBytes(), 'audio/wav');
    const before = ctx.notified.outbox;
    expect((await completeUploadCall(ctx, c, id)).value).toEqual({ job_id: id, status: 'processing' });
    expect((await completeUploadCall(ctx, c, id)).value).toEqual({ job_id: id, status: 'processing' });
    expect(ctx.notified.outbox).toBe(before + 1);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'extracting_audio', fileSize: wavBytes().length });
  });

  it('refuses at complete-upload a file that is not audio or video, at once, and keeps the job open for the right file', async () => {
    const c = await creds();
    const id = (await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' })).value.job_id;
    await ctx.blobs.put(`jobs/${id}/upload`, Buffer.from('Agenda\n1. budget\n2. hiring\n'), 'audio/wav');
    const before = ctx.notified.outbox;
    await expect(completeUploadCall(ctx, c, id)).rejects.toMatchObject({
      code: 'unsupported_media',
      status: 400,
      message: expect.stringMatching(/^the uploaded file is text, not audio or video \(declared audio\/wav\): PUT the recording/),
      next: { call: 'upload_url', jobId: id },
    });
    // Nothing queued, nothing committed; the bad upload is gone and the job still takes one.
    expect(ctx.notified.outbox).toBe(before);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'uploading', paymentStatus: 'paid' });
    expect(await ctx.blobs.head(`jobs/${id}/upload`)).toBeNull();
    expect(await ctx.blobs.head(`jobs/${id}/source`)).toBeNull();
    await ctx.blobs.put(`jobs/${id}/upload`, wavBytes(), 'audio/wav');
    expect((await completeUploadCall(ctx, c, id)).value).toEqual({ job_id: id, status: 'processing' });
  });
});
