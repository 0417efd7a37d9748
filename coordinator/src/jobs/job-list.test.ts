import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { JobStatus, JobType } from '@cutroom/shared/job-types';
import { jobs } from '../db/schema.ts';
import { createJobCall, createSessionCall, listJobsCall } from '../service/index.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { decodeCursor, encodeCursor } from './job-list.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000);
afterAll(async () => {
  await ctx.close();
});
beforeEach(async () => {
  await ctx.reset();
});

type Creds = Awaited<ReturnType<typeof creds>>;
async function creds() {
  const s = await createSessionCall(ctx);
  return {
    bearer: s.session_token,
    authorization: `Bearer ${s.session_token}`,
    paymentSignature: undefined,
    resourceUrl: 'http://test/',
    sessionId: s.session_id,
  };
}

/** A job row of the session, created now (the manual clock: several jobs may share a millisecond). */
async function insertJob(c: Creds, o: { type?: JobType; status?: JobStatus; source?: string; bundle?: string } = {}): Promise<string> {
  const id = randomUUID();
  const now = ctx.clock.now();
  await ctx.db.insert(jobs).values({
    id,
    sessionId: c.sessionId,
    jobType: o.type ?? 'transcribe',
    status: o.status ?? 'completed',
    paymentStatus: 'paid',
    originalFilename: 'talk.wav',
    contentType: 'audio/wav',
    mediaKind: 'audio',
    priceCents: 50,
    params: {},
    sourceJobId: o.source ?? null,
    parentJobId: o.bundle ?? null,
    createdAt: now,
    updatedAt: now,
  });
  return id;
}

