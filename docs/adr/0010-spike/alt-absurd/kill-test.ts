// Absurd under SIGKILL: two workers share one Postgres; the one that claimed the tasks is killed mid-task.
import pg from 'pg';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Absurd } from 'absurd-sdk';
const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 2 });
await pool.query('drop schema if exists absurd cascade; drop table if exists step_runs');
await pool.query(readFileSync(new URL('./absurd.sql', import.meta.url), 'utf8'));
await pool.query('create table step_runs (id serial primary key, wf text, step int, executor text, at timestamptz default clock_timestamp())');
const app = new Absurd({ db: pool, queueName: 'kill' });
await app.createQueue('kill');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const start = (id: string) => { const p = spawn(process.execPath, ['worker.ts'], { env: { ...process.env, WORKER_ID: id }, stdio: ['ignore', 'pipe', 'pipe'] }); p.stdout.on('data', (d) => process.stderr.write(`[${id}] ${d}`)); p.stderr.on('data', (d) => process.stderr.write(`[${id} err] ${d}`)); return p; };
const A = start('A');
await sleep(1500);
const ids = [];
for (let i = 0; i < 3; i++) ids.push((await app.spawn('slow', { n: 10 }, { queue: 'kill' })).taskID);
await sleep(1500);
const B = start('B'); // B starts after A claimed everything
await sleep(300);
A.kill('SIGKILL');
const killedAt = Date.now();
let doneAt = 0;
for (let i = 0; i < 100; i++) {
  const s = await Promise.all(ids.map((id) => app.fetchTaskResult(id)));
  if (s.every((x) => x?.state === 'completed')) { doneAt = Date.now(); break; }
  await sleep(200);
}
const runs = (await pool.query(`select wf, count(*)::int executions, count(distinct step)::int distinct_steps, string_agg(distinct executor, ',') executors from step_runs group by wf`)).rows;
const dup = (await pool.query(`select wf, step, string_agg(executor, ',') by from step_runs group by wf, step having count(*) > 1`)).rows;
const res = { lib: 'absurd-sdk@0.5.0', claimTimeoutS: 3, allDoneMsAfterKill: doneAt ? doneAt - killedAt : 'not done in 20 s', runs, reExecutedSteps: dup,
  final: await Promise.all(ids.map((id) => app.fetchTaskResult(id))) };
console.log(JSON.stringify(res, null, 1));
B.kill('SIGTERM');
await pool.end();
process.exit(0);
