// Several replicas share one Postgres, no leader, no Conductor. SIGKILL one mid-workflow and watch.
// Usage: PG_URL=... node src/recovery-test.ts   (writes results/recovery.json)
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import postgres from 'postgres';

const url = process.env.PG_URL!;
const sql = postgres(url, { max: 2, onnotice: () => {} });
await sql.unsafe('drop schema if exists dbos cascade; drop table if exists step_runs; drop table if exists replica_heartbeats');
await sql`create table step_runs (id serial primary key, wf text not null, step int not null, executor text not null, at timestamptz not null default clock_timestamp())`;
await sql`create table replica_heartbeats (executor text primary key, seen_at timestamptz not null)`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const events: object[] = [];
const T0 = Date.now();

const children: ChildProcess[] = [];
process.on('exit', () => { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); });
process.on('unhandledRejection', (e) => { console.error('FAILED', e, JSON.stringify(events.slice(-30))); process.exit(1); });
interface Rep { p: ChildProcess; name: string; send(o: object): void; wait(pred: (e: any) => boolean, ms: number): Promise<any> }
function replica(name: string, env: Record<string, string>): Rep {
  const p = spawn(process.execPath, ['src/replica.ts'], { env: { ...process.env, LOG: 'warn', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  children.push(p);
  const waiters: { pred: (e: any) => boolean; res: (e: any) => void }[] = [];
  let buf = '';
  p.stdout!.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i); buf = buf.slice(i + 1);
      try { const e = JSON.parse(line); e.rel = e.t - T0; e.proc = name; events.push(e); for (const w of [...waiters]) if (w.pred(e)) { waiters.splice(waiters.indexOf(w), 1); w.res(e); } } catch { events.push({ proc: name, out: line }); }
    }
  });
  p.stderr!.on('data', (d) => { const s = String(d); if (!/Deprecation|trace-deprecation/.test(s)) events.push({ proc: name, rel: Date.now() - T0, stderr: s.slice(0, 400) }); });
  return { p, name, send: (o) => p.stdin!.write(`${JSON.stringify(o)}\n`),
    wait: (pred, ms) => new Promise((res, rej) => { waiters.push({ pred, res }); setTimeout(() => rej(new Error(`${name}: timeout; last events: ${JSON.stringify(events.slice(-12))}`)), ms); }) };
}
const status = async (prefix: string) => sql`select workflow_uuid, status, executor_id, recovery_attempts from dbos.workflow_status where workflow_uuid like ${prefix + '%'} order by 1`;
const runs = async (prefix: string) => sql`select wf, count(*)::int as executions, count(distinct step)::int as distinct_steps, string_agg(distinct executor, ',') as executors from step_runs where wf like ${prefix + '%'} group by wf order by wf`;
const dupes = async (prefix: string) => sql`select wf, step, count(*)::int n, string_agg(executor, ',') as by from step_runs where wf like ${prefix + '%'} group by wf, step having count(*) > 1 order by 1, 2`;
const result: Record<string, unknown> = {};
const kill = (r: Rep, sig: NodeJS.Signals = 'SIGKILL') => { r.p.kill(sig); events.push({ proc: r.name, rel: Date.now() - T0, ev: `sent ${sig}` }); };

