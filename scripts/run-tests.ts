/**
 * The test runner behind `npm test` and the three tiers (CONTRIBUTING.md "Test tiers and the time budget"):
 *
 *   npm test                 Biome, then the tiers fast → flows → slow, one vitest run each
 *   npm run test:fast        pure logic and the engine on PGlite: no services, no media, no models (< 90 s)
 *   npm run test:flows       the integration flows on real Postgres, JetStream, MinIO, ffmpeg, Whisper
 *   npm run test:slow        local-LLM flows, chaos, browser, terminal, deploy, cluster, replicas, fuzz
 *
 * Each run closes with the tiers' wall times, the ten slowest test files, and one plain line
 * `tests: N passed, N failed, N skipped` that CI and people read at a glance (the Biome check counts
 * as one test in it). Arguments after the tier select vitest tests (a file, -t …):
 * `bash scripts/run-node.sh scripts/run-tests.ts fast coordinator/src/payments`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

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
const tiers: readonly Tier[] = tierArg ? [tierArg] : TIERS;
const filters = tierArg || first === 'all' ? rest : process.argv.slice(2);
const wholeSuite = tiers.length === TIERS.length && filters.length === 0;

// The style check runs on a whole-suite run (npm test).
const lint = wholeSuite ? spawnSync(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'ci', '--error-on-warnings', '.'], { stdio: 'inherit' }) : null;
if (lint)
  process.stdout.write(lint.status === 0 ? 'lint: clean (biome ci)\n' : 'lint: FAILED (biome ci): run `npx biome check --write .` and fix what remains\n');
const lintFailed = lint ? Number(lint.status !== 0) : 0;
const lintPassed = lint ? Number(lint.status === 0) : 0;

const dir = mkdtempSync(join(tmpdir(), 'cutroom-tests-'));
const totals = { passed: lintPassed, failed: lintFailed, skipped: 0 };
const walls: string[] = [];
const files: { tier: Tier; name: string; ms: number }[] = [];
let failedRun = false;

for (const tier of tiers) {
  const report = join(dir, `${tier}.json`);
  const args = [
    'node_modules/vitest/vitest.mjs',
    'run',
    '--project',
    tier,
    '--passWithNoTests',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${report}`,
    ...filters,
  ];
  process.stdout.write(`\n=== tier ${tier} ===\n`);
  const started = Date.now();
  const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
  const wallS = (Date.now() - started) / 1000;
  try {
    const r = JSON.parse(readFileSync(report, 'utf8')) as Report;
    totals.passed += r.numPassedTests;
    totals.failed += r.numFailedTests;
    totals.skipped += r.numPendingTests + r.numTodoTests;
    for (const f of r.testResults) files.push({ tier, name: relative(process.cwd(), f.name), ms: (f.endTime ?? 0) - (f.startTime ?? 0) });
    walls.push(`${tier} ${wallS.toFixed(0)} s (${r.testResults.length} files)`);
  } catch {
    // vitest crashed before writing its report; its own output says why
    walls.push(`${tier} ${wallS.toFixed(0)} s (no report)`);
    totals.failed += 1;
  }
  if (run.status !== 0) failedRun = true;
}

const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, 10);
process.stdout.write(`\ntier wall times: ${walls.join(', ')}\n`);
if (slowest.length) {
  process.stdout.write('ten slowest test files:\n');
  for (const f of slowest) process.stdout.write(`  ${(f.ms / 1000).toFixed(1).padStart(7)} s  ${f.tier.padEnd(5)}  ${f.name}\n`);
}
process.stdout.write(`\ntests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`);
process.exit(lintFailed || failedRun || totals.failed ? 1 : 0);
