import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStatus } from '@cutroom/shared/job-types';
import type { Ctx } from '../context.ts';
import { jobEvents, jobs } from '../db/schema.ts';
import { claimJob } from '../agents/claim.ts';
import { addAgent, createEngineCtx, queueTranscribeJob, type EngineCtx } from '../testing/engine-ctx.ts';
import { failJob } from './fail-job.ts';
import { streamJobEvents, type JobStreamEvent } from './job-stream.ts';
import { transitionJob } from './transition-job.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000); // PGlite runs the migrations: seconds on a busy machine
afterAll(async () => {
  await ctx.close();
});

const POLL = 20;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const move = (jobId: string, from: JobStatus, to: JobStatus) =>
  ctx.db.transaction((tx) => transitionJob(tx, { jobId, from, to, reason: `test: ${to}`, now: ctx.clock.now() }));
const setProgress = (jobId: string, stage: string, fraction: number) =>
  ctx.db
    .update(jobs)
    .set({ progress: { stage, fraction, at: new Date().toISOString() } })
    .where(eq(jobs.id, jobId));
const eventRows = (jobId: string) => ctx.db.select().from(jobEvents).where(eq(jobEvents.jobId, jobId)).orderBy(asc(jobEvents.id));

/** Reads a stream in the background; `until` resolves once an event matching it has arrived. */
function collect(c: Ctx, jobId: string, opts: { afterEventId?: string; pollMs?: number } = {}) {
  const ac = new AbortController();
  const seen: JobStreamEvent[] = [];
  const waiters: { match: (e: JobStreamEvent) => boolean; resolve: () => void }[] = [];
  const done = (async () => {
    for await (const e of streamJobEvents(c, jobId, { pollMs: POLL, ...opts, signal: ac.signal })) {
      seen.push(e);
      for (const w of waiters.filter((x) => x.match(e))) w.resolve();
    }
  })();
  const until = (match: (e: JobStreamEvent) => boolean) =>
    seen.some(match) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ match, resolve }));
  return { seen, done, until, abort: () => ac.abort() };
}

