// (b) Can a manual clock drive DBOS's durable sleeps, workflow timeouts and delayed starts?
// DBOS reads time only through Date.now() and waits through setTimeout (no clock injection). Two tries:
//   MODE=date : fake only Date (@sinonjs/fake-timers toFake: ['Date']), and shorten DBOS's internal
//               maximum single wait (internal/utils sleepConfig.maxTimeoutMS) and the timeout sweep's
//               polling interval, so a jump of the fake clock is noticed within tens of real ms.
//   MODE=all  : fake Date and every timer (what vi.useFakeTimers() does by default), driven by tickAsync.
// Usage: PG_URL=... MODE=date|all node src/clock-test.ts [pg|pglite-np]
import FakeTimers from '@sinonjs/fake-timers';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { openTarget, type TargetKind } from './targets.ts';

const realSetTimeout = globalThis.setTimeout;
const realNow = Date.now;
const wait = (ms: number) => new Promise((r) => realSetTimeout(r, ms));
const mode = process.env.MODE ?? 'date';
const kind = (process.argv[2] ?? 'pg') as TargetKind;
const out: Record<string, unknown> = { mode, kind };
// Hard guard on real time: a fully faked event loop may never end.
realSetTimeout(() => { out.guard = 'TIMED OUT after 60 s of real time'; console.log(JSON.stringify(out)); process.exit(2); }, 60_000).unref?.();

const start = new Date('2026-01-01T00:00:00Z').getTime();
const clock = mode === 'all'
  ? FakeTimers.install({ now: start, toFake: ['Date', 'setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'], shouldClearNativeTimers: true })
  : FakeTimers.install({ now: start, toFake: ['Date'] });
if (mode === 'date') {
  const utils = await import('@dbos-inc/dbos-sdk/internal/utils');
  (utils as unknown as { sleepConfig: { maxTimeoutMS: number } }).sleepConfig.maxTimeoutMS = 20;
  const wm = await import('@dbos-inc/dbos-sdk/internal/workflow_management');
  (wm as unknown as { workflowTimeoutConfig: { pollingIntervalMs: number } }).workflowTimeoutConfig.pollingIntervalMs = 50;
}
const t = await openTarget(kind, { npPoolMax: 1 });
const marks: Record<string, number> = {};
const sleeper = DBOS.registerWorkflow(async () => {
  await DBOS.runStep(async () => { marks.before = Date.now(); });
  await DBOS.sleep(3600_000); // one hour, durable
  await DBOS.runStep(async () => { marks.after = Date.now(); });
  return 'woke';
}, { name: 'sleeper' });
const longOne = DBOS.registerWorkflow(async () => { await DBOS.sleep(7200_000); return 'not cancelled'; }, { name: 'longOne' });
DBOS.setConfig({ name: 'spike-clock', logLevel: 'warn', useListenNotify: false, ...t.dbos });
const launchAt = realNow();
if (mode === 'all') {
  // Everything waits on fake timers now: launching needs the fake clock to run.
  const p = DBOS.launch();
  let settled = false;
  p.then(() => (settled = true), (e) => { out.launchError = String(e); settled = true; });
  for (let i = 0; i < 200 && !settled; i++) { await clock.tickAsync(50); await wait(5); }
  out.launched = settled && !out.launchError;
  out.launchRealMs = realNow() - launchAt;
  if (!out.launched) { console.log(JSON.stringify(out)); process.exit(1); }
} else {
  await DBOS.launch();
}
const h = await DBOS.startWorkflow(sleeper)();
const h2 = await DBOS.startWorkflow(longOne, { timeoutMS: 60_000 })();
const advance = async (ms: number) => (mode === 'all' ? clock.tickAsync(ms) : clock.tick(ms));
// Let both reach their sleep, without moving the fake clock (MODE=all: tiny ticks so I/O completes).
for (let i = 0; i < 20; i++) { if (mode === 'all') await clock.tickAsync(1); await wait(25); }
out.beforeAdvance = { sleeper: (await h.getStatus())?.status, afterStepRan: marks.after !== undefined, longOne: (await h2.getStatus())?.status };
const t0 = realNow();
await advance(3600_000 + 1000);
let s1: string | undefined, s2: string | undefined;
for (let i = 0; i < 100; i++) {
  s1 = (await h.getStatus())?.status; s2 = (await h2.getStatus())?.status;
  if (s1 === 'SUCCESS' && s2 === 'CANCELLED') break;
  if (mode === 'all') await clock.tickAsync(10);
  await wait(20);
}
out.afterAdvance = { sleeper: s1, longOne: s2, realMsAfterAdvance: realNow() - t0, fakeElapsedMsSeenBySteps: marks.after && marks.before ? marks.after - marks.before : null };
console.log(JSON.stringify(out));
clock.uninstall();
await DBOS.shutdown().catch(() => {});
await t.close().catch(() => {});
process.exit(0);
