// One Absurd worker process (WORKER_ID), claim lease CLAIM_S seconds; each step logged in step_runs.
import pg from 'pg';
import { Absurd } from 'absurd-sdk';
const me = process.env.WORKER_ID!;
const pool = new pg.Pool({ connectionString: process.env.PG_URL, max: 4 });
const app = new Absurd({ db: pool, queueName: 'kill' });
app.registerTask({ name: 'slow' }, async (p: { n: number }, ctx) => {
  for (let i = 0; i < p.n; i++) {
    await ctx.step(`step${i}`, async () => {
      await pool.query('insert into step_runs (wf, step, executor) values ($1, $2, $3)', [ctx.taskID, i, me]);
      await new Promise((r) => setTimeout(r, 300));
      return i;
    });
  }
  console.log(JSON.stringify({ t: Date.now(), me, ev: 'finished', task: ctx.taskID }));
  return me;
});
await app.startWorker({ workerId: me, claimTimeout: Number(process.env.CLAIM_S ?? 3), concurrency: 4, pollInterval: 0.2 });
console.log(JSON.stringify({ t: Date.now(), me, ev: 'ready' }));
