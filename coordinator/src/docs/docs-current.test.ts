import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateJobRequest } from '@cutroom/shared/api';
import { JobType } from '@cutroom/shared/job-types';
import { typesByCreation } from '../job-types/registry.ts';
import { buildApp } from '../app.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import { docFiles, REPO_ROOT } from './doc-files.ts';
import { renderGenerated } from './type-facts.ts';

/**
 * The docs cannot drift from the code: generated regions are current (`npm run docs`), every job
 * type has its page, and a doc that names a file, a link, a setting, a route or a job type that
 * does not exist fails here.
 */
const docs = docFiles().map((path) => ({ path, text: readFileSync(join(REPO_ROOT, path), 'utf8') }));
/** Inline code spans, outside fenced blocks. */
const codeSpans = (text: string) => [...text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

describe('the docs', () => {
  it('have their generated regions current (run `npm run docs`)', () => {
    const stale = docs.filter((d) => renderGenerated(d.path, d.text) !== d.text).map((d) => d.path);
    expect(stale).toEqual([]);
  });

  it.each(JobType.options)('%s: has its page, docs/job-types/<type>.md, with its heading and generated facts', (type) => {
    const doc = docs.find((d) => d.path === `docs/job-types/${type}.md`);
    expect(doc, `docs/job-types/${type}.md`).toBeDefined();
    expect(doc!.text.split('\n')[0]).toBe(`# ${type}`);
    expect(doc!.text).toContain('<!-- generated: facts -->');
  });

  it('name only pages of existing job types, and only existing job types as job_type', () => {
    for (const d of docs) {
      const page = /^docs\/job-types\/([^/]+)\.md$/.exec(d.path)?.[1];
      if (page) expect(JobType.options, d.path).toContain(page);
      for (const m of d.text.matchAll(/job_type["'`]?\s*[:=]\s*["'`]?([a-z_]+)/g)) expect(JobType.options, `${d.path}: job_type ${m[1]}`).toContain(m[1]);
    }
  });

  it('link only to files that exist', () => {
    const broken: string[] = [];
    for (const d of docs) {
      for (const m of d.text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (!target || /^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(REPO_ROOT, normalize(join(dirname(d.path), target))))) broken.push(`${d.path} → ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('name only repository paths that exist', () => {
    const top = /^(\.ci|coordinator|render-agent|shared|proto|cli|admin-console|deploy|docs|scripts|test)\//;
    const missing: string[] = [];
    for (const d of docs) {
      for (const span of codeSpans(d.text)) {
        const path = span.replace(/[:#].*$/, '').replace(/[.,;]$/, '');
        if (!top.test(path) || /[<>*{}…\s]/.test(path)) continue;
        if (!existsSync(join(REPO_ROOT, path))) missing.push(`${d.path}: ${span}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('name only settings the code reads', () => {
    const sources = execFileSync('git', ['ls-files', '*.ts', '*.sh', '*.yaml', '*.yml', '*.json', '.env.example', '.ci/*', 'deploy/*'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => f && !f.endsWith('.md') && !f.includes('0010-spike') && existsSync(join(REPO_ROOT, f)))
      .map((f) => readFileSync(join(REPO_ROOT, f), 'utf8'))
      .join('\n');
    const known = new Set(sources.match(/\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b/g));
    const unknown: string[] = [];
    for (const d of docs) {
      for (const span of codeSpans(d.text)) {
        const name = /^([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)(=.*)?$/.exec(span)?.[1];
        if (name && !known.has(name)) unknown.push(`${d.path}: ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  describe('routes', () => {
    let ctx: EngineCtx;
    let app: FastifyInstance;
    beforeAll(async () => {
      ctx = await createEngineCtx();
      app = await buildApp({ ctx, healthChecks: {} });
      await app.ready();
    }, 60_000);
    afterAll(async () => {
      await app?.close();
      await ctx?.close();
    });

    it('/openapi.json names every job type where it is created (lists from the registry, not by hand)', () => {
      const doc = app.swagger() as { paths: Record<string, Record<string, { description?: string; summary?: string; requestBody?: unknown }>> };
      const create = doc.paths['/api/v1/jobs']!['post']!;
      const process = doc.paths['/api/v1/jobs/{id}/process']!['post']!;
      const jobType = CreateJobRequest.shape.job_type.description ?? '';
      const { uploads, derivatives, elsewhere } = typesByCreation();
      for (const t of [...uploads, ...derivatives, ...elsewhere]) {
        expect(create.description, `POST /jobs: ${t}`).toContain(t);
        expect(jobType, `CreateJobRequest.job_type: ${t}`).toContain(t);
      }
      for (const t of derivatives) expect(process.summary, `/process: ${t}`).toContain(t);
    });

    it('docs/api.md lists every route of /openapi.json', () => {
      const api = docs.find((d) => d.path === 'docs/api.md')!.text;
      const doc = app.swagger() as { paths: Record<string, Record<string, unknown>> };
      const missing = Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops)
          .map((op) => `${op.toUpperCase()} ${path}`)
          .filter((route) => !api.includes(`\`${route}\``)),
      );
      expect(missing).toEqual([]);
    });

    it('name only routes the service serves', () => {
      // Documented routes match concrete paths too (`DELETE /jobs/{id}/outputs/transcript`).
      const documented = Object.entries((app.swagger() as { paths: Record<string, Record<string, unknown>> }).paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((op) => ({ method: op.toUpperCase(), re: new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`) })),
      );
      // A catch-all route serves what is under it (tRPC's `/admin/trpc/:path`: `POST /admin/trpc/enrollment.mint`).
      const underWildcard = (method: string, url: string) =>
        url
          .split('/')
          .some(
            (_, i, parts) => i > 0 && ['*', ':path'].some((tail) => app.hasRoute({ method: method as 'GET', url: `${parts.slice(0, i).join('/')}/${tail}` })),
          );
      const served = (method: string, url: string) =>
        app.hasRoute({ method: method as 'GET', url: url.replace(/\{(\w+)\}/g, ':$1') }) ||
        underWildcard(method, url) ||
        documented.some((r) => r.method === method && r.re.test(url.replace(/\{\w+\}/g, 'x')));
      const unknown: string[] = [];
      for (const d of docs) {
        for (const span of codeSpans(d.text)) {
          const m = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/.exec(span);
          if (!m) continue;
          const url = m[2]!.split('?')[0]!;
          if (!served(m[1]!, url) && !served(m[1]!, `/api/v1${url}`)) unknown.push(`${d.path}: ${span}`);
        }
      }
      expect(unknown).toEqual([]);
    });
  });
});
