import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { DEFAULT_ATTEMPT_SECONDS, DEFAULT_SECONDS_PER_MEDIA_MINUTE } from './queue-estimate.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toEdit } from '@cutroom/shared/transcript/edit-format';
import type { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { claimJob } from '../agents/claim.ts';
import { jobOutputs, jobs } from '../db/schema.ts';
import { createJobCall, createSessionCall, deleteOutputCall, processCall } from '../service/index.ts';
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

/** `n` words of 0.3 s every 0.5 s from 1 s, a sentence every `perSentence` words. */
function wordsTranscript(n: number, perSentence: number): TranscriptV2 {
  const words = Array.from({ length: n }, (_, i) => ({
    start: 1 + i * 0.5,
    end: 1.3 + i * 0.5,
    word: `w${i}${i % perSentence === perSentence - 1 ? '.' : ''}`,
    probability: 0.9,
  }));
  const end = 1.3 + (n - 1) * 0.5;
  return { version: 2, language: 'en', duration: end + 1, segments: [{ id: 0, start: 1, end, text: words.map((w) => w.word).join(' '), words }] };
}

// Four sentences: "[0001] w0 w1 w2 w3." … "[0004] w12 w13 w14 w15.".
const SHORT = wordsTranscript(16, 4);

/** A completed transcribe parent of the caller's session with its source and transcript (SRT + words v2) stored. */
async function completedParent(c: Creds, t: TranscriptV2, opts: { hasVideo?: boolean } = {}): Promise<string> {
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
    durationSeconds: t.duration,
    media: { duration_seconds: t.duration, has_video: opts.hasVideo ?? true, has_audio: true, format_name: 'mov' },
    createdAt: now,
    updatedAt: now,
    completedAt: now,
    expiresAt: new Date(now.getTime() + 24 * 3600_000),
  });
  await ctx.blobs.put(`jobs/${id}/source`, Buffer.from('not really a video'), 'video/quicktime');
  await ctx.blobs.put(`jobs/${id}/outputs/a/transcript_words`, JSON.stringify(t), 'application/json');
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

const childrenOf = async (parent: string) => ctx.db.select().from(jobs).where(eq(jobs.sourceJobId, parent));

