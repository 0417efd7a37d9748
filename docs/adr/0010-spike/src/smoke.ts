// Smoke test: DBOS launches on the target and runs a 3-step workflow. Usage: node src/smoke.ts <target>
import { DBOS } from '@dbos-inc/dbos-sdk';
import { openTarget, type TargetKind } from './targets.ts';

const kind = (process.argv[2] ?? 'pg') as TargetKind;
const t = await openTarget(kind, { npPoolMax: Number(process.env.NP_MAX ?? 1) });
const wf = DBOS.registerWorkflow(async (n: number) => {
  let acc = 0;
  for (let i = 0; i < n; i++) acc += await DBOS.runStep(async () => i, { name: `s${i}` });
  return acc;
}, { name: 'smoke' });
DBOS.setConfig({ name: 'spike', logLevel: process.env.LOG ?? 'warn', ...t.dbos });
const t0 = performance.now();
await DBOS.launch();
console.log(kind, 'launch ms', (performance.now() - t0).toFixed(0));
const h = await DBOS.startWorkflow(wf)(3);
console.log(kind, 'result', await h.getResult(), 'status', (await h.getStatus())?.status);
console.log(kind, 'steps', (await DBOS.listWorkflowSteps(h.workflowID))?.length);
await DBOS.shutdown();
await t.close();
console.log(kind, 'ok');
