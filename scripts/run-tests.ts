/**
 * The test runner behind `npm test` and the three tiers (CONTRIBUTING.md "Test tiers and the time budget"):
 *
 *   npm test                 Biome, the fast tier, then flows and slow together in one vitest run
 *   npm run test:fast        pure logic and the engine on PGlite: no services, no media, no models (< 90 s)
 *   npm run test:flows       the integration flows on real Postgres, JetStream, MinIO, ffmpeg, Whisper
 *   npm run test:slow        local-LLM flows, chaos, browser, terminal, deploy, cluster, replicas, fuzz
 *
 * The integration files run CUTROOM_TEST_WORKERS at a time (default: one per core; a flow mostly
 * waits on its processes, leases and polls, so two files overlap well on two cores, while three let
 * the CPU-bound ones — x264, Whisper, the text model — starve each other), the longest first
 * (test/setup/heavy-first-sequencer.ts); flows and slow share one run so neither waits on the
 * other's last file.
 *
 * Each run closes with the tiers' wall times, the ten slowest test files (whole files: imports and hooks count, test/setup/file-times-reporter.ts), and one plain line
 * `tests: N passed, N failed, N skipped` that CI and people read at a glance (the Biome check counts
 * as one test in it). Arguments after the tier select vitest tests (a file, -t …):
 * `bash scripts/run-node.sh scripts/run-tests.ts fast coordinator/src/payments`.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { SLOW } from '../test/setup/tiers.ts';

const TIERS = ['fast', 'flows', 'slow'] as const;
type Tier = (typeof TIERS)[number];

interface FileResult {
  name: string;
  startTime?: number;
  endTime?: number;
}
interface Report {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: FileResult[];
}

const [first, ...rest] = process.argv.slice(2);
const tierArg = TIERS.includes(first as Tier) ? (first as Tier) : null;
const filters = tierArg || first === 'all' ? rest : process.argv.slice(2);
const wholeSuite = tierArg === null && filters.length === 0;
/** One vitest run each; `npm test` runs the two integration tiers as one. */
const runs: readonly (readonly Tier[])[] = tierArg ? [[tierArg]] : [['fast'], ['flows', 'slow']];

/**
 * Integration files at once (CUTROOM_TEST_WORKERS overrides): one more than the cores, at least
 * three. The flows wait on leases, sweeps, uploads and polls, so two files on two cores left the
 * CPU idle 13-22 % of the run (user + sys against wall x cores); a third file fills it: on the
 * same machine and day, flows and slow took 916 s with two and 815 s with three, every test passing.
 */
const integrationWorkers = Number(process.env['CUTROOM_TEST_WORKERS'] ?? '') || Math.max(3, availableParallelism() + 1);

// The style check runs on a whole-suite run (npm test).
const lint = wholeSuite ? spawnSync(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'ci', '--error-on-warnings', '.'], { stdio: 'inherit' }) : null;
if (lint)
  process.stdout.write(lint.status === 0 ? 'lint: clean (biome ci)\n' : 'lint: FAILED (biome ci): run `npx biome check --write .` and fix what remains\n');
const lintFailed = lint ? Number(lint.status !== 0) : 0;
const lintPassed = lint ? Number(lint.status === 0) : 0;

const dir = mkdtempSync(join(tmpdir(), 'cutroom-tests-'));
/**
 * Every temporary folder of the run — the tests', their services' and their children's (agents,
 * ffmpeg, Whisper, the browser) — goes under one folder (TMPDIR for the vitest processes), removed
 * when the run passes and kept, and named, when it fails. Left to themselves, the files' own
 * folders came to ~700 MB a run and were never removed (14 GB in /tmp after a day's runs).
 */
const runTmp = mkdtempSync(join(tmpdir(), 'cutroom-run-'));
// As /tmp is: other users' processes (Postgres runs as its own user when the tests run as root) make and reach their folders here.
chmodSync(runTmp, 0o1777);
/**
 * Node's module compile cache for every Node process of the run (vitest's workers, agents, CLI and
 * coordinator children): the first process to import a module compiles it, the others load V8's
 * code. In the run's folder, not the user's cache (scripts/lib/node-path.sh), so clean clones do
 * not pile up entries keyed by their paths.
 */
