import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AGENT_JOB_TYPES } from '@cutroom/shared/contracts/index';

/**
 * Keeps ARCHITECTURE.md's "Adding a job type" list true: every path it names (in backticks, from
 * the repository root) exists for every agent-run type. `<type>` is the type's name with dashes,
 * `<job_type>` the name as it is;
 * a `*` in the last segment must match a file that names the type (`'find_clips'`); a path ending
 * in `/` is a folder.
 */
const root = new URL('../../../', import.meta.url);
const architecture = readFileSync(new URL('ARCHITECTURE.md', root), 'utf8');

function addingAJobTypeList(markdown: string): string[] {
  const section = markdown.split('\n### Adding a job type\n')[1]?.split('\n## ')[0] ?? '';
  // The numbered items, each with its continuation lines (the text up to the first blank line after them).
  const list = section.slice(section.search(/^1\. /m)).split('\n\n')[0] ?? '';
  return [...list.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!).filter((token) => /^[\w.<>*/-]+(\.[a-z]+|\/)$/.test(token));
}

const paths = addingAJobTypeList(architecture);
const fileName = (type: string) => type.replaceAll('_', '-');

function matches(pattern: string, type: string): string[] {
  const path = pattern.replaceAll('<type>', fileName(type)).replaceAll('<job_type>', type);
  if (!path.includes('*')) return existsSync(new URL(path, root)) ? [path] : [];
  const folder = path.slice(0, path.lastIndexOf('/') + 1);
  const glob = new RegExp(`^${path.slice(folder.length).replaceAll('.', '\\.').replaceAll('*', '[^/]*')}$`);
  return readdirSync(new URL(folder, root))
    .filter((name) => glob.test(name))
    .map((name) => `${folder}${name}`)
    .filter((file) => readFileSync(new URL(file, root), 'utf8').includes(`'${type}'`));
}

describe('ARCHITECTURE.md, "Adding a job type"', () => {
  it('names the contract, the coordinator definition and the agent pipeline as the new files of a type', () => {
    expect(paths.filter((p) => p.includes('<type>'))).toEqual([
      'shared/src/contracts/<type>.ts',
      'coordinator/src/job-types/<type>.ts',
      'render-agent/src/pipelines/<type>.ts',
    ]);
    expect(paths).toContain('test/*.test.ts');
  });

  it.each(AGENT_JOB_TYPES)('holds for %s: every path it names exists', (type) => {
    for (const pattern of paths) expect(matches(pattern, type), `${pattern} for ${type}`).not.toEqual([]);
  });
});
