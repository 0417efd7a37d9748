import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishWorkflows } from '../coordinator/src/db/schema.ts';
import { freePort } from './fixtures/index.ts';
import { connectInBrowser } from './harness/consent.ts';
import { concatWavs, librivoxUtterances, makeVideo } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

const CHUNK = 256 * 1024;

/**
 * The publish workflow survives its coordinator being killed with SIGKILL in the middle of the
 * upload: a second coordinator process (a replica on the same Postgres, NATS and S3) takes the
 * workflow over when the lease expires, asks the host where the upload stands and continues from
 * that offset. The host ends up with exactly one upload session, one video (the exact bytes of the
 * source) and one caption track. The stack's own coordinator does not run workflows here (its
 * publish worker polls once an hour), so the two child processes are the only workers.
 */
describe('publish_video resumes after its coordinator is killed mid-upload', () => {
  let stack: Stack;
  const children: ResultPromise[] = [];
  const work = mkdtempSync(join(tmpdir(), 'cutroom-publish-resume-'));
  const video = join(work, 'long walk.mp4');

  /** A coordinator replica as its own process (production entry, coordinator/src/main.ts). */
  async function replica(name: string, env: Record<string, string> = {}) {
    const port = await freePort();
    const child = execa('bash', ['scripts/run-node.sh', 'coordinator/src/main.ts'], {
      env: {
        ...stack.coordinatorEnv,
        PORT: String(port),
        DATA_DIR: mkdtempSync(join(tmpdir(), `cutroom-replica-${name}-`)),
        PUBLISH_POLL_MS: '100',
        PUBLISH_CHUNK_BYTES: String(CHUNK),
        PUBLISH_LEASE_SECONDS: '5',
        LOG_LEVEL: 'warn',
        ...env,
      },
      reject: false,
      all: true,
    });
    children.push(child);
    let exited = false;
    void child.then(() => {
      exited = true;
    });
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && !exited) {
      const health = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
      // Wrapped: the subprocess is a thenable, and an async function returning it would wait for its exit.
      if (health) return { child };
      await new Promise((r) => setTimeout(r, 200));
    }
    child.kill('SIGKILL');
    throw new Error(`replica ${name} did not start: ${String((await child).all).slice(-2000)}`);
  }

  /** A new session with a completed transcribe of the video and the fake's channel connected. */
  async function connectedParent() {
    const { api } = stack;
    const token = await api.newSession();
    const source = await api.submitTranscribe(token, video, 'long walk.mp4', 'video/mp4');
    expect((await api.waitForJob(token, source, undefined, 150_000)).status).toBe('completed');
    expect((await connectInBrowser(stack, token)).status).toBe(200);
    return { token, source };
  }

  beforeAll(async () => {
    const speech = join(work, 'speech.wav');
    await concatWavs(
      librivoxUtterances()
        .slice(0, 3)
        .map((u) => u.file),
      speech,
    );
    // About 4 MB: sixteen 256 KiB chunks.
    await makeVideo(speech, video, { pattern: 'testsrc2=size=640x360:rate=25', videoKbps: 1800 });
    stack = await startStack({ videoHost: true, storage: 's3', agents: 1, env: { PUBLISH_POLL_MS: '3600000' } });
  });
  afterAll(async () => {
    for (const c of children) c.kill('SIGKILL');
    await stack?.stop();
  });

  it('continues from the offset the host reports, with one session, one video and one caption track', async () => {
    const { api } = stack;
    const fake = stack.videoHost!;
    const { token, source } = await connectedParent();
    const created = await api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'publish_video', source_job_id: source, title: 'A long walk' } });
    expect(created.status).toBe(201);
    const id = created.body.job_id as string;
    expect((await api.call('POST', `/api/v1/jobs/${id}/process`, { token })).status).toBe(200);

    // A slow host: every chunk is held 200 ms after it arrived, so the kill lands while one is in flight.
    fake.injectFault({ route: 'upload.put', count: 10_000, delayMs: 200 });
    const { child: first } = await replica('first');
    const dataPuts = () => fake.state.requests.filter((r) => r.route === 'upload.put' && r.chunkStart !== null);
    const deadline = Date.now() + 60_000;
    while (dataPuts().filter((r) => r.status === 308).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    first.kill('SIGKILL');
    await first;
    // A chunk the host received before the kill is still held (200 ms) and then stored: what the host
    // holds is read once that has settled (read at once, it missed a chunk stored after the read).
    await new Promise((r) => setTimeout(r, 600));
    const killedAt = Date.now();
    const atKill = (await stack.coordinator.ctx.db.select().from(publishWorkflows).where(eq(publishWorkflows.jobId, id)))[0]!;
    const [session] = [...fake.state.uploads.values()];
    const heldAtKill = session!.data.length;
    expect(atKill.step).toBe('upload');
    expect(heldAtKill).toBeGreaterThanOrEqual(3 * CHUNK);
    expect(heldAtKill).toBeLessThan(readFileSync(video).length);
    fake.clearFaults();

    const { child: second } = await replica('second');
    const job = await api.waitForJob(token, id, undefined, 60_000);
    second.kill('SIGKILL');
    await second;
    expect(job.status, job.error_message).toBe('completed');

    // After the kill: a status query first, then data from exactly the offset the host held; nothing from 0 again.
    const after = fake.state.requests.filter((r) => r.route === 'upload.put' && r.at >= killedAt);
    const resumedData = after.filter((r) => r.chunkStart !== null);
    expect(after[0]!.chunkStart, 'the new owner asks the host where the upload stands').toBeNull();
    expect(resumedData[0]!.chunkStart).toBe(heldAtKill);
    expect(resumedData.every((r) => r.chunkStart! >= heldAtKill)).toBe(true);
    // Exactly one session, one video with the source's exact bytes, one caption track.
    expect(fake.state.requests.filter((r) => r.route === 'videos.insert' && r.status === 200)).toHaveLength(1);
    const videos = fake.videosOf();
    expect(videos).toHaveLength(1);
    expect(videos[0]!.media.sha256).toBe(createHash('sha256').update(readFileSync(video)).digest('hex'));
    expect(fake.captionsOf(videos[0]!.id)).toHaveLength(1);
    expect(job.outputs[0].external_url).toBe(fake.watchUrl(videos[0]!.id));
    console.info(
      `kill-and-resume: ${readFileSync(video).length} bytes; killed with the row at ${atKill.bytesConfirmed} confirmed and the host holding ${heldAtKill}; ` +
        `after the kill: ${after.length - resumedData.length} status quer${after.length - resumedData.length === 1 ? 'y' : 'ies'}, then ${resumedData.length} chunks from ${resumedData[0]!.chunkStart}`,
    );
  });

  it('fails and refunds when the quota window is further away than PUBLISH_QUOTA_MAX_WAIT_HOURS allows', async () => {
    const { api } = stack;
    const fake = stack.videoHost!;
    const { token, source } = await connectedParent();
    const created = await api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'publish_video', source_job_id: source } });
    const id = created.body.job_id as string;
    fake.exhaustQuota();
    const videos = fake.videosOf().length;
    expect((await api.call('POST', `/api/v1/jobs/${id}/process`, { token })).status).toBe(200);
    const { child } = await replica('impatient', { PUBLISH_QUOTA_MAX_WAIT_HOURS: '0' });
    const job = await api.waitForJob(token, id, undefined, 60_000);
    child.kill('SIGKILL');
    await child;
    expect(job.status).toBe('failed');
    expect(job.payment_status).toBe('refunded');
    expect(job.error_message).toMatch(/daily upload quota is used up .*refunded, please publish again tomorrow/);
    expect(fake.videosOf()).toHaveLength(videos);
  });
});
