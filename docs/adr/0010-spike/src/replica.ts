// One "coordinator replica": DBOS launched with EXECUTOR_ID against PG_URL, the same workflow code
// in every replica. Every step execution is logged in the app table step_runs (to see re-runs).
// Commands arrive on stdin as JSON lines: {"start":n} starts n workflows here; {"adopt":true} runs
// the hand-rolled dead-executor pass once (resume PENDING workflows of executors whose heartbeat
// is older than HEARTBEAT_STALE_MS); every replica heartbeats into replica_heartbeats every 500 ms.
// AUTO_ADOPT=1 runs that pass every second.
import { DBOS } from '@dbos-inc/dbos-sdk';
import postgres from 'postgres';
import { createInterface } from 'node:readline';

const me = process.env.EXECUTOR_ID ?? 'local';
const sql = postgres(process.env.PG_URL!, { max: 4, onnotice: () => {} });
const log = (o: object) => process.stdout.write(`${JSON.stringify({ t: Date.now(), me, ...o })}\n`);
const STEP_MS = Number(process.env.STEP_MS ?? 300);
const STALE = Number(process.env.HEARTBEAT_STALE_MS ?? 3000);

export const slow = DBOS.registerWorkflow(async (steps: number) => {
  for (let i = 0; i < steps; i++) {
    await DBOS.runStep(async () => {
      await sql`insert into step_runs (wf, step, executor) values (${DBOS.workflowID!}, ${i}, ${me})`;
      await new Promise((r) => setTimeout(r, STEP_MS));
      return i;
    }, { name: `step${i}` });
  }
  return `done by ${me}`;
}, { name: 'slow' });

// Replicas starting together race on DBOS's own system-table migrations ("tuple concurrently updated",
// results/migration-race-replica-y.log): migrate under the project's migration advisory lock, then launch without migrating.
if (process.env.MIGRATE_UNLOCKED !== '1') {
  const m = postgres(process.env.PG_URL!, { max: 1, onnotice: () => {} });
  // Not a blocking pg_advisory_lock: DBOS's online migrations run CREATE INDEX CONCURRENTLY, which waits for
  // every open transaction, including a peer's statement blocked in pg_advisory_lock (an app-level deadlock,
  // seen: both replicas stuck after "Running DBOS system database migrations..."). Poll with try-lock instead.
  for (;;) {
    const [{ ok }] = await m`select pg_try_advisory_lock(${String(0x637574726f6f6dn)}::bigint) as ok`;
    if (ok) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  await DBOS.migrate(process.env.PG_URL!);
  await m.end();
}
DBOS.setConfig({ name: 'spike-recovery', runMigrations: process.env.MIGRATE_UNLOCKED === '1', logLevel: process.env.LOG ?? 'info', systemDatabaseUrl: process.env.PG_URL!, ...(process.env.EXECUTOR_ID && { executorID: me }),
  ...(process.env.APP_VERSION && { applicationVersion: process.env.APP_VERSION }) });
await DBOS.launch();
log({ ev: 'launched', executorID: DBOS.executorID, appVersion: DBOS.applicationVersion });

async function heartbeat() {
  await sql`insert into replica_heartbeats (executor, seen_at) values (${me}, now()) on conflict (executor) do update set seen_at = now()`;
}
await heartbeat();
setInterval(() => void heartbeat().catch(() => {}), 500).unref();

/** The pass DBOS does not have without Conductor: adopt the pending workflows of executors that stopped heartbeating. */
async function adoptDead() {
  const dead = await sql`select executor from replica_heartbeats where seen_at < now() - make_interval(secs => ${STALE / 1000}) and executor <> ${me}`;
  for (const { executor } of dead) {
    // One replica adopts a dead executor's workflows: claim it by deleting its heartbeat row.
    const [claimed] = await sql`delete from replica_heartbeats where executor = ${executor} and seen_at < now() - make_interval(secs => ${STALE / 1000}) returning executor`;
    if (!claimed) continue;
    const pending = await DBOS.listWorkflows({ status: 'PENDING', executorId: executor });
    const ids = pending.map((w) => w.workflowID);
    if (ids.length) await DBOS.resumeWorkflows(ids);
    log({ ev: 'adopted', from: executor, workflows: ids });
  }
}
if (process.env.AUTO_ADOPT === '1') setInterval(() => void adoptDead().catch((e) => log({ ev: 'adopt-error', err: String(e) })), 1000).unref();

const rl = createInterface({ input: process.stdin });
// The orchestrator's pipe closing (it exited) ends this replica too.
rl.on('close', () => process.exit(0));
rl.on('line', async (line) => {
  const cmd = JSON.parse(line);
  if (cmd.start) {
    for (let i = 0; i < cmd.start; i++) {
      const h = await DBOS.startWorkflow(slow, { workflowID: `${cmd.prefix ?? 'wf'}-${i}` })(cmd.steps ?? 10);
      log({ ev: 'started', wf: h.workflowID });
      h.getResult().then((r) => log({ ev: 'finished', wf: h.workflowID, r }), (e) => log({ ev: 'wf-error', wf: h.workflowID, err: String(e) }));
    }
  }
  if (cmd.adopt) await adoptDead().catch((e) => log({ ev: 'adopt-error', err: String(e) }));
  if (cmd.exit) { await DBOS.shutdown(); await sql.end(); process.exit(0); }
});
