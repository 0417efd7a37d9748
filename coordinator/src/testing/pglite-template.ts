// A migrated PGlite data folder, made once per test run and loaded by every engine test
// (engine-ctx.ts), instead of running every migration once per test file.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The environment variable naming the template's file (set by the fast tier's global set-up). */
export const PGLITE_TEMPLATE_ENV = 'CUTROOM_PGLITE_TEMPLATE';

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/** A hash of the migrations: a template is reused only while they are unchanged. */
export function migrationsHash(): string {
  const h = createHash('sha256');
  for (const f of readdirSync(migrationsFolder).sort()) if (f.endsWith('.sql')) h.update(f).update(readFileSync(join(migrationsFolder, f)));
  h.update(readFileSync(join(migrationsFolder, 'meta', '_journal.json')));
  return h.digest('hex').slice(0, 16);
}

/** Makes (or finds) the migrated template in `dir` and returns its path. */
export async function ensurePgliteTemplate(dir: string): Promise<string> {
  const file = join(dir, `pglite-migrated-${migrationsHash()}.tar`);
  if (existsSync(file)) return file;
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const client = await PGlite.create('memory://');
  await migrate(drizzle(client), { migrationsFolder });
  const dump = await client.dumpDataDir('none');
  await client.close();
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, file);
  return file;
}

/** The template's contents when the run made one (engine tests load it), else null. */
export function pgliteTemplate(): Blob | null {
  const file = process.env[PGLITE_TEMPLATE_ENV];
  if (!file || !existsSync(file)) return null;
  return new Blob([readFileSync(file)]);
}
