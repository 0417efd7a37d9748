// Absurd (absurd-sdk 0.5.0 + sql/absurd.sql from github earendil-works/absurd @9b77b35): a task of 10 no-op
// steps, per-step latency, on Postgres (PG_URL) or on PGlite in-process through pglite/node-postgres (pool max 1).
// Usage: node bench.ts <pg|pglite-np> [tasks=60]
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { Absurd } from 'absurd-sdk';
import { PGlite } from '@electric-sql/pglite';
import { createPgConfig } from '@electric-sql/pglite/node-postgres';

const kind = process.argv[2] ?? 'pg';
const N = Number(process.argv[3] ?? 60), WARM = 10, STEPS = 10;
let pool: pg.Pool;
let lite: PGlite | undefined;
const schema = readFileSync(new URL('./absurd.sql', import.meta.url), 'utf8');
if (kind === 'pg') {
  pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 4 });
  await pool.query('drop schema if exists absurd cascade');
  await pool.query(schema);
} else {
  lite = await PGlite.create(process.env.PGLITE_DIR ?? 'memory://');
  await lite.exec(schema);
  class C extends pg.Client { constructor(c: pg.ClientConfig) { super({ ...c, ...(createPgConfig(lite!) as object) } as pg.ClientConfig); } }
  pool = new pg.Pool({ ...(createPgConfig(lite) as object), max: 1, Client: C } as pg.PoolConfig);
}
let stmts = 0;
const oq = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) { stmts++; return (oq as (...x: unknown[]) => unknown).apply(this, a); } as never;
const app = new Absurd({ db: pool, queueName: 'bench' });
await app.createQueue('bench');
const laps: number[][] = [];
const done = new Map<string, () => void>();
app.registerTask({ name: 'bench10' }, async (params: { n: number; id: string }, ctx) => {
  const lap: number[] = [];
  let last = performance.now();
  for (let i = 0; i < params.n; i++) {
    await ctx.step(`noop${i}`, async () => i);
    const now = performance.now(); lap.push(now - last); last = now;
  }
  laps.push(lap);
  done.get(params.id)?.();
  return params.n;
});
const worker = await app.startWorker({ concurrency: 1, pollInterval: 0.01, claimTimeout: 60, workerId: 'bench' });
const lapsAll: number[] = [], wfAll: number[] = [];
let stmtsPerTask = 0;
for (let w = 0; w < N + 1; w++) {
  const id = `t${w}`;
  const t0 = performance.now();
  const p = new Promise<void>((r) => done.set(id, r));
  stmts = 0;
  await app.spawn('bench10', { n: STEPS, id });
  await p;
  if (w === N) { stmtsPerTask = stmts; break; }
  if (w >= WARM) { lapsAll.push(...laps.at(-1)!); wfAll.push(performance.now() - t0); }
}
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!; };
const sum = (xs: number[]) => ({ n: xs.length, p50: +pct(xs, 50).toFixed(3), p95: +pct(xs, 95).toFixed(3), mean: +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(3) });
console.log(JSON.stringify({ lib: 'absurd-sdk@0.5.0', target: kind, stepMs: sum(lapsAll), spawnToDoneMs: sum(wfAll), statementsPerTaskIncludingPolls: stmtsPerTask }));
await worker.close();
await pool.end().catch(() => {});
await lite?.close();
process.exit(0);
