/**
 * Writes the generated regions of the docs (`<!-- generated: NAME -->` … `<!-- /generated -->`)
 * from the tables in code (coordinator/src/docs/type-facts.ts): `npm run docs`. The docs test
 * fails while a region is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { docFiles, REPO_ROOT } from '../coordinator/src/docs/doc-files.ts';
import { renderGenerated } from '../coordinator/src/docs/type-facts.ts';

let changed = 0;
for (const path of docFiles()) {
  const file = join(REPO_ROOT, path);
  const text = readFileSync(file, 'utf8');
  const next = renderGenerated(path, text);
  if (next !== text) {
    writeFileSync(file, next);
    changed++;
    process.stdout.write(`updated ${path}\n`);
  }
}
process.stdout.write(`docs: ${changed} file${changed === 1 ? '' : 's'} updated\n`);
