import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentProduct } from '@cutroom/shared/products';
import { jobs, outbox } from '../../db/schema.ts';
import { completeUploadCall, createProductCall, getJobCall, uploadUrlCall } from '../../service/index.ts';
import { createEngineCtx, jobRow, type EngineCtx } from '../../testing/engine-ctx.ts';
import { candidate, clipsOf, completeFindClips, endChild, productCreds } from '../../testing/product-kit.ts';
import { compositeRuns, driveComposite, STEP_LEASE_MS, STEP_RETRY_MS } from '../steps.ts';
import { runProductStep } from './product-steps.ts';
import { mp4Bytes } from '@cutroom/shared/testing/media-bytes';

/**
 * Agent products with billing off (the zero-config default: free, like every job type): the
 * steps as the database decides them. Children end as end-attempt / fail-job end them (the kit),
 * so each due step is run here by driveComposite, as the durable-step worker would once nudged.
 */
describe('agent products, billing off: the steps', () => {
  let ctx: EngineCtx;
  beforeAll(async () => {
    ctx = await createEngineCtx();
  }, 60_000);
  afterAll(async () => {
    await ctx?.close();
  });

  async function uploaded(product: AgentProduct, req: Record<string, unknown> = {}) {
    const c = await productCreds(ctx);
    const { value } = await createProductCall(ctx, c, product, { filename: 'talk.mp4', content_type: 'video/mp4', ...req } as never);
    expect(value).toEqual({ job_id: expect.any(String), job_type: product, payment_status: 'paid', price_cents: 450, next_endpoint: 'upload-url' });
    expect((await uploadUrlCall(ctx, c, value.job_id)).value.upload_url).toContain(`jobs/${value.job_id}/upload`);
    await ctx.blobs.put(`jobs/${value.job_id}/upload`, mp4Bytes(), 'video/mp4');
    expect((await completeUploadCall(ctx, c, value.job_id)).value).toEqual({ job_id: value.job_id, status: 'processing' });
    const findId = ((await jobRow(ctx, value.job_id)).params['find_clips'] as { job_id: string }).job_id;
    return { c, id: value.job_id, findId };
  }

  it('complete-upload hands the upload to a find_clips child it starts; the product itself waits in analyzing', async () => {
    const { c, id, findId } = await uploaded('clips_from_video', { query: 'bees' });
    expect(await jobRow(ctx, id)).toMatchObject({
      status: 'analyzing',
      paymentStatus: 'paid',
      amountPaidCents: 0,
      fileSize: mp4Bytes().length,
      progress: expect.objectContaining({ stage: 'find_clips' }),
    });
    expect(await jobRow(ctx, findId)).toMatchObject({
      jobType: 'find_clips',
      status: 'extracting_audio',
      paymentStatus: 'paid_by_parent',
      parentJobId: id,
      sessionId: c.sessionId,
      sourceKey: `jobs/${findId}/source`,
      priceCents: 200,
      params: expect.objectContaining({ query: 'bees' }),
    });
    // Moved in the store: the child's source is the upload, and no URL writes it.
    expect(await ctx.blobs.head(`jobs/${id}/upload`)).toBeNull();
    expect((await ctx.blobs.head(`jobs/${findId}/source`))?.size).toBe(mp4Bytes().length);
    const wakeups = async (jobId: string) => (await ctx.db.select().from(outbox)).filter((r) => (r.payload as { job_id: string }).job_id === jobId).length;
    expect([await wakeups(findId), await wakeups(id)]).toEqual([1, 0]);
    // Repeating complete-upload starts nothing twice.
    expect((await completeUploadCall(ctx, c, id)).value.status).toBe('processing');
    expect((await ctx.db.select().from(jobs).where(eq(jobs.parentJobId, id))).length).toBe(1);
    const view = await getJobCall(ctx, c, id);
    expect(view).toMatchObject({ job_type: 'clips_from_video', status: 'analyzing', outputs: [] });
    expect(view.children).toEqual([
      {
        index: 0,
        job_id: findId,
        job_type: 'find_clips',
        candidate_id: null,
        start: 0,
        end: 0,
        title: null,
        status: 'extracting_audio',
        payment_status: 'paid_by_parent',
        error_message: null,
      },
    ]);
    // Nobody claims the product: past the re-publish period its child gets a new wake-up, it gets none.
    await ctx.db.update(outbox).set({ publishedAt: ctx.clock.now() });
    ctx.clock.advance(10 * 60_000);
    const { sweepOnce } = await import('../../sweeper/sweeper.ts');
    await sweepOnce(ctx);
    expect([await wakeups(findId), await wakeups(id)]).toEqual([2, 0]);
  });

  it('asks its find_clips child for short candidates when the profile takes 60 s at most (stories), the default otherwise', async () => {
    const targetOf = async (product: AgentProduct, req: Record<string, unknown>) => (await jobRow(ctx, (await uploaded(product, req)).findId)).params['target'];
    expect(await targetOf('clips_from_video', { profile: 'vidB-stories' })).toBe('short');
    expect(await targetOf('clips_from_video', { profile: 'vidB-reels' })).toBeUndefined();
    expect(await targetOf('clips_from_video', {})).toBeUndefined();
    expect(await targetOf('clips_youtube', {})).toBeUndefined();
  });

  it('cuts the best max_clips candidates by score (trimmed to the profile cap) once, and completes with what was delivered', async () => {
    const { c, id, findId } = await uploaded('clips_from_video', { max_clips: 2, profile: 'vidB-reels', aspect: '1:1', subject: 'auto' });
    await completeFindClips(ctx, findId, [candidate('c1', 60, 10, 140), candidate('c2', 90, 100, 390), candidate('c3', 75, 0, 130)]);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'analyzing', stepDueAt: ctx.clock.now() });
    expect(await driveComposite(ctx, id)).toEqual(['cut']);
    const [k1, k2] = await clipsOf(ctx, id);
    expect(k1).toMatchObject({
      jobType: 'extract_vertical_clip',
      status: 'analyzing',
      paymentStatus: 'paid_by_parent',
      sourceJobId: findId,
      parentJobId: id,
      priceCents: 50,
      originalFilename: 'talk.clip1.vertical.mp4',
      params: expect.objectContaining({ start: 100, end: 280, profile: 'vidB-reels', aspect: '1:1', subject: 'auto', title: 'Moment c2' }),
    });
    expect(k2!.params).toMatchObject({ start: 0, end: 130, aspect: '1:1', title: 'Moment c3' });
    expect(await jobRow(ctx, id)).toMatchObject({ stepDueAt: null, progress: expect.objectContaining({ stage: 'clips', fraction: 0 }) });
    // Repeated: nothing is due; a stale marker (a crash after the cut) clears without cutting twice.
    expect(await driveComposite(ctx, id)).toEqual([]);
    await ctx.db.update(jobs).set({ stepDueAt: ctx.clock.now() }).where(eq(jobs.id, id));
    expect(await driveComposite(ctx, id)).toEqual(['cleared']);
    expect((await clipsOf(ctx, id)).length).toBe(2);

    await endChild(ctx, k1!.id, true);
    expect(await jobRow(ctx, id)).toMatchObject({ status: 'analyzing', stepDueAt: null, progress: expect.objectContaining({ stage: 'clips', fraction: 0.5 }) });
    await endChild(ctx, k2!.id, false);
    expect((await jobRow(ctx, id)).params['settle']).toEqual({
      capture_cents: 250,
      outcome: 'completed',
      delivered: 1,
      message: expect.stringMatching(/^1 of 2 clips failed and were not charged .*clip 2: /),
    });
    expect(await driveComposite(ctx, id)).toEqual(['settled']);
    const done = await jobRow(ctx, id);
    expect(done).toMatchObject({ status: 'completed', paymentStatus: 'paid', amountPaidCents: 0, stepDueAt: null, progress: null });
    expect(done.expiresAt!.getTime() - done.completedAt!.getTime()).toBe(72 * 3600_000);
    const view = await getJobCall(ctx, c, id);
    expect(view.error_message).toMatch(/^1 of 2 clips failed and were not charged/);
    expect(view.children!.map((x) => [x.index, x.job_type, x.candidate_id, x.status])).toEqual([
      [0, 'find_clips', null, 'completed'],
      [1, 'extract_vertical_clip', 'c2', 'completed'],
      [2, 'extract_vertical_clip', 'c3', 'failed'],
    ]);
    expect(view.children![0]!.end).toBe(400);
    expect(view.outputs.map((o) => [o.role, o.job_id])).toEqual([['clips', findId]]);
  });

  it('a recording without candidates completes with no clips and nothing charged; clips_youtube cuts 16:9 extract_clip children', async () => {
    const none = await uploaded('clips_youtube');
    await completeFindClips(ctx, none.findId, []);
    expect(await driveComposite(ctx, none.id)).toEqual(['cut', 'settled']);
    expect(await jobRow(ctx, none.id)).toMatchObject({
      status: 'completed',
      params: expect.objectContaining({ quantity: 0, clips: [], settle: expect.objectContaining({ capture_cents: 0, delivered: 0 }) }),
      errorMessage: expect.stringMatching(/^no clips were cut: the recording has no clip candidates; nothing was charged/),
    });

    const yt = await uploaded('clips_youtube', { max_clips: 1 });
    await completeFindClips(ctx, yt.findId, [candidate('c1', 50, 10, 300), candidate('c2', 40, 0, 200)]);
    expect(await driveComposite(ctx, yt.id)).toEqual(['cut']);
    const [k] = await clipsOf(ctx, yt.id);
    expect(k).toMatchObject({ jobType: 'extract_clip', originalFilename: 'talk.clip1.clip.mp4' });
    // Native framing: the whole candidate, one segment; no transcript to re-time (the child has none here).
    expect(k!.params).toMatchObject({ segments: [{ start: 10, end: 300, label: 'Moment c1' }], include_transcript: false });
  });

  it('find_clips failed: the product fails (refunded) in the same transaction and cuts nothing', async () => {
    const { c, id, findId } = await uploaded('clips_from_video');
    await ctx.db.update(jobs).set({ status: 'analyzing' }).where(eq(jobs.id, findId));
    await endChild(ctx, findId, false);
    expect(await jobRow(ctx, id)).toMatchObject({
      status: 'failed',
      paymentStatus: 'refunded',
      errorCode: 'media_invalid',
      errorMessage: expect.stringMatching(/^finding the clips failed, so none were cut and nothing was charged/),
      params: expect.objectContaining({ settle: { capture_cents: 0, outcome: 'ended', delivered: 0, message: null } }),
    });
    expect(await driveComposite(ctx, id)).toEqual(['settled']);
    expect(await jobRow(ctx, id)).toMatchObject({
      status: 'failed',
      stepDueAt: null,
      params: expect.objectContaining({ settled: { captured_cents: 0, released_cents: 0 } }),
    });
    expect((await getJobCall(ctx, c, id)).children!.map((x) => [x.job_type, x.status, x.payment_status])).toEqual([['find_clips', 'failed', 'refunded']]);
  });

  it('a due step runs under one lease: another replica skips it, a runner whose lease passed writes nothing, the one that took it over runs it', async () => {
    const { id, findId } = await uploaded('clips_from_video');
    await completeFindClips(ctx, findId, [candidate('c1', 60, 10, 140)]);
    const kind = compositeRuns();
    const a = (await kind.lease(ctx, 'replica-a', 10)).find((r) => r.id === id)!;
    expect(a).toBeDefined();
    expect(await jobRow(ctx, id)).toMatchObject({ stepLeaseOwner: 'replica-a', stepLeaseUntil: new Date(ctx.clock.now().getTime() + STEP_LEASE_MS) });
    // Held: neither another replica nor a direct run takes it.
    expect((await kind.lease(ctx, 'replica-b', 10)).map((r) => r.id)).not.toContain(id);
    expect(await driveComposite(ctx, id)).toEqual([]);
    // Replica A stalls past its lease; B takes it over. A's late write is refused (fenced), B's is taken.
    ctx.clock.advance(STEP_LEASE_MS + 1);
    const b = (await kind.lease(ctx, 'replica-b', 10)).find((r) => r.id === id)!;
    expect(b).toBeDefined();
    expect(await runProductStep(ctx, await jobRow(ctx, id), 'replica-a')).toBe('raced');
    expect(await clipsOf(ctx, id)).toEqual([]);
    expect(await b.run()).toBe('cut');
    expect((await clipsOf(ctx, id)).length).toBe(1);
    expect(await jobRow(ctx, id)).toMatchObject({ stepDueAt: null, stepLeaseOwner: null, stepLeaseUntil: null });
    // A wakes up: it holds nothing, so it does nothing.
    expect(await a.run()).toBe('nothing due');
    expect((await clipsOf(ctx, id)).length).toBe(1);
  });

  it('a step that fails is postponed by STEP_RETRY_MS with its lease given back, then runs', async () => {
    const { id, findId } = await uploaded('clips_from_video');
    await completeFindClips(ctx, findId, [candidate('c1', 60, 10, 140)]);
    const params = (await jobRow(ctx, id)).params;
    // The step cannot read its find_clips child (here: a reference to no row): it throws.
    await ctx.db
      .update(jobs)
      .set({ params: { ...params, find_clips: { ...(params['find_clips'] as object), job_id: '00000000-0000-4000-8000-000000000000' } } })
      .where(eq(jobs.id, id));
    await expect(driveComposite(ctx, id)).rejects.toThrow(/has no find_clips child/);
    expect(await jobRow(ctx, id)).toMatchObject({ stepDueAt: new Date(ctx.clock.now().getTime() + STEP_RETRY_MS), stepLeaseOwner: null });
    await ctx.db.update(jobs).set({ params }).where(eq(jobs.id, id));
    expect(await driveComposite(ctx, id)).toEqual([]);
    ctx.clock.advance(STEP_RETRY_MS);
    expect(await driveComposite(ctx, id)).toEqual(['cut']);
  });
});
