// The chaos runner: one real stack (Postgres, NATS, MinIO, anvil with the test token, billing on,
// two agents, short leases), each scenario run N times, invariants checked after every run.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { undecodableMp4 } from '../harness/bad-media.ts';
import { chainPayer } from '../harness/chain-payer.ts';
import { concatWavs, librivoxUtterances } from '../harness/media.ts';
import { startStack } from '../harness/stack.ts';
import { checkChain, checkJobs } from './invariants.ts';
import { SCENARIOS, type ChaosContext } from './scenarios.ts';

export interface ChaosRow {
  scenario: string;
  runs: number;
  /** paid jobs the runs made (some scenarios make two) */
  jobs: number;
  /** runs where the fault landed where the scenario aimed (else the job ended first) */
  hits: number;
  completed: number;
  failedRefunded: number;
  stuck: number;
  duplicates: number;
  doubleCharges: number;
  /** chain Transfer logs / payer balance not matching the ledger after a run */
  chainMismatches: number;
  /** runs where a fenced-off agent's late work was accepted */
  staleAccepted: number;
  /** why failed jobs failed (code → count) */
  failures: Record<string, number>;
  /** runs that threw (the scenario itself could not be carried out) */
  errors: number;
  problems: string[];
  seconds: number;
}

export interface ChaosOptions {
  scenarios: string[];
  runs: number;
  /** every job must be final within this bound after its fault @default 120000 */
  boundMs?: number;
  leaseMs?: number;
  sweepMs?: number;
  log?: (msg: string) => void;
}

export const SCENARIO_NAMES = SCENARIOS.map((s) => s.name);

export async function runChaos(opts: ChaosOptions): Promise<ChaosRow[]> {
  const log = opts.log ?? ((m: string) => process.stderr.write(`[chaos] ${m}\n`));
  const leaseMs = opts.leaseMs ?? 3000;
  const boundMs = opts.boundMs ?? 120_000;
  const unknown = opts.scenarios.filter((s) => !SCENARIO_NAMES.includes(s));
  if (unknown.length) throw new Error(`unknown chaos scenarios ${unknown.join(', ')} (known: ${SCENARIO_NAMES.join(', ')})`);

  const work = mkdtempSync(join(tmpdir(), 'cutroom-chaos-'));
  const speech = join(work, 'speech.wav');
  const corrupt = join(work, 'corrupt.wav');
  await concatWavs(
    librivoxUtterances()
      .slice(0, 3)
      .map((u) => u.file),
    speech,
  );
  // Corrupt media that passes complete-upload's signature check and fails at the agent's probe (user-blamed, refunded).
  writeFileSync(corrupt, undecodableMp4(64 * 1024));
  // CHAOS_AGENT_LOG_LEVEL=debug shows what the agents did (their logs go to our stdout).
  const agentLog = process.env.CHAOS_AGENT_LOG_LEVEL;
  const stack = await startStack({
    // Its own Postgres and MinIO: the long form restarts them, and the invariants read global state.
    isolated: true,
    billing: true,
    storage: 's3',
    agents: 2,
    leaseMs,
    sweepMs: opts.sweepMs ?? 500,
    agentEnv: agentLog ? { LOG_LEVEL: agentLog } : undefined,
  });
  const payer = chainPayer(stack.billing!);
  const startBalance = await payer.balanceOf(payer.address);
  const children: ResultPromise[] = [];
  let agentSeq = 0;
  const ctx: ChaosContext = {
    stack,
    payer,
    speech,
    corrupt,
    leaseMs,
    live: [...stack.agents],
    nextAgentId: () => `chaos-agent-${++agentSeq}`,
    log,
    children,
  };
  const rows: ChaosRow[] = [];
  try {
    for (const name of opts.scenarios) {
      const scenario = SCENARIOS.find((s) => s.name === name)!;
      const row: ChaosRow = {
        scenario: name,
        runs: 0,
        jobs: 0,
        hits: 0,
        completed: 0,
        failedRefunded: 0,
        stuck: 0,
        duplicates: 0,
        doubleCharges: 0,
        chainMismatches: 0,
        staleAccepted: 0,
        failures: {},
        errors: 0,
        problems: [],
        seconds: 0,
      };
      const started = Date.now();
      for (let i = 0; i < opts.runs; i++) {
        row.runs++;
        try {
          const outcome = await scenario.run(ctx);
          if (outcome.hit) row.hits++;
          for (const c of await checkJobs(stack, outcome.jobIds, boundMs)) {
            row.jobs++;
            if (c.errorCode) row.failures[c.errorCode] = (row.failures[c.errorCode] ?? 0) + 1;
            if (c.verdict === 'completed') row.completed++;
            else if (c.verdict === 'failed_refunded') row.failedRefunded++;
            else row.stuck++;
            if (c.duplicate) row.duplicates++;
            if (c.doubleCharge) row.doubleCharges++;
            for (const p of c.problems) row.problems.push(`run ${i + 1} job ${c.id}: ${p}`);
          }
          const stale = (await outcome.staleCheck?.()) ?? [];
          if (stale.length) {
            row.staleAccepted++;
            row.problems.push(...stale.map((p) => `run ${i + 1}: ${p}`));
          }
          const chain = await checkChain(stack, startBalance);
          if (chain.length) {
            row.chainMismatches++;
            row.problems.push(...chain.map((p) => `run ${i + 1}: ${p}`));
          }
        } catch (err) {
          row.errors++;
          row.problems.push(`run ${i + 1}: ${(err as Error).stack ?? String(err)}`);
        }
        // Keep two live agents on the stack's coordinator for the next run.
        while (ctx.live.length < 2) ctx.live.push(await stack.startAgent(ctx.nextAgentId()));
        log(`${name} run ${i + 1}/${opts.runs} done`);
      }
      row.seconds = Math.round((Date.now() - started) / 1000);
      rows.push(row);
      // Each scenario's line as soon as it is done: an interrupted long run still shows what it found.
      log(`\n${formatTable([row])}`);
    }
  } finally {
    for (const c of children) c.kill('SIGKILL');
    await stack.stop();
  }
  return rows;
}

