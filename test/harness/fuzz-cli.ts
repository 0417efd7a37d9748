// `npm run fuzz`: the long schemathesis run. Starts the same stack as test/api-fuzz.test.ts
// (Postgres, nats-server, local blobs, one agent, billing off), seeds it, streams schemathesis's
// report and exits with its status (0: no 5xx, no undeclared status / body / content type).
//   FUZZ_MAX_EXAMPLES  cases per operation and phase (default 500)
//   FUZZ_SEED          (default: 20251123, the test's seed; any number for a different run)
//   FUZZ_WORKERS       parallel schemathesis workers (default 2)
//   FUZZ_BILLING=1     billing on (local chain + card processor fake): the 402 paths; no completed seed job
// Anything after `--` goes to `schemathesis run`, e.g. `npm run fuzz -- --max-time 900`.
import { runSchemathesis, seedFuzzData } from './fuzz.ts';
import { startStack } from './stack.ts';

const env = (name: string, fallback: number) => {
  const v = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
};
const maxExamples = env('FUZZ_MAX_EXAMPLES', 500);
const seedValue = env('FUZZ_SEED', 20251123);
const workers = env('FUZZ_WORKERS', 2);
const billing = process.env.FUZZ_BILLING === '1';

process.stderr.write(`[fuzz] starting Postgres, nats-server, the coordinator and one agent${billing ? ', billing on' : ''}\n`);
const stack = await startStack({ storage: 'local', agents: 1, billing });
let exitCode = 1;
try {
  const seed = await seedFuzzData(stack);
  process.stderr.write(`[fuzz] seeded ${seed.jobIds.length} jobs; schemathesis --max-examples ${maxExamples} --seed ${seedValue} --workers ${workers}\n`);
  const r = await runSchemathesis(stack.coordinator.url, seed, { maxExamples, seed: seedValue, workers, inherit: true, extraArgs: process.argv.slice(2) });
  process.stderr.write(`[fuzz] ${r.cases ?? '?'} cases in ${r.seconds.toFixed(1)} s, exit ${r.exitCode}\n`);
  exitCode = r.exitCode;
} finally {
  await stack.stop();
}
process.exit(exitCode);
