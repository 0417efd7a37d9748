import { appendFileSync } from 'node:fs';
import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Each test file's whole wall time, for the "ten slowest" of scripts/run-tests.ts: from the moment
 * vitest queues it on a worker to its end, so imports, beforeAll (media made, stacks started) and
 * afterAll count. The JSON report's times span only the tests themselves, which left a file's
 * set-up out (7 s a file on average, 48 s for one). One JSON line per file to CUTROOM_FILE_TIMES.
 */
export default class FileTimesReporter implements Reporter {
  private readonly queued = new Map<string, number>();

  onTestModuleQueued(module: TestModule): void {
    this.queued.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule): void {
    const out = process.env['CUTROOM_FILE_TIMES'];
    const start = this.queued.get(module.moduleId);
    if (!out || start === undefined) return;
    const d = module.diagnostic();
    const line = {
      name: relative(process.cwd(), module.moduleId),
      start,
      end: Date.now(),
      collectMs: Math.round(d.collectDuration),
      setupMs: Math.round(d.setupDuration + d.environmentSetupDuration + d.prepareDuration),
    };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  }
}
