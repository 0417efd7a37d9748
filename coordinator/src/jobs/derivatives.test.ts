import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { DEFAULT_ATTEMPT_SECONDS, DEFAULT_SECONDS_PER_MEDIA_MINUTE } from './queue-estimate.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completeAttempt, failAttempt } from '../agents/attempts.ts';
import { claimJob } from '../agents/claim.ts';
import { jobOutputs, jobs, outbox } from '../db/schema.ts';
import { createJobCall, createSessionCall, deleteOutputCall, deleteSourceCall, getJobCall, processCall } from '../service/index.ts';
import { sweepOnce } from '../sweeper/sweeper.ts';
import { addAgent, createEngineCtx, jobRow, type EngineCtx } from '../testing/engine-ctx.ts';

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
}, 60_000);
afterAll(async () => {
  await ctx.close();
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

/** A completed transcribe parent of the caller's session: a 120 s video with its source and transcript stored. */
async function completedParent(c: Creds, opts: { hasVideo?: boolean; duration?: number } = {}): Promise<string> {
  const id = randomUUID();
  const now = ctx.clock.now();
  await ctx.db.insert(jobs).values({
    id,
    sessionId: c.sessionId,
    jobType: 'transcribe',
    status: 'completed',
    paymentStatus: 'paid',
    originalFilename: 'talk.mov',
    contentType: 'video/quicktime',
    mediaKind: opts.hasVideo === false ? 'audio' : 'video',
    priceCents: 100,
    params: {},
    sourceKey: `jobs/${id}/source`,
    durationSeconds: opts.duration ?? 120,
    media: { duration_seconds: opts.duration ?? 120, has_video: opts.hasVideo ?? true, has_audio: true, format_name: 'mov' },
    createdAt: now,
    updatedAt: now,
    completedAt: now,
    expiresAt: new Date(now.getTime() + 24 * 3600_000),
  });
  await ctx.blobs.put(`jobs/${id}/source`, Buffer.from('not really a video'), 'video/quicktime');
  await ctx.db.insert(jobOutputs).values({
    id: randomUUID(),
    jobId: id,
    role: 'transcript',
    storageKey: `jobs/${id}/outputs/a/transcript_srt`,
    contentType: 'application/x-subrip',
    meta: { words_key: `jobs/${id}/outputs/a/transcript_words` },
    createdAt: now,
  });
  return id;
}

describe('no-upload derivatives (billing off, PGlite)', () => {
  it('creates an extract_clip free, echoes the parent and points at process; process queues it as analyzing with one wake-up', async () => {
    const c = await creds();
    const parent = await completedParent(c);
    const created = await createJobCall(ctx, c, {
      job_type: 'extract_clip',
      source_job_id: parent,
      segments: [
        { start: 1, end: 3 },
        { start: 10, end: 12.5, label: 'b' },
      ],
    });
    expect(created.value).toEqual({
      job_id: expect.any(String),
      job_type: 'extract_clip',
      payment_status: 'paid',
      price_cents: 50,
      source_job_id: parent,
      next_endpoint: 'process',
      // How long it should take, before paying (queue-standing.ts): no agent takes cuts here, so no wait is estimated.
      estimate: {
        processing_seconds_per_media_minute: DEFAULT_SECONDS_PER_MEDIA_MINUTE['extract_clip'],
        typical_processing_seconds: DEFAULT_ATTEMPT_SECONDS['extract_clip'],
        queue_wait_seconds: null,
        basis: 'defaults',
      },
    });
    expect(created.value).not.toHaveProperty('checkout_url');
    const row = await jobRow(ctx, created.value.job_id);
    expect(row).toMatchObject({ status: 'pending', sourceJobId: parent, originalFilename: 'talk.clip.mp4', contentType: 'video/mp4' });
    expect(row.params).toMatchObject({
      include_transcript: true,
      segments: [
        { start: 1, end: 3, label: null },
        { start: 10, end: 12.5, label: 'b' },
      ],
    });

    const before = ctx.notified.outbox;
    expect((await processCall(ctx, c, created.value.job_id)).value).toEqual({ job_id: created.value.job_id, status: 'processing' });
    expect(await jobRow(ctx, created.value.job_id)).toMatchObject({ status: 'analyzing', expiresAt: null });
    expect(ctx.notified.outbox).toBe(before + 1);
    // Again: still processing, nothing queued twice.
    expect((await processCall(ctx, c, created.value.job_id)).value.status).toBe('processing');
    const wakeups = (await ctx.db.select().from(outbox)).filter((o) => (o.payload as { job_id: string }).job_id === created.value.job_id);
    expect(wakeups).toHaveLength(1);
  });

  it('hands a cut agent the parent source and transcript, and only the outputs the job writes', async () => {
    const c = await creds();
    const parent = await completedParent(c);
    await addAgent(ctx, 'cutter', ['cut']);
    const withT = await createJobCall(ctx, c, { job_type: 'extract_clip', source_job_id: parent, segments: [{ start: 0, end: 2 }] });
    await processCall(ctx, c, withT.value.job_id);
    const a = await claimJob(ctx, { v: 1, job_id: withT.value.job_id, agent_id: 'cutter' });
    if (!a.claimed) throw new Error(a.reason);
    expect(a.assignment).toMatchObject({ job_type: 'extract_clip', kind: 'cut', params: { segments: [{ start: 0, end: 2, label: null }] } });
    expect(a.assignment.source.get_url).toContain(`jobs/${parent}/source`);
    expect(a.assignment.job_type === 'extract_clip' && a.assignment.params.parent_words_url).toContain('transcript_words');
    expect(Object.keys(a.assignment.outputs).sort()).toEqual(['clip', 'transcript_srt', 'transcript_words']);

    const noT = await createJobCall(ctx, c, { job_type: 'extract_clip', source_job_id: parent, segments: [{ start: 0, end: 2 }], include_transcript: false });
    await processCall(ctx, c, noT.value.job_id);
    const b = await claimJob(ctx, { v: 1, job_id: noT.value.job_id, agent_id: 'cutter' });
    if (!b.claimed) throw new Error(b.reason);
    expect(Object.keys(b.assignment.outputs)).toEqual(['clip']);
    expect(b.assignment.job_type === 'extract_clip' && b.assignment.params.parent_words_url).toBeNull();

    const v = await createJobCall(ctx, c, {
      job_type: 'extract_vertical_clip',
      source_job_id: parent,
      start: 5,
      end: 65,
      subject: 'manual',
      subject_box: { x: 100, y: 50, w: 200, h: 200 },
      t_ref: 6,
      aspect: '1:1',
    });
    await processCall(ctx, c, v.value.job_id);
    const d = await claimJob(ctx, { v: 1, job_id: v.value.job_id, agent_id: 'cutter' });
    if (!d.claimed) throw new Error(d.reason);
    expect(d.assignment).toMatchObject({
      job_type: 'extract_vertical_clip',
      params: {
        start: 5,
        end: 65,
        profile: 'vidA-primary',
        aspect: '1:1',
        subject: 'manual',
        subject_box: { x: 100, y: 50, w: 200, h: 200 },
        t_ref: 6,
        subject_x_offset: 0,
        subject_id: null,
      },
    });
    expect(Object.keys(d.assignment.outputs).sort()).toEqual(['clip', 'subjects']);
  });

  it('refuses every invalid combination with a 400 that says what to send instead', async () => {
    const c = await creds();
    const parent = await completedParent(c, { duration: 300 });
    const bad = async (body: Record<string, unknown>, message: RegExp, code = 'invalid_request') =>
      expect(createJobCall(ctx, c, { source_job_id: parent, ...body } as never)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    await bad(
      {
        job_type: 'extract_vertical_clip',
        segments: [
          { start: 0, end: 1 },
          { start: 2, end: 3 },
        ],
      },
      /a vertical clip is one segment: send start and end/,
    );
    await bad({ job_type: 'extract_vertical_clip', start: 10 }, /start and end are required/);
    await bad({ job_type: 'extract_vertical_clip', start: 290, end: 301 }, /ends at 301 s, after the end of the media \(300 s\): use end <= 300 s/);
    await bad(
      { job_type: 'extract_vertical_clip', start: 0, end: 61, profile: 'vidB-stories' },
      /vidB-stories takes clips of at most 60 s; this one is 61 s: shorten it or use vidA-primary \(240 s\)/,
    );
    await bad({ job_type: 'extract_vertical_clip', start: 0, end: 10, subject: 'manual' }, /subject=manual needs subject_box/);
    await bad({ job_type: 'extract_vertical_clip', start: 0, end: 10, subject_box: { x: 0, y: 0, w: 5, h: 5 } }, /subject_box applies to subject=manual/);
    await bad({ job_type: 'extract_vertical_clip', start: 0, end: 10, subject: 'subject_id' }, /needs subject_id/);
    await bad({ job_type: 'extract_vertical_clip', start: 0, end: 10, subject_x_offset: 40 }, /subject=center has none/);
    await bad(
      { job_type: 'extract_vertical_clip', start: 0, end: 10, subject: 'manual', subject_box: { x: 0, y: 0, w: 5, h: 5 }, t_ref: 11 },
      /t_ref \(11 s\) must lie inside the clip/,
    );
    await bad({ job_type: 'extract_clip', start: 0, end: 10 }, /extract_clip takes segments/);
    await bad({ job_type: 'extract_clip' }, /segments is required/);
    await bad(
      {
        job_type: 'extract_clip',
        segments: [
          { start: 0, end: 10 },
          { start: 299, end: 300.5 },
        ],
      },
      /segment 2 ends at 300.5 s/,
    );
    await bad({ job_type: 'extract_clip', segments: Array.from({ length: 7 }, () => ({ start: 0, end: 280 })) }, /at most 30 minutes/);
    await expect(createJobCall(ctx, c, { job_type: 'extract_clip', segments: [{ start: 0, end: 1 }] })).rejects.toThrow(/source_job_id is required/);

    const audio = await completedParent(c, { hasVideo: false });
    await expect(createJobCall(ctx, c, { job_type: 'extract_vertical_clip', source_job_id: audio, start: 0, end: 5 })).rejects.toMatchObject({
      code: 'unsupported_media',
      message: expect.stringMatching(/audio-only/),
    });
  });

  it('checks the parent: another session 403, unknown 404, unfinished 409, deleted source and expiry 410 — before any work', async () => {
    const c = await creds();
    const other = await creds();
    const parent = await completedParent(c);
    const body = { job_type: 'extract_clip' as const, source_job_id: parent, segments: [{ start: 0, end: 1 }] };
    await expect(createJobCall(ctx, other, body)).rejects.toMatchObject({ code: 'forbidden' });
    await expect(createJobCall(ctx, c, { ...body, source_job_id: randomUUID() })).rejects.toMatchObject({ code: 'not_found' });
    const derivative = await createJobCall(ctx, c, body);
    await expect(createJobCall(ctx, c, { ...body, source_job_id: derivative.value.job_id })).rejects.toThrow(
      /is a extract_clip job; extract_clip cuts from a transcribe, summarize or find_clips job/,
    );
    await ctx.db.update(jobs).set({ status: 'transcribing' }).where(eq(jobs.id, parent));
    await expect(createJobCall(ctx, c, body)).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/not completed yet/) });
    await ctx.db.update(jobs).set({ status: 'completed' }).where(eq(jobs.id, parent));

    // A job created while the parent was fine, processed after its source was deleted: 410, nothing started.
    await deleteSourceCall(ctx, c, parent);
    await expect(processCall(ctx, c, derivative.value.job_id)).rejects.toMatchObject({ code: 'source_gone', message: expect.stringMatching(/was deleted/) });
    expect((await jobRow(ctx, derivative.value.job_id)).status).toBe('pending');
    await expect(createJobCall(ctx, c, body)).rejects.toMatchObject({ code: 'source_gone' });

    const fresh = await completedParent(c);
    ctx.clock.advance(25 * 3600_000);
    await expect(createJobCall(ctx, c, { ...body, source_job_id: fresh })).rejects.toMatchObject({
      code: 'source_gone',
      message: expect.stringMatching(/expired at/),
    });
  });

  it('keeps a parent with a running derivative until the derivative ends; DELETE source waits too', async () => {
    const c = await creds();
    const parent = await completedParent(c);
    const d = await createJobCall(ctx, c, { job_type: 'extract_clip', source_job_id: parent, segments: [{ start: 0, end: 1 }] });
    await processCall(ctx, c, d.value.job_id);
    await expect(deleteSourceCall(ctx, c, parent)).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/still cutting from this source/),
    });
    // The transcript too: the derivative re-times it at its claim.
    await expect(deleteOutputCall(ctx, c, parent, 'transcript')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/still cutting with this transcript/),
    });
    ctx.clock.advance(25 * 3600_000);
    await sweepOnce(ctx);
    expect((await jobRow(ctx, parent)).status).toBe('completed');
    await ctx.db
      .update(jobs)
      .set({ status: 'completed', expiresAt: new Date(ctx.clock.now().getTime() + 3600_000) })
      .where(eq(jobs.id, d.value.job_id));
    await sweepOnce(ctx);
    expect((await jobRow(ctx, parent)).status).toBe('deleted');
    // The derivative keeps its own outputs for its own retention.
    expect((await getJobCall(ctx, c, d.value.job_id)).status).toBe('completed');
  });

  it('completes a cut with the outputs it wrote and the encoder it ran on; a cut the input fails is failed and refunded', async () => {
    const c = await creds();
    const parent = await completedParent(c);
    await addAgent(ctx, 'cutter3', ['cut']);
    const d = await createJobCall(ctx, c, { job_type: 'extract_clip', source_job_id: parent, segments: [{ start: 0, end: 2 }], include_transcript: false });
    await processCall(ctx, c, d.value.job_id);
    const a = await claimJob(ctx, { v: 1, job_id: d.value.job_id, agent_id: 'cutter3' });
    if (!a.claimed) throw new Error(a.reason);
    await ctx.blobs.put(a.assignment.outputs['clip']!.key, Buffer.from('mp4 bytes'), 'video/mp4');
    const fence = { v: 1 as const, job_id: d.value.job_id, attempt_id: a.assignment.attempt_id, agent_id: 'cutter3' };
    const media = { duration_seconds: 120, has_video: true, has_audio: true, format_name: 'mov,mp4' };
    await completeAttempt(ctx, {
      ...fence,
      job_type: 'extract_clip',
      media,
      video: { duration_seconds: 2, width: 1280, height: 720, fps: 25, encoder: 'libx264' },
      outputs: [{ name: 'clip', bytes: 9 }],
    });
    const done = await getJobCall(ctx, c, d.value.job_id);
    expect(done).toMatchObject({ status: 'completed', duration_seconds: 2, encoder: 'libx264' });
    expect(done.outputs.map((o) => o.role)).toEqual(['clip']);
    expect(Date.parse(done.expires_at!) - Date.parse(done.completed_at!)).toBe(24 * 3600_000);

    const v = await createJobCall(ctx, c, { job_type: 'extract_vertical_clip', source_job_id: parent, start: 0, end: 5, subject_id: 's9' });
    await processCall(ctx, c, v.value.job_id);
    const b = await claimJob(ctx, { v: 1, job_id: v.value.job_id, agent_id: 'cutter3' });
    if (!b.claimed) throw new Error(b.reason);
    await failAttempt(ctx, {
      v: 1,
      job_id: v.value.job_id,
      attempt_id: b.assignment.attempt_id,
      agent_id: 'cutter3',
      code: 'media_invalid',
      message: 'subject_id s9 was not found in this clip; subjects found: s1',
      detail: { code: 'subject_not_found', params: { found: ['s1'] } },
    });
    // The subject id is the caller's, read from the job: the detail cannot carry one.
    expect(await getJobCall(ctx, c, v.value.job_id)).toMatchObject({
      status: 'failed',
      payment_status: 'refunded',
      error_message: 'subject_id s9 was not found in this clip; subjects found: s1 (run subject=auto and read the subjects output)',
    });

    const validSubjects = {
      version: 1,
      strategy: 'center',
      source: { width: 1280, height: 720, fps: 25 },
      clip: { start: 0, end: 2 },
      detector: null,
      shots: [],
      subjects: [],
      chosen_subject_id: null,
      crop: { width: 720, height: 720, scaled_only: false, path: [{ t: 0, x: 280, y: 0 }] },
    };
    // A vertical clip of another size than its profile and aspect make (an agent older than `aspect`
    // rendering 9:16 for a 1:1 job) is not delivered: the attempt ends as output_invalid.
    const square = await createJobCall(ctx, c, { job_type: 'extract_vertical_clip', source_job_id: parent, start: 0, end: 2, aspect: '1:1' });
    await processCall(ctx, c, square.value.job_id);
    const sq = await claimJob(ctx, { v: 1, job_id: square.value.job_id, agent_id: 'cutter3' });
    if (!sq.claimed) throw new Error(sq.reason);
    for (const name of ['clip', 'subjects'] as const) {
      const body = name === 'clip' ? Buffer.from('mp4 bytes') : Buffer.from(JSON.stringify(validSubjects));
      await ctx.blobs.put(sq.assignment.outputs[name]!.key, body, name === 'clip' ? 'video/mp4' : 'application/json');
    }
    const squareDone = (height: number) =>
      completeAttempt(ctx, {
        ...fence,
        job_id: square.value.job_id,
        attempt_id: sq.assignment.attempt_id,
        job_type: 'extract_vertical_clip',
        media,
        video: { duration_seconds: 2, width: 1080, height, fps: 25, encoder: 'libx264' },
        loudness: null,
        outputs: [
          { name: 'clip', bytes: 9 },
          { name: 'subjects', bytes: 10 },
        ],
      });
    await expect(squareDone(1920)).rejects.toMatchObject({
      code: 'stale_attempt',
      message: expect.stringMatching(/the clip is 1080x1920, not the 1080x1080 of vidA-primary at 1:1/),
    });
    expect(await getJobCall(ctx, c, square.value.job_id)).toMatchObject({ status: 'analyzing' });

    // A segment's label too: the caller's own words, from the job.
    const labelled = await createJobCall(ctx, c, {
      job_type: 'extract_clip',
      source_job_id: parent,
      segments: [
        { start: 0, end: 1 },
        { start: 3, end: 4, label: 'the punchline' },
      ],
      include_transcript: false,
    });
    await processCall(ctx, c, labelled.value.job_id);
    const l = await claimJob(ctx, { v: 1, job_id: labelled.value.job_id, agent_id: 'cutter3' });
    if (!l.claimed) throw new Error(l.reason);
    await failAttempt(ctx, {
      ...fence,
      job_id: labelled.value.job_id,
      attempt_id: l.assignment.attempt_id,
      code: 'media_invalid',
      message: "segment 2 (the punchline) ends at 4 s but the parent's video is only 3.500 s long",
      detail: { code: 'ends_past_video', params: { segment: 2, end_seconds: 4, video_seconds: 3.5 } },
    });
    expect((await getJobCall(ctx, c, labelled.value.job_id)).error_message).toBe(
      "segment 2 (the punchline) ends at 4 s but the parent's video is only 3.500 s long",
    );
  });

  it('fails a derivative whose parent lost its source before it was claimed, refunded, instead of looping', async () => {
    const c = await creds();
    const parent = await completedParent(c);
    await addAgent(ctx, 'cutter2', ['cut']);
    const d = await createJobCall(ctx, c, { job_type: 'extract_clip', source_job_id: parent, segments: [{ start: 0, end: 1 }] });
    await processCall(ctx, c, d.value.job_id);
    await ctx.db.update(jobs).set({ sourceDeletedAt: ctx.clock.now() }).where(eq(jobs.id, parent));
    const r = await claimJob(ctx, { v: 1, job_id: d.value.job_id, agent_id: 'cutter2' });
    expect(r.claimed).toBe(false);
    expect(await jobRow(ctx, d.value.job_id)).toMatchObject({ status: 'failed', errorCode: 'parent_source_gone', paymentStatus: 'refunded' });
  });
});