/** The table: one line per scenario. */
export function formatTable(rows: ChaosRow[]): string {
  const head = [
    'scenario',
    'runs',
    'fault hit',
    'jobs',
    'completed',
    'failed+refunded',
    'stuck',
    'duplicates',
    'double charges',
    'chain≠ledger',
    'stale accepted',
    'errors',
    's',
  ];
  const body = rows.map((r) => [
    r.scenario,
    r.runs,
    r.hits,
    r.jobs,
    r.completed,
    r.failedRefunded,
    r.stuck,
    r.duplicates,
    r.doubleCharges,
    r.chainMismatches,
    r.staleAccepted,
    r.errors,
    r.seconds,
  ]);
  const cells = [head, ...body].map((line) => line.map(String));
  const widths = head.map((_, i) => Math.max(...cells.map((l) => l[i]!.length)));
  const fmt = (l: string[]) => `| ${l.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const sep = `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`;
  const problems = rows.flatMap((r) => r.problems.map((p) => `  ${r.scenario}: ${p}`));
  const failures = rows.filter((r) => Object.keys(r.failures).length).map((r) => `  ${r.scenario}: ${JSON.stringify(r.failures)}`);
  return [
    fmt(cells[0]!),
    sep,
    ...cells.slice(1).map(fmt),
    ...(failures.length ? ['failure codes of failed (refunded) jobs:', ...failures] : []),
    ...(problems.length ? ['problems:', ...problems] : []),
  ].join('\n');
}

/** Whether every invariant held (no stuck job, duplicate, double charge, chain mismatch or error). */
export const allHeld = (rows: ChaosRow[]) => rows.every((r) => r.stuck + r.duplicates + r.doubleCharges + r.chainMismatches + r.staleAccepted + r.errors === 0);

/** A setting of the chaos suite from the environment (CHAOS_RUNS, CHAOS_BOUND_MS, CHAOS_SCENARIOS). */
export function chaosSetting(name: 'CHAOS_RUNS' | 'CHAOS_BOUND_MS', fallback: number): number;
export function chaosSetting(name: 'CHAOS_SCENARIOS', fallback: string[]): string[];
export function chaosSetting(name: string, fallback: number | string[]): number | string[] {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (Array.isArray(fallback)) return raw.split(',').map((s) => s.trim());
  const v = Number(raw);
  if (!Number.isInteger(v) || v < 1) throw new Error(`${name} must be a positive integer`);
  return v;
}
