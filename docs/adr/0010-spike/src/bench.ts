// Per-step latency: DBOS workflow of 10 no-op steps vs the baseline of one plain INSERT+UPDATE
// transaction per step on the same database. Sequential (one workflow at a time), warm-up discarded.
// Usage: node src/bench.ts <pg|pglite-np> [workflows=60]   (PGLITE_DIR=memory:// or a folder)
import { DBOS } from '@dbos-inc/dbos-sdk';
import { openTarget, type TargetKind } from './targets.ts';

const kind = (process.argv[2] ?? 'pg') as TargetKind;
const W = Number(process.argv[3] ?? 60);
const WARM = 10;
const STEPS = 10;
const pgliteDir = process.env.PGLITE_DIR ?? 'memory://';
const t = await openTarget(kind, { pgliteDir, npPoolMax: 1 });
if (process.env.BASE_VIA === 'pool' && t.dbos.systemDatabasePool) {
  // Baseline through the same pg.Pool (node-postgres over PGlite) that DBOS uses, instead of PGlite's own API.
  const pool = t.dbos.systemDatabasePool;
  t.app = {
    tx: async (fn) => {
      const c = await pool.connect();
      try { await c.query('BEGIN'); await fn(async (text, p) => (await c.query(text, p as never[])).rows); await c.query('COMMIT'); }
      catch (e) { await c.query('ROLLBACK'); throw e; } finally { c.release(); }
    },
    query: async (text, p) => (await pool.query(text, p as never[])).rows,
  };
}
if (process.env.BASE_VIA === 'pg' && kind === 'pg') {
  // Baseline through node-postgres (DBOS's driver) instead of postgres.js (the coordinator's).
  const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 4 });
  t.app = {
    tx: async (fn) => {
      const c = await pool.connect();
      try { await c.query('BEGIN'); await fn(async (text, p) => (await c.query(text, p as never[])).rows); await c.query('COMMIT'); }
      catch (e) { await c.query('ROLLBACK'); throw e; } finally { c.release(); }
    },
    query: async (text, p) => (await pool.query(text, p as never[])).rows,
  };
}
// Statements DBOS sends (pg.Client.query calls), to count round trips per step.
import pg from 'pg';
let stmts = 0;
const origQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) { stmts++; return (origQuery as (...x: unknown[]) => unknown).apply(this, a); } as never;
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!; };
const summary = (xs: number[]) => ({ n: xs.length, p50: +pct(xs, 50).toFixed(3), p95: +pct(xs, 95).toFixed(3), mean: +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3) });

// ---- baseline: the hand-rolled step write, one transaction per step ----
await t.app.query('drop table if exists base_steps; drop table if exists base_wf'.split(';')[0]!);
await t.app.query('drop table if exists base_wf');
await t.app.query('create table base_wf (id text primary key, step int not null, updated_at timestamptz not null default now())');
await t.app.query('create table base_steps (wf text not null, step int not null, output jsonb, primary key (wf, step))');
async function baselineWorkflow(id: string, lap: number[]) {
  await t.app.query('insert into base_wf (id, step) values ($1, 0)', [id]);
  let last = performance.now();
  for (let i = 0; i < STEPS; i++) {
    await t.app.tx(async (q) => {
      await q('insert into base_steps (wf, step, output) values ($1, $2, $3)', [id, i, JSON.stringify({ v: i })]);
      await q('update base_wf set step = $2, updated_at = now() where id = $1', [id, i + 1]);
    });
    const now = performance.now();
    lap.push(now - last);
    last = now;
  }
}
const baseLap: number[] = [];
const baseWf: number[] = [];
for (let w = 0; w < W; w++) {
  const lap: number[] = [];
  const t0 = performance.now();
  await baselineWorkflow(`b-${w}-${Date.now()}`, lap);
  if (w >= WARM) { baseLap.push(...lap); baseWf.push(performance.now() - t0); }
}

// ---- DBOS ----
const laps: number[][] = [];
const wf = DBOS.registerWorkflow(async (n: number) => {
  const lap: number[] = [];
  let last = performance.now();
  for (let i = 0; i < n; i++) {
    await DBOS.runStep(async () => i, { name: `noop${i}` });
    const now = performance.now();
    lap.push(now - last);
    last = now;
  }
  laps.push(lap);
  return n;
}, { name: 'bench10' });
DBOS.setConfig({ name: 'spike', logLevel: 'warn', useListenNotify: kind === 'pg', ...t.dbos });
await DBOS.launch();
// One more workflow, alone, to count the statements it sends.
await new Promise((r) => setTimeout(r, 300));
stmts = 0;
await wf(STEPS);
const stmtsPerWorkflow = stmts;
stmts = 0;
await wf(0);
const stmtsPerEmptyWorkflow = stmts;
const dbosLap: number[] = [];
const dbosWf: number[] = [];
for (let w = 0; w < W; w++) {
  const t0 = performance.now();
  await wf(STEPS); // direct call: runs the workflow in this process and waits for it
  if (w >= WARM) { dbosLap.push(...laps.at(-1)!); dbosWf.push(performance.now() - t0); }
}
const b = summary(baseLap), d = summary(dbosLap);
console.log(JSON.stringify({
  target: kind, baselineVia: kind === 'pg' ? (process.env.BASE_VIA === 'pg' ? 'node-postgres' : 'postgres.js') : (process.env.BASE_VIA === 'pool' ? 'pg.Pool over pglite/node-postgres' : 'PGlite API'),
  dbosStatementsPerWorkflow: { tenSteps: stmtsPerWorkflow, zeroSteps: stmtsPerEmptyWorkflow, perStep: (stmtsPerWorkflow - stmtsPerEmptyWorkflow) / STEPS }, pgliteDir: kind === 'pg' ? undefined : pgliteDir, workflows: W - WARM, steps: STEPS,
  baselineStepMs: b, dbosStepMs: d,
  dbosOverheadPerStepMs: { p50: +(d.p50 - b.p50).toFixed(3), p95: +(d.p95 - b.p95).toFixed(3) },
  baselineWorkflowMs: summary(baseWf), dbosWorkflowMs: summary(dbosWf),
}));
await DBOS.shutdown();
await t.close();
process.exit(0);
