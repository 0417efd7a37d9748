import { readFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { asc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ROUTES } from '@cutroom/proto';
import { jobAttempts, jobEvents, jobOutputs } from '../coordinator/src/db/schema.ts';
import { concatWavs, librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * An agent killed with SIGKILL mid-job loses nothing: its lease runs out, the sweeper requeues
 * the job, another agent finishes it, and exactly one set of outputs exists.
 */
describe('agent killed mid-job', () => {
  let stack: Stack;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-crash-'));
  const audio = join(work, 'long.wav');

  beforeAll(async () => {
    await concatWavs(
      librivoxUtterances().map((u) => u.file),
      audio,
      4,
    );
    stack = await startStack({ storage: 's3', agents: 0, leaseMs: 3000, sweepMs: 500 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is taken over by another agent after the lease expires, once', async () => {
    const { api, coordinator } = stack;
    const db = coordinator.ctx.db;
    const first = await stack.startAgent('doomed-agent');
    const token = await api.newSession();
    const id = await api.submitTranscribe(token, audio, 'long.wav', 'audio/wav');
    await api.waitForJob(token, id, (j) => j.status === 'transcribing', 60_000);
    const [claimed] = await db.select().from(jobAttempts).where(eq(jobAttempts.jobId, id));
    expect(claimed!.agentId).toBe('doomed-agent');

    first.process.kill('SIGKILL');
    await first.process.catch(() => undefined);
    await stack.startAgent('rescuer-agent');

    const job = await api.waitForJob(token, id, undefined, 120_000);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.payment_status).toBe('paid');

    const attempts = await db.select().from(jobAttempts).where(eq(jobAttempts.jobId, id)).orderBy(asc(jobAttempts.startedAt));
    expect(attempts.map((a) => [a.agentId, a.outcome])).toEqual([
      ['doomed-agent', 'lease_expired'],
      ['rescuer-agent', 'completed'],
    ]);
    const events = await db.select().from(jobEvents).where(eq(jobEvents.jobId, id));
    expect(events.map((e) => e.reason)).toContain('lease expired');

    expect(await db.select().from(jobOutputs).where(eq(jobOutputs.jobId, id))).toHaveLength(1);
    const s3 = new S3Client({
      endpoint: stack.s3!.endpoint,
      region: stack.s3!.region,
      forcePathStyle: true,
      credentials: { accessKeyId: stack.s3!.accessKeyId, secretAccessKey: stack.s3!.secretAccessKey },
    });
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.s3!.bucket, Prefix: `jobs/${id}/` }));
    // The upload was committed to `source`; outputs live in the completing attempt's own folder
    // (the killed agent died before uploading anything).
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([
      `jobs/${id}/outputs/${attempts[1]!.id}/transcript_srt`,
      `jobs/${id}/outputs/${attempts[1]!.id}/transcript_words`,
      `jobs/${id}/source`,
    ]);

    // The dead agent's fence is refused: a late call from it (with its own credential) changes nothing.
    const doomedCredential = JSON.parse(readFileSync((await stack.agentAuth('doomed-agent')).credentialFile, 'utf8')).token as string;
    const stale = await fetch(`${coordinator.url}${AGENT_ROUTES.heartbeat}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${doomedCredential}`, 'content-type': 'application/json' },
      body: JSON.stringify({ v: 1, job_id: id, attempt_id: attempts[0]!.id, agent_id: 'doomed-agent' }),
    });
    expect(stale.status).toBe(409);
    expect(await stale.json()).toMatchObject({ stale: true });
    const txt = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=txt`, { token });
    expect(txt.body).toMatch(/dashwood/i);
  });
});
