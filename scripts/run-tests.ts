/**
 * `npm test`: Biome (formatting and lint, warnings are errors), then the whole suite (unit, then
 * integration) through vitest, then one plain closing line `tests: N passed, N failed, N skipped`
 * that CI and people can read at a glance. The Biome check counts as one test in that line.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

// Arguments select vitest tests (a file, -t …); the style check runs only on a whole-suite run.
const wholeSuite = process.argv.length <= 2;
const lint = wholeSuite ? spawnSync(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'ci', '--error-on-warnings', '.'], { stdio: 'inherit' }) : null;
if (lint)
  process.stdout.write(lint.status === 0 ? 'lint: clean (biome ci)\n' : 'lint: FAILED (biome ci): run `npx biome check --write .` and fix what remains\n');
const lintFailed = lint ? Number(lint.status !== 0) : 0;
const lintPassed = lint ? Number(lint.status === 0) : 0;

const report = join(mkdtempSync(join(tmpdir(), 'cutroom-tests-')), 'report.json');
const args = ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync(process.execPath, args, { stdio: 'inherit' });

let summary = 'tests: no report written';
try {
  const r = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
  summary = `tests: ${r.numPassedTests + lintPassed} passed, ${r.numFailedTests + lintFailed} failed, ${r.numPendingTests + r.numTodoTests} skipped`;
} catch {
  /* vitest crashed before writing its report; its own output says why */
}
process.stdout.write(`\n${summary}\n`);
process.exit(lintFailed ? 1 : (run.status ?? 1));