/** The Ctx with its database calls counted: how many reads the streams cost. */
function countingCtx(): { ctx: Ctx; selects: () => number } {
  let n = 0;
  const db = new Proxy(ctx.db, {
    get(target, prop) {
      const v = Reflect.get(target, prop, target);
      if (prop === 'select') n++;
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { ctx: { ...ctx, db }, selects: () => n };
}

describe('streamJobEvents (PGlite)', () => {
  it('yields every status change in id order, then end once the job completes', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const s = collect(ctx, jobId);
    await s.until((e) => e.type === 'status' && e.status === 'extracting_audio');
    await addAgent(ctx, 'render-host-7');
    expect(await claimJob(ctx, { v: 1, job_id: jobId, agent_id: 'render-host-7' })).toMatchObject({ claimed: true });
    await move(jobId, 'extracting_audio', 'transcribing');
    await move(jobId, 'transcribing', 'completed');
    await s.done;
    const rows = await eventRows(jobId);
    // The claim is a row of its own; its reason names the agent, which callers are not shown.
    expect(rows.map((r) => [r.toStatus, r.reason])).toContainEqual(['extracting_audio', 'claimed by render-host-7']);
    expect(rows.map((r) => r.toStatus)).toEqual(['pending', 'uploading', 'extracting_audio', 'extracting_audio', 'transcribing', 'completed']);
    expect(s.seen.filter((e) => e.type === 'status')).toEqual(
      rows.map((r) => ({
        type: 'status',
        id: String(r.id),
        job_id: jobId,
        status: r.toStatus,
        from: r.fromStatus,
        reason: r.reason.startsWith('claimed by') ? 'claimed' : r.reason,
        at: r.createdAt.toISOString(),
        payment_status: 'paid',
        error_message: null,
      })),
    );
    expect(s.seen.at(-1)).toEqual({ type: 'end', job_id: jobId, status: 'completed' });
  });

  it('resumes after an event id with exactly the later rows, and ends at once for an ended job', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    await move(jobId, 'extracting_audio', 'transcribing');
    await move(jobId, 'transcribing', 'completed');
    const rows = await eventRows(jobId);
    const s = collect(ctx, jobId, { afterEventId: String(rows[1]!.id) });
    await s.done;
    expect(s.seen.map((e) => (e.type === 'status' ? e.id : e.type))).toEqual([...rows.slice(2).map((r) => String(r.id)), 'end']);
    const last = collect(ctx, jobId, { afterEventId: String(rows.at(-1)!.id) });
    await last.done;
    expect(last.seen).toEqual([{ type: 'end', job_id: jobId, status: 'completed' }]);
    await expect(streamJobEvents(ctx, jobId, { afterEventId: 'abc', signal: new AbortController().signal }).next()).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });

  it('sends progress only when it changed and only for the stage the job is in; a failure ends the stream', async () => {
    const { jobId } = await queueTranscribeJob(ctx);
    const s = collect(ctx, jobId);
    await setProgress(jobId, 'extracting_audio', 0.5);
    await s.until((e) => e.type === 'progress');
    // The same value written again (a new `at`), then a stale stage: neither is news.
    await setProgress(jobId, 'extracting_audio', 0.5);
    await sleep(POLL * 5);
    await setProgress(jobId, 'transcribing', 0.1);
    await sleep(POLL * 5);
    await setProgress(jobId, 'extracting_audio', 0.75);
    await s.until((e) => e.type === 'progress' && e.fraction === 0.75);
    await ctx.db.transaction((tx) => failJob(tx, { jobId, now: ctx.clock.now(), code: 'media_invalid', message: 'not a recording' }));
    await s.done;
    const progress = s.seen.filter((e) => e.type === 'progress');
    expect(progress.map((e) => [e.stage, e.fraction])).toEqual([
      ['extracting_audio', 0.5],
      ['extracting_audio', 0.75],
    ]);
    // Progress comes after the status event of its stage; the failure carries its message.
    expect(s.seen.findIndex((e) => e.type === 'progress')).toBeGreaterThan(s.seen.findIndex((e) => e.type === 'status' && e.status === 'extracting_audio'));
    const failed = s.seen.at(-2);
    expect(failed).toMatchObject({ type: 'status', status: 'failed', from: null, error_message: 'not a recording', payment_status: 'refunded' });
    expect(s.seen.at(-1)).toEqual({ type: 'end', job_id: jobId, status: 'failed' });
  });

  it('serves many streams with one read per tick, returns promptly on abort and then stops polling', async () => {
    const counted = countingCtx();
    const queued = await Promise.all([queueTranscribeJob(ctx), queueTranscribeJob(ctx), queueTranscribeJob(ctx)]);
    const streams = queued.flatMap(({ jobId }) => [collect(counted.ctx, jobId), collect(counted.ctx, jobId)]);
    await Promise.all(streams.map((s) => s.until((e) => e.type === 'status' && e.status === 'extracting_audio')));
    const before = counted.selects();
    const started = Date.now();
    await sleep(POLL * 10);
    // Six streams, yet at most one read per tick (a slow tick only means fewer reads).
    expect(counted.selects() - before).toBeGreaterThan(0);
    expect(counted.selects() - before).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / POLL) + 1);

    const abortedAt = Date.now();
    for (const s of streams) s.abort();
    await Promise.all(streams.map((s) => s.done));
    expect(Date.now() - abortedAt).toBeLessThan(200);
    expect(streams.every((s) => s.seen.at(-1)?.type === 'status')).toBe(true); // no `end` on abort
    await sleep(POLL * 3);
    const after = counted.selects();
    await sleep(POLL * 10);
    expect(counted.selects()).toBe(after);

    // An already aborted signal yields nothing and starts no poll.
    const ac = new AbortController();
    ac.abort();
    expect(await streamJobEvents(counted.ctx, queued[0]!.jobId, { signal: ac.signal }).next()).toEqual({ done: true, value: undefined });
    await sleep(POLL * 3);
    expect(counted.selects()).toBe(after);
  });
});