/** Every job of the listing, page by page, with the pages' sizes. */
async function allPages(c: Creds, q: Parameters<typeof listJobsCall>[2]): Promise<{ ids: string[]; pages: number[] }> {
  const ids: string[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await listJobsCall(ctx, c, { ...q, ...(cursor && { cursor }) });
    ids.push(...page.jobs.map((j) => j.job_id));
    pages.push(page.jobs.length);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return { ids, pages };
}

describe('the job list (GET /jobs, MCP list_jobs) on PGlite', () => {
  it('lists a new session as empty, and a created job with the Job fields but no outputs', async () => {
    const c = await creds();
    expect(await listJobsCall(ctx, c, {})).toEqual({ jobs: [], next_cursor: null });
    const created = await createJobCall(ctx, c, { job_type: 'transcribe', filename: 'a.mp3', content_type: 'audio/mpeg' });
    const { jobs: listed, next_cursor } = await listJobsCall(ctx, c, {});
    expect(next_cursor).toBeNull();
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({
      job_id: created.value.job_id,
      session_id: c.sessionId,
      job_type: 'transcribe',
      status: 'uploading',
      payment_status: 'paid',
    });
    expect(listed[0]).not.toHaveProperty('outputs');
  });

  it('pages newest first by position: every job once, none skipped, also within one millisecond', async () => {
    const c = await creds();
    const made: string[] = [];
    // Three jobs share each instant (the clock stands still between them), then time moves.
    for (let i = 0; i < 7; i++) {
      made.push(await insertJob(c));
      if (i % 3 === 2) ctx.clock.advance(1_000);
    }
    const { ids, pages } = await allPages(c, { limit: 2 });
    expect(pages).toEqual([2, 2, 2, 1]);
    expect(new Set(ids).size).toBe(7);
    expect(ids.sort()).toEqual([...made].sort());
    // Newest first: the listing's creation times never increase.
    const listed = (await listJobsCall(ctx, c, { limit: 100 })).jobs;
    const times = listed.map((j) => Date.parse(j.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(listed[0]!.job_id).toBe(made[6]);
    // The default page is 20; a last page that is exactly full says there is no next page.
    expect((await listJobsCall(ctx, c, { limit: 7 })).next_cursor).toBeNull();
  });

  it('does not shift pages when jobs are created while the caller pages', async () => {
    const c = await creds();
    for (let i = 0; i < 4; i++) {
      await insertJob(c);
      ctx.clock.advance(10);
    }
    const first = await listJobsCall(ctx, c, { limit: 2 });
    await insertJob(c);
    await insertJob(c);
    const second = await listJobsCall(ctx, c, { limit: 2, cursor: first.next_cursor! });
    const seen = [...first.jobs, ...second.jobs].map((j) => j.job_id);
    expect(new Set(seen).size).toBe(4);
    expect(second.next_cursor).toBeNull();
  });

  it('filters by status, type, source job, bundle and creation time, combined with AND', async () => {
    const c = await creds();
    const parent = await insertJob(c, { type: 'find_clips' });
    ctx.clock.advance(60_000);
    const cut = await insertJob(c, { type: 'extract_clip', source: parent });
    const failedCut = await insertJob(c, { type: 'extract_clip', source: parent, status: 'failed' });
    const bundle = await insertJob(c, { type: 'clips_vertical', source: parent, status: 'analyzing' });
    const clip1 = await insertJob(c, { type: 'extract_vertical_clip', source: parent, bundle, status: 'pending' });
    const clip2 = await insertJob(c, { type: 'extract_vertical_clip', source: parent, bundle, status: 'completed' });
    ctx.clock.advance(60_000);
    const later = await insertJob(c, { type: 'transcribe', status: 'transcribing' });
    const ids = async (q: Parameters<typeof listJobsCall>[2]) => (await allPages(c, q)).ids.sort();

    expect(await ids({ status: 'failed' })).toEqual([failedCut]);
    expect(await ids({ job_type: 'extract_clip' })).toEqual([cut, failedCut].sort());
    expect(await ids({ source_job_id: parent })).toEqual([cut, failedCut, bundle, clip1, clip2].sort());
    expect(await ids({ bundle_job_id: bundle })).toEqual([clip1, clip2].sort());
    expect(await ids({ bundle_job_id: bundle, status: 'completed' })).toEqual([clip2]);
    const t0 = new Date('2026-11-01T00:00:00Z').getTime();
    expect(await ids({ created_before: new Date(t0 + 60_000).toISOString() })).toEqual([parent]);
    expect(await ids({ created_after: new Date(t0 + 120_000).toISOString() })).toEqual([later]);
    // Bounds in another zone's notation mean the same instant.
    expect(await ids({ created_after: '2026-11-01T01:01:00+01:00', created_before: '2026-11-01T00:02:00Z' })).toEqual(
      [cut, failedCut, bundle, clip1, clip2].sort(),
    );
  });

  it("never shows another session's jobs, whatever the cursor says", async () => {
    const alice = await creds();
    const bob = await creds();
    const bobs = [await insertJob(bob), await insertJob(bob)];
    ctx.clock.advance(1_000);
    const alices = [await insertJob(alice)];
    expect((await allPages(alice, {})).ids).toEqual(alices);
    // Bob's cursor (or one forged to point past Bob's jobs) only positions Alice's listing.
    const bobsFirst = await listJobsCall(ctx, bob, { limit: 1 });
    expect((await listJobsCall(ctx, alice, { cursor: bobsFirst.next_cursor! })).jobs).toEqual([]);
    const forged = encodeCursor({ at: new Date('2030-01-01T00:00:00Z'), id: 'ffffffff-ffff-4fff-bfff-ffffffffffff' });
    expect((await listJobsCall(ctx, alice, { cursor: forged })).jobs.map((j) => j.job_id)).toEqual(alices);
    expect((await allPages(bob, {})).ids.sort()).toEqual(bobs.sort());
  });

  it('refuses a cursor it did not write (400) and a call without a session (401)', async () => {
    const c = await creds();
    for (const bad of ['not a cursor!', 'AAAA', Buffer.from('123.not-a-uuid').toString('base64url'), Buffer.from('x.y').toString('base64url')]) {
      await expect(listJobsCall(ctx, c, { cursor: bad })).rejects.toMatchObject({ code: 'invalid_request' });
    }
    await expect(listJobsCall(ctx, { ...c, bearer: null, authorization: undefined }, {})).rejects.toMatchObject({ code: 'unauthenticated' });
    await expect(listJobsCall(ctx, { ...c, bearer: 'cr_sess_nope', authorization: 'Bearer cr_sess_nope' }, {})).rejects.toMatchObject({
      code: 'unauthenticated',
    });
    const round = { at: new Date('2026-11-01T00:00:01.234Z'), id: randomUUID() };
    expect(decodeCursor(encodeCursor(round))).toEqual(round);
  });
});
