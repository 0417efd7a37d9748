import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries, publishWorkflows } from '../coordinator/src/db/schema.ts';
import { chainPayer } from './harness/chain-payer.ts';
import { connectInBrowser } from './harness/consent.ts';
import { concatWavs, librivoxUtterances, makeVideo } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * publish_video end to end on the real stack with billing on (paid on the local chain by the
 * stock mppx client) against the stateful video host fake, driven by the host's official
 * clients: a transcribe parent and a summarize parent published with captions and description,
 * a revoked grant failing cleanly with a refund, quota exhaustion waiting for the host's window,
 * and another session refused.
 */
describe('publish_video', () => {
  let stack: Stack;
  let payer: ReturnType<typeof chainPayer>;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-publish-'));
  const video = join(work, 'garden tour.mp4');

  const api = (method: string, path: string, token: string, json?: unknown) => stack.api.call(method, path, { token, json });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  /** A completed parent of `type` on the video, paid on the chain. */
  async function parent(token: string, type: 'transcribe' | 'summarize'): Promise<string> {
    const created = await api('POST', '/api/v1/jobs', token, { job_type: type, filename: 'garden tour.mp4', content_type: 'video/mp4' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.job_id as string;
    const up = await payer.mppx.fetch(`${stack.coordinator.url}/api/v1/jobs/${id}/upload-url`, { headers: bearer(token) });
    expect(up.status).toBe(200);
    const { upload_url } = (await up.json()) as { upload_url: string };
    expect((await fetch(upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(video) })).ok).toBe(true);
    expect((await api('POST', `/api/v1/jobs/${id}/complete-upload`, token)).status).toBe(200);
    const job = await stack.api.waitForJob(token, id, undefined, 150_000);
    expect(job.status, job.error_message).toBe('completed');
    return id;
  }

  /** Connects the fake's default channel to the session through the consent flow, in one browser. */
  async function connect(token: string) {
    const callback = await connectInBrowser(stack, token);
    expect(callback.status, callback.body).toBe(200);
    return (callback.json as { connection: { id: string } }).connection;
  }

  /** Creates the publish job and pays it at /process (402 → the stock client pays). */
  async function publish(token: string, source: string, extra: Record<string, unknown> = {}) {
    const created = await api('POST', '/api/v1/jobs', token, { job_type: 'publish_video', source_job_id: source, ...extra });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ price_cents: 175, next_endpoint: 'process', payment_status: 'pending' });
    const paid = await payer.mppx.fetch(`${stack.coordinator.url}/api/v1/jobs/${created.body.job_id}/process`, { method: 'POST', headers: bearer(token) });
    expect(paid.status, await paid.clone().text()).toBe(200);
    return created.body.job_id as string;
  }

  const workflowOf = async (jobId: string) => (await stack.coordinator.ctx.db.select().from(publishWorkflows).where(eq(publishWorkflows.jobId, jobId)))[0]!;

  beforeAll(async () => {
    const speech = join(work, 'speech.wav');
    await concatWavs(
      librivoxUtterances()
        .slice(0, 3)
        .map((u) => u.file),
      speech,
    );
    // About 1.3 MB of video: several 256 KiB chunks.
    await makeVideo(speech, video, { pattern: 'testsrc2=size=640x360:rate=25', videoKbps: 600 });
    stack = await startStack({
      billing: true,
      videoHost: true,
      storage: 's3',
      agents: 1,
      env: { PUBLISH_CHUNK_BYTES: String(256 * 1024), PUBLISH_POLL_MS: '200' },
    });
    payer = chainPayer(stack.billing!);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('publishes a transcribe parent: one resumable upload in chunks, private by default, the SRT as captions, the watch URL as output', async () => {
    const token = await stack.api.newSession();
    const source = await parent(token, 'transcribe');
    // Without a connected account: refused before payment, saying what to do.
    const refused = await api('POST', '/api/v1/jobs', token, { job_type: 'publish_video', source_job_id: source });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/connect one first \(POST \/api\/v1\/connections\/video-host/);

    await connect(token);
    const id = await publish(token, source);
    const job = await stack.api.waitForJob(token, id, undefined, 60_000);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.payment_status).toBe('paid');
    const out = job.outputs.find((o: { role: string }) => o.role === 'video');
    const [v] = stack.videoHost!.videosOf();
    expect(stack.videoHost!.videosOf()).toHaveLength(1);
    expect(out).toMatchObject({ external_url: stack.videoHost!.watchUrl(v!.id), download_url: stack.videoHost!.watchUrl(v!.id), storage_key: null });
    expect(v).toMatchObject({ title: 'garden tour', privacyStatus: 'private', uploadType: 'resumable', description: '' });
    expect(v!.media.size).toBe(readFileSync(video).length);
    const puts = stack.videoHost!.state.requests.filter((r) => r.route === 'upload.put' && r.chunkStart !== null);
    expect(puts.length).toBeGreaterThanOrEqual(4);
    expect(puts.map((p) => p.chunkStart)).toEqual(puts.map((_, i) => i * 256 * 1024));
    const [caption] = stack.videoHost!.captionsOf(v!.id);
    expect(caption).toMatchObject({ name: 'cutroom transcript', status: 'serving', isDraft: false });
    const srt = await (await fetch((await api('GET', `/api/v1/jobs/${source}/outputs/transcript/download`, token)).body.download_url)).text();
    expect(caption!.text).toBe(srt);
    expect((await workflowOf(id)).step).toBe('done');
  });

  it('publishes a summarize parent with its summary as the description, and the title and privacy asked for', async () => {
    const token = await stack.api.newSession();
    const source = await parent(token, 'summarize');
    await connect(token);
    const id = await publish(token, source, { title: 'Our garden', privacy_status: 'unlisted' });
    const job = await stack.api.waitForJob(token, id, undefined, 60_000);
    expect(job.status, job.error_message).toBe('completed');
    const videoId = new URL(job.outputs[0].external_url).searchParams.get('v')!;
    const v = stack.videoHost!.videosOf().find((x) => x.id === videoId)!;
    const summary = JSON.parse(
      await (
        await fetch((await api('GET', `/api/v1/jobs/${source}`, token)).body.outputs.find((o: { role: string }) => o.role === 'summary').download_url)
      ).text(),
    );
    expect(v).toMatchObject({ title: 'Our garden', privacyStatus: 'unlisted' });
    expect(v.description.startsWith(summary.overview)).toBe(true);
    expect(stack.videoHost!.captionsOf(videoId)).toHaveLength(1);
  });

  it('backs off and resumes through host errors: a 503 and a connection reset mid-chunk still make one video', async () => {
    const token = await stack.api.newSession();
    const source = await parent(token, 'transcribe');
    await connect(token);
    const before = stack.videoHost!.videosOf().length;
    stack.videoHost!.injectFault({ route: 'upload.put', status: 503, count: 1 });
    stack.videoHost!.injectFault({ route: 'upload.put', resetAfterBytes: 100_000, count: 1 });
    const id = await publish(token, source);
    const job = await stack.api.waitForJob(token, id, undefined, 90_000);
    expect(job.status, job.error_message).toBe('completed');
    expect(stack.videoHost!.videosOf()).toHaveLength(before + 1);
    const wf = await workflowOf(id);
    expect(wf.step).toBe('done');
  });

  it('fails cleanly and refunds when the grant was revoked at the host', async () => {
    const token = await stack.api.newSession();
    const source = await parent(token, 'transcribe');
    await connect(token);
    const videosBefore = stack.videoHost!.videosOf().length;
    stack.videoHost!.revokeGrants({ channelId: stack.videoHost!.defaultUser.id });
    // Refused at creation? No: the connection still reads active until the host is asked; the workflow asks.
    const id = await publish(token, source);
    const job = await stack.api.waitForJob(token, id, undefined, 60_000);
    expect(job.status).toBe('failed');
    expect(job.payment_status).toBe('refunded');
    expect(job.error_message).toMatch(/connect the account again/);
    expect(stack.videoHost!.videosOf()).toHaveLength(videosBefore);
    const deadline = Date.now() + 30_000;
    let refund: { state: string; amount: bigint } | undefined;
    while (Date.now() < deadline) {
      refund = (await stack.coordinator.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, id))).find((r) => r.kind === 'refund');
      if (refund?.state === 'done') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(refund).toMatchObject({ state: 'done', amount: 1_750_000n });
  });

  it('leaves nothing on the channel when it fails after the video was made: the video is deleted, the job refunded and told so', async () => {
    const token = await stack.api.newSession();
    const source = await parent(token, 'transcribe');
    await connect(token);
    const before = stack.videoHost!.videosOf().length;
    // The host refuses the caption track for good, after the upload made the video.
    stack.videoHost!.injectFault({ route: 'captions.insert', status: 400, reason: 'invalidMetadata', count: 1 });
    const id = await publish(token, source);
    const job = await stack.api.waitForJob(token, id, undefined, 60_000);
    expect(job.status).toBe('failed');
    expect(job.payment_status).toBe('refunded');
    const videoId = (await workflowOf(id)).videoId!;
    expect(videoId).toBeTruthy();
    expect(job.error_message).toContain(`the uploaded video ${videoId} was deleted from the host`);
    expect(stack.videoHost!.videosOf()).toHaveLength(before);
    expect(stack.videoHost!.state.requests.filter((r) => r.route === 'videos.delete').map((r) => r.status)).toEqual([204]);
  });

  it('publishes a recording without speech without a caption track (its transcript has no cue)', async () => {
    const token = await stack.api.newSession();
    const silent = join(work, 'quiet room.mp4');
    const silence = join(work, 'silence.wav');
    await execa('ffmpeg', ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '6', silence]);
    await makeVideo(silence, silent);
    const created = await api('POST', '/api/v1/jobs', token, { job_type: 'transcribe', filename: 'quiet room.mp4', content_type: 'video/mp4' });
    const parentId = created.body.job_id as string;
    const up = await payer.mppx.fetch(`${stack.coordinator.url}/api/v1/jobs/${parentId}/upload-url`, { headers: bearer(token) });
    const { upload_url } = (await up.json()) as { upload_url: string };
    expect((await fetch(upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(silent) })).ok).toBe(true);
    expect((await api('POST', `/api/v1/jobs/${parentId}/complete-upload`, token)).status).toBe(200);
    expect((await stack.api.waitForJob(token, parentId, undefined, 150_000)).status).toBe('completed');
    await connect(token);
    const captionCalls = () => stack.videoHost!.state.requests.filter((r) => r.route === 'captions.insert').length;
    const callsBefore = captionCalls();
    const id = await publish(token, parentId);
    const job = await stack.api.waitForJob(token, id, undefined, 60_000);
    expect(job.status, job.error_message).toBe('completed');
    const videoId = new URL(job.outputs[0].external_url).searchParams.get('v')!;
    expect(stack.videoHost!.captionsOf(videoId)).toEqual([]);
    expect(captionCalls()).toBe(callsBefore);
    expect((await workflowOf(id)).captionId).toBeNull();
  });

  it('waits for the quota window when the daily quota is used up, then publishes once', async () => {
    const token = await stack.api.newSession();
    const source = await parent(token, 'transcribe');
    await connect(token);
    stack.videoHost!.exhaustQuota();
    const id = await publish(token, source);
    let wf = await workflowOf(id);
    const deadline = Date.now() + 20_000;
    while (!wf.lastError && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      wf = await workflowOf(id);
    }
    expect(wf.lastError).toMatch(/quota/);
    const job = (await api('GET', `/api/v1/jobs/${id}`, token)).body;
    expect(job.status).toBe('publishing');
    // Due at the next Pacific midnight (+1 min), not sooner.
    expect(wf.nextRunAt.getTime() - Date.now()).toBeGreaterThan(60_000);
    expect(wf.nextRunAt.getTime() - Date.now()).toBeLessThanOrEqual(24 * 3600_000 + 60_000);
    // The window opens: the host's day rolls over, and the time has come.
    stack.videoHost!.advanceTime(24 * 3600_000);
    await stack.coordinator.ctx.db.update(publishWorkflows).set({ nextRunAt: new Date() }).where(eq(publishWorkflows.jobId, id));
    const done = await stack.api.waitForJob(token, id, undefined, 60_000);
    expect(done.status, done.error_message).toBe('completed');
    expect(
      stack.videoHost!.state.requests.filter((r) => r.route === 'videos.insert' && r.status === 200 && r.uploadType === 'resumable').length,
    ).toBeGreaterThan(0);
  });

  it('refuses another session: it cannot publish your job, and a session without a connection cannot use yours', async () => {
    const owner = await stack.api.newSession();
    const source = await parent(owner, 'transcribe');
    await connect(owner);
    const stranger = await stack.api.newSession();
    const theirs = await api('POST', '/api/v1/jobs', stranger, { job_type: 'publish_video', source_job_id: source });
    expect(theirs.status).toBe(403);
    const strangersOwn = await parent(stranger, 'transcribe');
    const noAccount = await api('POST', '/api/v1/jobs', stranger, { job_type: 'publish_video', source_job_id: strangersOwn });
    expect(noAccount.status).toBe(409);
    expect((await api('GET', '/api/v1/connections', stranger)).body.connections).toEqual([]);
  });
});