const compileCache = join(runTmp, 'node-compile-cache');
const totals = { passed: lintPassed, failed: lintFailed, skipped: 0 };
const walls: string[] = [];
const files: { tier: Tier; name: string; startTime: number; endTime: number }[] = [];
let failedRun = false;

const tierOf = (name: string, tiers: readonly Tier[]): Tier => (tiers.length === 1 ? tiers[0]! : SLOW.includes(name) ? 'slow' : 'flows');

for (const tiers of runs) {
  const label = tiers.join('+');
  const report = join(dir, `${label}.json`);
  // The fast tier on every core too (vitest's default on two cores is one worker: 84 s, against 56 s on two).
  const workers = tiers.includes('fast') ? [`--maxWorkers=${availableParallelism()}`] : [`--maxWorkers=${integrationWorkers}`];
  const args = [
    'node_modules/vitest/vitest.mjs',
    'run',
    ...tiers.flatMap((t) => ['--project', t]),
    ...workers,
    '--passWithNoTests',
    '--reporter=default',
    '--reporter=json',
    '--reporter=./test/setup/file-times-reporter.ts',
    `--outputFile.json=${report}`,
    ...filters,
  ];
  process.stdout.write(`\n=== tier ${label}${workers.length ? ` (${integrationWorkers} files at once)` : ''} ===\n`);
  const started = Date.now();
  const timesFile = join(dir, `${label}.times.jsonl`);
  const run = spawnSync(process.execPath, args, {
    stdio: 'inherit',
    env: { ...process.env, TMPDIR: runTmp, NODE_COMPILE_CACHE: compileCache, CUTROOM_FILE_TIMES: timesFile },
  });
  const wallS = (Date.now() - started) / 1000;
  try {
    const r = JSON.parse(readFileSync(report, 'utf8')) as Report;
    totals.passed += r.numPassedTests;
    totals.failed += r.numFailedTests;
    totals.skipped += r.numPendingTests + r.numTodoTests;
    // Whole-file wall times (imports and hooks included) where the reporter wrote them, else the tests' span.
    const whole = new Map(fileTimes(timesFile).map((t) => [t.name, t]));
    const these = r.testResults.map((f) => {
      const name = relative(process.cwd(), f.name);
      const w = whole.get(name);
      return { tier: tierOf(name, tiers), name, startTime: w?.start ?? f.startTime ?? 0, endTime: w?.end ?? f.endTime ?? 0 };
    });
    files.push(...these);
    // In a shared run, a tier's wall time is from its first file's start to its last file's end.
    const spans = tiers.length === 1 ? '' : ` (${tiers.map((t) => tierSpan(t, these)).join(', ')})`;
    walls.push(`${label} ${wallS.toFixed(0)} s${spans}, ${r.testResults.length} files`);
  } catch {
    // vitest crashed before writing its report; its own output says why
    walls.push(`${label} ${wallS.toFixed(0)} s (no report)`);
    totals.failed += 1;
  }
  if (run.status !== 0) failedRun = true;
}

function fileTimes(path: string): { name: string; start: number; end: number }[] {
  try {
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { name: string; start: number; end: number });
  } catch {
    return [];
  }
}

function tierSpan(tier: Tier, of: typeof files): string {
  const mine = of.filter((f) => f.tier === tier);
  if (!mine.length) return `${tier} none`;
  const s = Math.min(...mine.map((f) => f.startTime));
  const e = Math.max(...mine.map((f) => f.endTime));
  return `${tier} files ${((e - s) / 1000).toFixed(0)} s`;
}

const slowest = files.sort((a, b) => b.endTime - b.startTime - (a.endTime - a.startTime)).slice(0, 10);
process.stdout.write(`\ntier wall times: ${walls.join('; ')}\n`);
if (slowest.length) {
  process.stdout.write('ten slowest test files:\n');
  for (const f of slowest) process.stdout.write(`  ${((f.endTime - f.startTime) / 1000).toFixed(1).padStart(7)} s  ${f.tier.padEnd(5)}  ${f.name}\n`);
}
const failed = lintFailed || failedRun || totals.failed;
if (failed) process.stdout.write(`\nthis run's temporary files are kept for a look: ${runTmp} (and the reports in ${dir})\n`);
else for (const d of [runTmp, dir]) rmSync(d, { recursive: true, force: true });
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(failed ? 1 : 0);
