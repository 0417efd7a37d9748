/**
 * `npm test`: the whole suite (unit, then integration) through vitest, then one plain closing
 * line `tests: N passed, N failed, N skipped` that CI and people can read at a glance.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const report = join(mkdtempSync(join(tmpdir(), 'cutroom-tests-')), 'report.json');
const args = ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
const run = spawnSync(process.execPath, args, { stdio: 'inherit' });

let summary = 'tests: no report written';
try {
  const r = JSON.parse(readFileSync(report, 'utf8')) as { numPassedTests: number; numFailedTests: number; numPendingTests: number; numTodoTests: number };
  summary = `tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`;
} catch { /* vitest crashed before writing its report; its own output says why */ }
process.stdout.write(`\n${summary}\n`);
process.exit(run.status ?? 1);
