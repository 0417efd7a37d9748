import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getTableConfig } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { attemptOutcomeEnum, jobs, jobStatusEnum, jobTypeEnum, paymentStatusEnum } from './schema.ts';

/**
 * The Postgres enums are built from shared's lists (JobType, JobStatus, …): a member added there
 * needs a migration (`npm run db:generate`), or the database refuses the new value at the first
 * insert. The latest migration snapshot must hold exactly what the schema declares.
 */
const meta = fileURLToPath(new URL('../../drizzle/meta/', import.meta.url));
const latest = readdirSync(meta)
  .filter((f) => /^\d{4}_snapshot\.json$/.test(f))
  .sort()
  .at(-1)!;
const snapshot = JSON.parse(readFileSync(`${meta}${latest}`, 'utf8')) as {
  enums: Record<string, { values: string[] }>;
  tables: Record<string, { columns: Record<string, unknown> }>;
};

describe('migrations are current', () => {
  it.each([jobTypeEnum, jobStatusEnum, paymentStatusEnum, attemptOutcomeEnum])('the latest snapshot holds the schema’s enum %#', (e) => {
    expect(snapshot.enums[`public.${e.enumName}`]?.values, `${e.enumName}: run npm run db:generate (${latest} is behind)`).toEqual([...e.enumValues]);
  });

  it('the latest snapshot holds every column of jobs', () => {
    expect(Object.keys(snapshot.tables['public.jobs']!.columns).sort()).toEqual(
      getTableConfig(jobs)
        .columns.map((c) => c.name)
        .sort(),
    );
  });
});