describe('edit_from_transcript (billing off, PGlite)', () => {
  it('turns a valid edit into a cut list at creation, priced 1.00, and hands it to a cut agent with the parent transcript', async () => {
    const c = await creds();
    const parent = await completedParent(c, SHORT);
    const edit = '[0003] w8 w9 w10 w11.\n[0001] w0 w1 w3.\n';
    const created = await createJobCall(ctx, c, { job_type: 'edit_from_transcript', source_job_id: parent, edit, title: 'short' });
    expect(created.value).toEqual({
      job_id: expect.any(String),
      job_type: 'edit_from_transcript',
      payment_status: 'paid',
      price_cents: 100,
      source_job_id: parent,
      next_endpoint: 'process',
      // How long it should take, before paying (queue-standing.ts): no agent takes cuts here, so no wait is estimated.
      estimate: {
        processing_seconds_per_media_minute: DEFAULT_SECONDS_PER_MEDIA_MINUTE['edit_from_transcript'],
        typical_processing_seconds: DEFAULT_ATTEMPT_SECONDS['edit_from_transcript'],
        queue_wait_seconds: null,
        basis: 'defaults',
      },
    });
    const row = await jobRow(ctx, created.value.job_id);
    expect(row).toMatchObject({ status: 'pending', originalFilename: 'talk.edit.mp4', contentType: 'video/mp4', priceChainUnits: 1_000_000n });
    // w8-w11 = 5.0-6.8, w0-w1 = 1.0-1.8, w3 = 2.5-2.8, each padded 0.1 s up to the deleted words around it.
    expect(row.params).toEqual({
      segments: [
        { start: 4.9, end: 6.9, label: '[0003]' },
        { start: 0.9, end: 1.9, label: '[0001]' },
        { start: 2.4, end: 2.9, label: '[0001]' },
      ],
      seconds: 3.5,
      title: 'short',
      thread_id: null,
    });

    await processCall(ctx, c, created.value.job_id);
    await addAgent(ctx, 'cutter', ['cut']);
    const a = await claimJob(ctx, { v: 1, job_id: created.value.job_id, agent_id: 'cutter' });
    if (!a.claimed) throw new Error(a.reason);
    expect(a.assignment).toMatchObject({ job_type: 'edit_from_transcript', kind: 'cut', params: { segments: row.params['segments'] } });
    expect(a.assignment.job_type === 'edit_from_transcript' && a.assignment.params.parent_words_url).toContain('transcript_words');
    expect(Object.keys(a.assignment.outputs).sort()).toEqual(['clip', 'transcript_srt', 'transcript_words']);
  });

  it('refuses a changed word, an added word and a copied line with every failing line, and creates nothing', async () => {
    const c = await creds();
    const parent = await completedParent(c, SHORT);
    const edit = ['[0001] w0 w1 w2 w3.', '[0002] w4 wX w6 w7.', '[0003] w8 w9 w10 w11. w12', '[0001] w0', '[0004] w12 w13 w14 w15.'].join('\n');
    const refused = await createJobCall(ctx, c, { job_type: 'edit_from_transcript', source_job_id: parent, edit }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'invalid_request',
      status: 400,
      message: expect.stringMatching(/^the edit cannot be applied: 3 lines \(2, 3, 4\) change the transcript .*Nothing was created or charged/),
      problems: [
        { line: 2, text: '[0002] w4 wX w6 w7.', reason: expect.stringMatching(/^"wX" is not a word of sentence \[0002\]/) },
        { line: 3, text: '[0003] w8 w9 w10 w11. w12', reason: expect.stringMatching(/^"w12" is not a word of sentence \[0003\]/) },
        { line: 4, text: '[0001] w0', reason: expect.stringMatching(/^sentence \[0001\] already appears on line 1/) },
      ],
    });
    expect(await childrenOf(parent)).toEqual([]);
  });

  it('refuses an edit that keeps nothing, one over 300 cuts and one over 256 KB, naming the figure', async () => {
    const c = await creds();
    const parent = await completedParent(c, SHORT);
    const body = { job_type: 'edit_from_transcript' as const, source_job_id: parent };
    await expect(createJobCall(ctx, c, { ...body, edit: '[0001]\n[0002]\n' })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/keeps no word/),
    });
    await expect(createJobCall(ctx, c, { ...body, edit: `${toEdit(SHORT)}\n${'x'.repeat(256 * 1024)}` })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/^edit is 262\d{3} bytes of UTF-8; at most 262144/),
    });
    await expect(createJobCall(ctx, c, body)).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/edit is required/) });

    const long = wordsTranscript(700, 10);
    const manyCuts = await completedParent(c, long);
    const everyOther = toEdit(long).replace(/ w(\d+)\.?/g, (w, n) => (Number(n) % 2 === 0 ? w : ''));
    await expect(createJobCall(ctx, c, { ...body, source_job_id: manyCuts, edit: everyOther })).rejects.toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/keeps 350 separate stretches .* at most 300 cuts/),
    });
    expect([...(await childrenOf(parent)), ...(await childrenOf(manyCuts))]).toEqual([]);
  });

  it('refuses an audio-only parent, and a parent whose transcript was deleted at creation and again at /process', async () => {
    const c = await creds();
    const audio = await completedParent(c, SHORT, { hasVideo: false });
    await expect(createJobCall(ctx, c, { job_type: 'edit_from_transcript', source_job_id: audio, edit: toEdit(SHORT) })).rejects.toMatchObject({
      code: 'unsupported_media',
    });

    const parent = await completedParent(c, SHORT);
    const created = await createJobCall(ctx, c, { job_type: 'edit_from_transcript', source_job_id: parent, edit: toEdit(SHORT) });
    await deleteOutputCall(ctx, c, parent, 'transcript');
    const gone = { code: 'conflict', message: expect.stringMatching(/no longer has its transcript output/) };
    await expect(processCall(ctx, c, created.value.job_id)).rejects.toMatchObject(gone);
    expect(await jobRow(ctx, created.value.job_id)).toMatchObject({ status: 'pending' });
    await expect(createJobCall(ctx, c, { job_type: 'edit_from_transcript', source_job_id: parent, edit: toEdit(SHORT) })).rejects.toMatchObject(gone);
  });

  it('refuses the fields of other cuts, saying to send the edit', async () => {
    const c = await creds();
    const parent = await completedParent(c, SHORT);
    await expect(
      createJobCall(ctx, c, { job_type: 'edit_from_transcript', source_job_id: parent, edit: toEdit(SHORT), segments: [{ start: 0, end: 1 }] }),
    ).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/segments does not apply .*takes `edit`/) });
  });
});
