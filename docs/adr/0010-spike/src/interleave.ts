// Isolation hazard on PGlite: the app's own transactions (PGlite's API, as drizzle-orm/pglite uses it)
// run while DBOS workflows checkpoint through the same PGlite. Each app transaction inserts a row and
// then ROLLS BACK on purpose; DBOS runs workflows of 10 steps meanwhile. Afterwards:
//   app rows that survived a rollback  (should be 0)
//   DBOS workflows not SUCCESS / steps missing (should be 0)
// Usage: node src/interleave.ts <pglite-np|pglite-socket|pg> [appVia=direct|socket]
import { DBOS } from '@dbos-inc/dbos-sdk';
import postgres from 'postgres';
import { openTarget, type TargetKind } from './targets.ts';

const kind = (process.argv[2] ?? 'pglite-np') as TargetKind;
const appVia = process.argv[3] ?? 'direct';
const t = await openTarget(kind, { npPoolMax: Number(process.env.NP_MAX ?? 1) });
let app = t.app;
if (appVia === 'socket') {
  // The app reaches PGlite through the same wire server as DBOS (postgres.js, as the coordinator uses on PG).
  const sql = postgres(t.dbos.systemDatabaseUrl!, { max: 4, onnotice: () => {} });
  app = {
    tx: async (fn) => void (await sql.begin(async (x) => fn((text, p) => x.unsafe(text, p as never[]) as never))),
    query: (text, p) => sql.unsafe(text, p as never[]) as never,
  };
}
if (appVia === 'pool') {
  // The app shares DBOS's pg.Pool (one connection over PGlite): every transaction, DBOS's or the app's, checks the one client out.
  const pool = t.dbos.systemDatabasePool!;
  app = {
    tx: async (fn) => {
      const c = await pool.connect();
      try {
        await c.query('BEGIN');
        await fn(async (text, p) => (await c.query(text, p as never[])).rows);
        await c.query('COMMIT');
      } catch (e) {
        await c.query('ROLLBACK');
        throw e;
      } finally {
        c.release();
      }
    },
    query: async (text, p) => (await pool.query(text, p as never[])).rows,
  };
}
if (appVia === 'none') app = { ...app, tx: async () => { await new Promise((r) => setTimeout(r, 5)); throw new Error('deliberate rollback'); } };
await app.query('create table if not exists app_rows (id serial primary key, note text)');
const wf = DBOS.registerWorkflow(async (n: number) => {
  for (let i = 0; i < n; i++) await DBOS.runStep(async () => {
    // STEP_APP=1: the step itself writes through the app's access (a step that records its effect in the app's tables).
    if (process.env.STEP_APP === '1') await app.tx(async (q) => void (await q('insert into app_rows(note) values ($1)', [`step-${DBOS.workflowID}-${i}`])));
    else await new Promise((r) => setTimeout(r, 1));
    return i;
  }, { name: `s${i}` });
  return n;
}, { name: 'il' });
DBOS.setConfig({ name: 'spike', logLevel: 'error', useListenNotify: false, ...t.dbos });
await DBOS.launch();
const errors: string[] = [];
const STEP_ROWS = process.env.STEP_APP === '1';
let stop = false;
const appLoop = (async () => {
  let n = 0;
  while (!stop) {
    try {
      await app.tx(async (q) => {
        await q('insert into app_rows(note) values ($1)', [`rolled-back-${n++}`]);
        await new Promise((r) => setTimeout(r, 5)); // the app awaits I/O inside its transaction
        throw new Error('deliberate rollback');
      });
    } catch (e) {
      const m = (e as Error).message;
      if (m !== 'deliberate rollback') errors.push(`app: ${m}`);
    }
  }
  return n;
})();
const ids: string[] = [];
const runs = [];
for (let i = 0; i < 20; i++) {
  const h = await DBOS.startWorkflow(wf)(10);
  ids.push(h.workflowID);
  runs.push(h.getResult().catch((e: Error) => errors.push(`wf: ${e.message}`)));
}
const done = await Promise.race([Promise.all(runs).then(() => 'done'), new Promise((r) => setTimeout(() => r('TIMEOUT after 60 s'), 60_000))]);
stop = true;
const appTx = await Promise.race([appLoop, new Promise((r) => setTimeout(() => r('app loop stuck'), 5000))]);
const survived = await app.query("select count(*)::int as n from app_rows where note like 'rolled-back-%'").catch((e) => [{ n: `query failed: ${e.message}` }]);
const statuses = await Promise.all(ids.map((id) => DBOS.getWorkflowStatus(id).then((s) => s?.status).catch((e) => `err ${e.message}`)));
const steps = await Promise.all(ids.map((id) => DBOS.listWorkflowSteps(id).then((s) => s?.length ?? 0).catch(() => -1)));
console.log(JSON.stringify({ kind, appVia, npMax: process.env.NP_MAX ?? 1, workflows: done, appTransactions: appTx,
  appRowsSurvivingRollback: (survived as { n: number }[])[0]?.n,
  stepRowsWritten: STEP_ROWS ? (await app.query("select count(*)::int as n from app_rows where note like 'step-%'") as { n: number }[])[0]?.n : undefined,
  notSuccess: statuses.filter((s) => s !== 'SUCCESS'), stepsMissing: steps.filter((n) => n !== 10).length,
  errors: [...new Set(errors)].slice(0, 6), errorCount: errors.length }));
await DBOS.shutdown().catch(() => {});
await t.close().catch(() => {});
process.exit(0);
