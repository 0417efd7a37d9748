import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/** The project's own Markdown: the top-level pages, each package's README, docs/ (the ADR spike's notes excluded). Paths relative to the root. */
export function docFiles(): string[] {
  const top = ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md'];
  const packages = ['coordinator', 'render-agent', 'shared', 'proto', 'cli', 'admin-console', 'deploy', 'test'].map((p) => `${p}/README.md`);
  const walk = (dir: string): string[] =>
    readdirSync(join(REPO_ROOT, dir)).flatMap((name) => {
      const path = `${dir}/${name}`;
      if (path.startsWith('docs/adr/0010-spike')) return [];
      if (statSync(join(REPO_ROOT, path)).isDirectory()) return walk(path);
      return name.endsWith('.md') ? [path] : [];
    });
  return [...top, ...packages, ...walk('docs')].filter((p) => existsSync(join(REPO_ROOT, p))).map((p) => relative(REPO_ROOT, join(REPO_ROOT, p)));
}
