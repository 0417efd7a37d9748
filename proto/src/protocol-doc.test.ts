import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JOB_CONTRACTS } from '@cutroom/shared/contracts/index';

const doc = readFileSync(new URL('../PROTOCOL.md', import.meta.url), 'utf8');

/** Each `<!-- outputs: a, b -->` marker with the table after it: `| \`name\` | \`content type\` | … |` rows. */
function outputTables(markdown: string): { types: string[]; outputs: Record<string, string> }[] {
  const lines = markdown.split('\n');
  const tables: { types: string[]; outputs: Record<string, string> }[] = [];
  lines.forEach((line, i) => {
    const marker = /^<!-- outputs: (.+) -->$/.exec(line);
    if (!marker) return;
    const outputs: Record<string, string> = {};
    for (const row of lines.slice(i + 1)) {
      if (!row.startsWith('|')) break;
      const cell = /^\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|/.exec(row);
      if (cell) outputs[cell[1]!] = cell[2]!;
    }
    tables.push({ types: marker[1]!.split(',').map((t) => t.trim()), outputs });
  });
  return tables;
}

describe('PROTOCOL.md', () => {
  it('lists every job type’s outputs once, with the names and content types of its contract', () => {
    const tables = outputTables(doc);
    const documented = tables.flatMap((t) => t.types);
    expect([...documented].sort()).toEqual(Object.keys(JOB_CONTRACTS).sort());
    for (const { types, outputs } of tables) {
      for (const type of types) {
        const contract = JOB_CONTRACTS[type as keyof typeof JOB_CONTRACTS];
        const declared = Object.fromEntries(Object.entries(contract.outputs).map(([name, spec]) => [name, spec.contentType]));
        expect(outputs, type).toEqual(declared);
      }
    }
  });
});