// S1+S2: distinct executor IDs, nobody adopts; the killed one comes back with the same ID.
{
  const A = replica('A', { EXECUTOR_ID: 'exec-A' }), B = replica('B', { EXECUTOR_ID: 'exec-B' });
  await Promise.all([A.wait((e) => e.ev === 'launched', 30_000), B.wait((e) => e.ev === 'launched', 30_000)]);
  A.send({ start: 3, prefix: 's1', steps: 10 });
  await sleep(1500);
  kill(A);
  const killedAt = Date.now();
  await sleep(12_000);
  result.s1_after_12s_with_B_alive = { status: await status('s1'), runs: await runs('s1') };
  const A2 = replica('A2', { EXECUTOR_ID: 'exec-A' });
  const l = await A2.wait((e) => e.ev === 'launched', 30_000);
  const fins = [];
  for (let i = 0; i < 3; i++) fins.push(await A2.wait((e) => e.ev === 'finished' || e.ev === 'wf-error', 20_000).catch(() => null));
  await sleep(4000); // A2 did not start them: it has no handle; poll the table
  result.s2_restart_same_executor = { relaunchMsAfterKill: l.t - killedAt, status: await status('s1'), runs: await runs('s1'), reExecutedSteps: await dupes('s1') };
  for (const r of [A2, B]) kill(r, 'SIGTERM');
}
// S3: distinct IDs + the hand-rolled adoption pass (heartbeats, stale after 3 s); A never comes back.
{
  const C = replica('C', { EXECUTOR_ID: 'exec-C' }), D = replica('D', { EXECUTOR_ID: 'exec-D', AUTO_ADOPT: '1' });
  await Promise.all([C.wait((e) => e.ev === 'launched', 30_000), D.wait((e) => e.ev === 'launched', 30_000)]);
  C.send({ start: 3, prefix: 's3', steps: 10 });
  await sleep(1500);
  kill(C);
  const killedAt = Date.now();
  const adopted = await D.wait((e) => e.ev === 'adopted' && e.from === 'exec-C', 20_000).catch(() => null);
  for (let t = 0; t < 60; t++) { const s = await status('s3'); if (s.every((r) => r.status === 'SUCCESS')) break; await sleep(500); }
  const doneAt = Date.now();
  const lastStep = await sql`select max(at) as at from step_runs where wf like 's3%'`;
  result.s3_adopted_by_other_replica = { adoptedMsAfterKill: adopted ? adopted.t - killedAt : null, adopted, allDoneMsAfterKill: doneAt - killedAt,
    status: await status('s3'), runs: await runs('s3'), reExecutedSteps: await dupes('s3') };
  // S5: a replica that is only paused (SIGSTOP) past the heartbeat window, then continues: fenced?
  const E = replica('E', { EXECUTOR_ID: 'exec-E' });
  await E.wait((e) => e.ev === 'launched', 30_000);
  E.send({ start: 2, prefix: 's5', steps: 10 });
  await sleep(1500);
  kill(E, 'SIGSTOP');
  await D.wait((e) => e.ev === 'adopted' && e.from === 'exec-E', 20_000).catch(() => null);
  await sleep(1500);
  kill(E, 'SIGCONT');
  for (let t = 0; t < 60; t++) { const s = await status('s5'); if (s.every((r) => r.status === 'SUCCESS')) break; await sleep(500); }
  await sleep(3000);
  result.s5_paused_replica_resumes = { status: await status('s5'), runs: await runs('s5'), reExecutedSteps: await dupes('s5'),
    eventsOfE: events.filter((e: any) => e.proc === 'E' && (e.ev === 'wf-error' || e.ev === 'finished' || e.stderr)).slice(0, 6) };
  for (const r of [D, E]) kill(r, 'SIGTERM');
}
// S4: both replicas left on the default executor ID ("local"); a second replica (re)starts while the first runs.
{
  const F = replica('F', {});
  await F.wait((e) => e.ev === 'launched', 30_000);
  F.send({ start: 2, prefix: 's4', steps: 10 });
  await sleep(1500);
  const G = replica('G', {});
  await G.wait((e) => e.ev === 'launched', 30_000);
  for (let t = 0; t < 60; t++) { const s = await status('s4'); if (s.every((r) => r.status === 'SUCCESS')) break; await sleep(500); }
  await sleep(3000);
  result.s4_default_executor_id_second_replica_starts = { status: await status('s4'), runs: await runs('s4'), reExecutedSteps: await dupes('s4'),
    eventsOfF: events.filter((e: any) => e.proc === 'F' && (e.ev === 'wf-error' || e.ev === 'finished')).slice(0, 6) };
  for (const r of [F, G]) kill(r, 'SIGTERM');
}
result.stderr = events.filter((e: any) => e.stderr).slice(0, 15);
writeFileSync('results/recovery.json', JSON.stringify(result, null, 2));
writeFileSync('results/recovery-events.json', JSON.stringify(events, null, 1));
console.log(JSON.stringify(result, null, 1).slice(0, 6000));
await sql.end();
process.exit(0);
