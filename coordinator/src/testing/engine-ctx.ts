import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCoordinatorConfig } from '../config.ts';
import type { Ctx } from '../context.ts';
import { openDatabase } from '../db/database.ts';
import { agents, jobs, type JobRow } from '../db/schema.ts';
import { createManualClock } from '../lib/clock.ts';
import { createLogger } from '../lib/logger.ts';
import { createBilling } from '../payments/billing.ts';
import { natsAuthKeys, newNatsAuthSeeds } from '../nats-auth/keys.ts';
import { LocalBlobStore } from '../storage/local-blob-store.ts';
import { pgliteTemplate } from './pglite-template.ts';
import { eq, sql } from 'drizzle-orm';
import { mp4Bytes, wavBytes } from '@cutroom/shared/testing/media-bytes';

export type EngineCtx = Ctx & {
  clock: ReturnType<typeof createManualClock>;
  /** How often the outbox relay and the step worker were woken, and which attempts were told to stop. */
  notified: { outbox: number; steps: number; cancelled: string[]; natsPushes: number };
  /**
   * Back to a fresh context's state, for a file whose tests each want one: every table emptied,
   * the blob store emptied, the clock and the counters back to their start. Milliseconds, where a
   * new context takes about half a second.
   */
  reset(): Promise<void>;
  close(): Promise<void>;
};

/**
 * A coordinator's service context for engine tests: PGlite in memory (the real migrations), a
 * local blob store in a temporary folder, billing off, a silent logger and the manual clock, so
 * leases and retention are moved by `clock.advance` instead of waited for. No HTTP, no NATS.
 */
export async function createEngineCtx(env: Record<string, string> = {}): Promise<EngineCtx> {
  const dir = mkdtempSync(join(tmpdir(), 'cutroom-engine-'));
  // No retry back-off unless a test asks: engine tests re-claim a failed job on a manual clock.
  const config = loadCoordinatorConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent', LEASE_MS: '30000', RETRY_BACKOFF_MS: '0', ...env });
  const start = new Date('2026-11-01T00:00:00Z');
  const clock = createManualClock(start);
  // The run's migrated template when there is one (the fast tier makes it once), else migrated here.
  const database = await openDatabase({ pgliteDir: 'memory://', pgliteTemplate: pgliteTemplate() });
  const blobs = new LocalBlobStore({
    root: join(dir, 'blobs'),
    publicBaseUrl: config.publicBaseUrl,
    signingSecret: 'engine-test-signing-secret',
    maxUploadBytes: config.UPLOAD_MAX_BYTES,
    clock: () => clock.now().getTime(),
  });
  await blobs.ensureReady();
  const notified = { outbox: 0, steps: 0, cancelled: [] as string[], natsPushes: 0 };
  return {
    db: database.db,
    blobs,
    clock,
    config,
    logger: createLogger('silent'),
    billing: createBilling(config, clock, database.db),
    notifyOutbox: () => void notified.outbox++,
    // No step worker here: a test runs due steps itself (composites/steps.ts driveComposite).
    nudgeSteps: () => void notified.steps++,
    cancelAttempt: (id) => void notified.cancelled.push(id),
    // Real keys (JWTs are signed and can be decoded); no server to push to: the pushes are counted.
    natsAuth: { keys: natsAuthKeys(newNatsAuthSeeds()), pushAccount: async () => void notified.natsPushes++ },
    notified,
    async reset() {
      // PGlite's driver answers execute() with `{ rows }` (the Db type spans both drivers).
      const { rows } = (await database.db.execute(sql`select tablename from pg_tables where schemaname = 'public'`)) as unknown as {
        rows: { tablename: string }[];
      };
      await database.db.execute(sql.raw(`truncate ${rows.map((r) => `"${r.tablename}"`).join(', ')} restart identity cascade`));
      rmSync(join(dir, 'blobs'), { recursive: true, force: true });
      await blobs.ensureReady();
      clock.set(start);
      Object.assign(notified, { outbox: 0, steps: 0, cancelled: [], natsPushes: 0 });
    },
    async close() {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Registers an agent as the claim's liveness check sees it (work kinds, last seen now). */
export async function addAgent(ctx: EngineCtx, id: string, kinds: string[] = ['transcribe']): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db
    .insert(agents)
    .values({ id, capabilities: { work_kinds: kinds }, registeredAt: now, lastSeenAt: now })
    .onConflictDoUpdate({ target: agents.id, set: { lastSeenAt: now } });
}

export async function jobRow(ctx: EngineCtx, id: string): Promise<JobRow> {
  const [row] = await ctx.db.select().from(jobs).where(eq(jobs.id, id)).limit(1);
  if (!row) throw new Error(`no job ${id}`);
  return row;
}

/** A session and a transcribe job whose (fake) upload is stored and completed: queued for an agent. */
export async function queueTranscribeJob(ctx: EngineCtx, opts: { contentType?: string } = {}): Promise<{ jobId: string; token: string }> {
  const { createSessionCall, createJobCall, completeUploadCall } = await import('../service/index.ts');
  const session = await createSessionCall(ctx);
  const creds = { bearer: session.session_token, authorization: `Bearer ${session.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' };
  const contentType = opts.contentType ?? 'audio/wav';
  const created = await createJobCall(ctx, creds, { job_type: 'transcribe', filename: 'talk.wav', content_type: contentType });
  // Where the upload URL writes; complete-upload commits it to the job's source.
  await ctx.blobs.put(`jobs/${created.value.job_id}/upload`, contentType.startsWith('video/') ? mp4Bytes() : wavBytes(), contentType);
  await completeUploadCall(ctx, creds, created.value.job_id);
  return { jobId: created.value.job_id, token: session.session_token };
}
