import path from 'node:path';
import madge from 'madge';
import { beforeAll, describe, expect, it } from 'vitest';

/**
 * The import graph of every package's sources, built by madge from the TypeScript sources (type-only
 * imports included): no cycles anywhere, and the coordinator's lib/ (helpers every feature uses)
 * imports no feature. A cycle makes module order matter (a registry object built at load time
 * reads a binding still in its temporal dead zone) and hides layering mistakes; the job-type
 * registry, the composites and the core job functions depend on each other in one direction only
 * (ARCHITECTURE.md, "Job types").
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const PACKAGES = ['coordinator/src', 'render-agent/src', 'shared/src', 'proto/src', 'cli/src'];

/** The coordinator's transports: thin mappings of the facades onto their wire. */
const TRANSPORT = /^coordinator\/src\/(http|mcp|admin)\//;
/**
 * What a transport may import besides itself: the three facades (callers: service/index.ts,
 * operators: operators/index.ts, agents: agents/index.ts), the process's plumbing (Ctx, config,
 * version, lib/), the payment protocols' wire codecs (MPP, x402), the documents it serves
 * (discovery/, metrics/), the HTTP idempotency store, and the job-type definitions it reads its
 * schemas from.
 */
const ALLOWED = [
  /^coordinator\/src\/(service|operators|agents)\/index\.ts$/,
  /^coordinator\/src\/(context|config|version)\.ts$/,
  /^coordinator\/src\/lib\//,
  /^coordinator\/src\/payments\/(mpp|x402)\//,
  /^coordinator\/src\/payments\/types\.ts$/,
  /^coordinator\/src\/(discovery|metrics|idempotency|job-types)\//,
  /^coordinator\/src\/db\/database\.ts$/,
];

async function graph() {
  const result = await madge(
    PACKAGES.map((p) => path.join(ROOT, p)),
    {
      baseDir: ROOT,
      fileExtensions: ['ts'],
      tsConfig: path.join(ROOT, 'tsconfig.json'),
      excludeRegExp: [/\.test\.ts$/],
      detectiveOptions: { ts: { skipTypeImports: false }, tsx: { skipTypeImports: false } },
    },
  );
  return result;
}

describe('import graph', () => {
  let g: Awaited<ReturnType<typeof graph>>;
  beforeAll(async () => {
    g = await graph();
  }, 60_000);

  it('has no import cycle in any package, type-only imports included', () => {
    expect(Object.keys(g.obj()).length).toBeGreaterThan(300);
    expect(g.circular()).toEqual([]);
  });

  it("keeps the coordinator's lib/ free of feature imports", () => {
    const offending = Object.entries(g.obj())
      .filter(([file]) => file.startsWith('coordinator/src/lib/'))
      .flatMap(([file, deps]) => deps.filter((d) => d.startsWith('coordinator/src/') && !d.startsWith('coordinator/src/lib/')).map((d) => `${file} → ${d}`));
    expect(offending).toEqual([]);
  });

  it('lets the transports (http/, mcp/, admin/) reach the domain only through the three facades', () => {
    const offending = Object.entries(g.obj())
      .filter(([file]) => TRANSPORT.test(file))
      .flatMap(([file, deps]) =>
        deps.filter((d) => d.startsWith('coordinator/src/') && !TRANSPORT.test(d) && !ALLOWED.some((a) => a.test(d))).map((d) => `${file} → ${d}`),
      );
    expect(offending).toEqual([]);
  });
});
