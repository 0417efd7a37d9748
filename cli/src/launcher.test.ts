import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

describe('the cutroom launcher', () => {
  it('runs through the workspace link npm puts in node_modules/.bin, finding the Node the set-up installed even when the machine has only an older one', () => {
    // npx runs node_modules/.bin/cutroom → ../@cutroom/cli/bin/cutroom, itself a link to cli/:
    // the launcher must resolve the real folder to find scripts/lib/node-path.sh.
    const out = execFileSync('bash', [join(root, 'node_modules/.bin/cutroom'), '--help'], {
      cwd: root,
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME ?? '/root' },
      encoding: 'utf8',
    });
    expect(out).toMatch(/^cutroom: transcripts, summaries/);
  });
});
