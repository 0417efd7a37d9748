import { mkdirSync } from 'node:fs';
import { closeTree } from '../lib/private-files.ts';
import { fileURLToPath } from 'node:url';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import * as schema from './schema.ts';

/** One type for both drivers: code never cares whether PGlite or a real Postgres answers. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
/** A transaction handle has the same query surface. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
export type DbOrTx = Db | Tx;

export interface Database {
  db: Db;
  kind: 'postgres' | 'pglite';
  ping(): Promise<void>;
  close(): Promise<void>;
}

const migrationsFolder = fileURLToPath(new URL('../../drizzle', import.meta.url));

/**
 * Opens the database and applies migrations. A DATABASE_URL means a real Postgres (with
 * `statement_timeout` set on every connection when `statementTimeoutMs` > 0); without one, the
 * embedded default keeps an in-process PGlite under the data folder (one process, no timeout).
 */
/** pg_advisory_lock key held while migrating (any fixed 64-bit number; this one spells "cutroom"). */
const MIGRATION_LOCK_KEY = String(0x637574726f6f6dn);

export async function openDatabase(opts: {
  url?: string | undefined;
  pgliteDir: string;
  statementTimeoutMs?: number;
  /** PGlite only: start from this data folder (a dump of a migrated database: testing/pglite-template.ts). */
  pgliteTemplate?: Blob | null;
}): Promise<Database> {
  if (opts.url) {
    const { default: postgres } = await import('postgres');
    const { drizzle } = await import('drizzle-orm/postgres-js');
    const { migrate } = await import('drizzle-orm/postgres-js/migrator');
    // Migrations run on a connection of their own, without the statement timeout (an index build may take long).
    const migrator = postgres(opts.url, { max: 1, onnotice: () => {} });
    try {
      // Replicas starting together take turns (a session advisory lock on the one connection): the
      // second finds the migrations applied instead of racing the first to create the same tables.
      await migrator`select pg_advisory_lock(${MIGRATION_LOCK_KEY}::bigint)`;
      await migrate(drizzle(migrator, { schema }), { migrationsFolder });
    } finally {
      await migrator.end({ timeout: 5 });
    }
    // Every query of the service is bounded: a stuck statement is cancelled (SQLSTATE 57014, answered 503).
    const timeout = opts.statementTimeoutMs ?? 0;
    const client = postgres(opts.url, { max: 10, onnotice: () => {}, ...(timeout > 0 && { connection: { statement_timeout: timeout } }) });
    const db = drizzle(client, { schema });
    return {
      db: db as unknown as Db,
      kind: 'postgres',
      ping: async () => void (await client`select 1`),
      close: () => client.end({ timeout: 5 }),
    };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  // `memory://` keeps the database in memory (engine tests); anything else is a folder.
  if (!opts.pgliteDir.startsWith('memory://')) mkdirSync(opts.pgliteDir, { recursive: true });
  const client = opts.pgliteTemplate ? await PGlite.create(opts.pgliteDir, { loadDataDir: opts.pgliteTemplate }) : await PGlite.create(opts.pgliteDir);
  // The database files are the service user's alone (PGlite writes its template's 0666 modes).
  if (!opts.pgliteDir.startsWith('memory://')) closeTree(opts.pgliteDir);
  const db = drizzle(client, { schema });
  // From a template this finds every migration applied (one query).
  await migrate(db, { migrationsFolder });
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    ping: async () => void (await client.query('select 1')),
    close: () => client.close(),
  };
}
