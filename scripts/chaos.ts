/**
 * `npm run chaos`: the long form of the fault-injection suite (test/chaos/): every scenario N
 * times on one real stack (Postgres, nats-server, MinIO, anvil, billing on, two agents), then the
 * table. Exits 1 when an invariant broke.
 *   CHAOS_RUNS       runs per scenario (default 20)
 *   CHAOS_SCENARIOS  comma-separated names (default: all, see test/chaos/scenarios.ts)
 *   CHAOS_BOUND_MS   how long a job may take to become final after its fault (default 120000)
 */
import { allHeld, chaosSetting, formatTable, runChaos, SCENARIO_NAMES } from '../test/chaos/runner.ts';

const started = Date.now();
const rows = await runChaos({
  scenarios: chaosSetting('CHAOS_SCENARIOS', SCENARIO_NAMES),
  runs: chaosSetting('CHAOS_RUNS', 20),
  boundMs: chaosSetting('CHAOS_BOUND_MS', 120_000),
});
const verdict = allHeld(rows) ? 'all invariants held' : 'INVARIANTS BROKEN';
process.stdout.write(`\n${formatTable(rows)}\n\nchaos: ${Math.round((Date.now() - started) / 1000)} s, ${verdict}\n`);
process.exit(allHeld(rows) ? 0 : 1);
