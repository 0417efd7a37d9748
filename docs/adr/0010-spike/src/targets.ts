// How DBOS (and the baseline) reach each database under test.
//   pg            : a real Postgres 15 (scripts/start-pg.sh), DBOS's own pg.Pool from systemDatabaseUrl
//   pglite-np     : PGlite in-process through @electric-sql/pglite/node-postgres (a pg.Pool whose one
//                   connection calls PGlite directly: no socket, no server), given as systemDatabasePool
//   pglite-socket : PGlite in-process behind @electric-sql/pglite-socket (a PG wire server over TCP on
//                   127.0.0.1 inside the same process, with its multiplexer); DBOS connects by URL
import pg from 'pg';
import postgres from 'postgres';
import { PGlite } from '@electric-sql/pglite';
import type { DBOSConfig } from '@dbos-inc/dbos-sdk';

export type TargetKind = 'pg' | 'pglite-np' | 'pglite-socket';

export interface AppDb {
  /** One transaction of the app's own (the project's hand-rolled step write is one). */
  tx(fn: (q: (text: string, params?: unknown[]) => Promise<unknown[]>) => Promise<void>): Promise<void>;
  query(text: string, params?: unknown[]): Promise<unknown[]>;
}

export interface Target {
  kind: TargetKind;
  dbos: Partial<DBOSConfig>;
  /** The app's own access, as the coordinator has it: postgres.js on a real PG, PGlite's API on PGlite. */
  app: AppDb;
  pglite?: PGlite;
  close(): Promise<void>;
}

export async function openTarget(kind: TargetKind, opts: { pgUrl?: string; pgliteDir?: string; socketMaxConn?: number; npPoolMax?: number } = {}): Promise<Target> {
  if (kind === 'pg') {
    const url = opts.pgUrl ?? process.env.PG_URL;
    if (!url) throw new Error('PG_URL is not set');
    const sql = postgres(url, { max: 4, onnotice: () => {} });
    return {
      kind,
      dbos: { systemDatabaseUrl: url },
      app: {
        tx: async (fn) => void (await sql.begin(async (t) => fn((text, params) => t.unsafe(text, params as never[]) as never))),
        query: (text, params) => sql.unsafe(text, params as never[]) as never,
      },
      close: () => sql.end({ timeout: 5 }),
    };
  }
  const db = await PGlite.create(opts.pgliteDir ?? 'memory://');
  const app: AppDb = {
    tx: async (fn) => void (await db.transaction(async (t) => fn(async (text, params) => (await t.query(text, params)).rows))),
    query: async (text, params) => (await db.query(text, params)).rows,
  };
  if (kind === 'pglite-np') {
    const { createPgConfig } = await import('@electric-sql/pglite/node-postgres');
    const max = opts.npPoolMax ?? 1;
    // Each pg connection gets its own PglitePgConnection over the same PGlite.
    // Each pg client gets its own PglitePgConnection over the one PGlite (createPgConfig makes one per call).
    class PgliteClient extends pg.Client {
      constructor(cfg: pg.ClientConfig) {
        super({ ...cfg, ...(createPgConfig(db) as object) } as pg.ClientConfig);
      }
    }
    const pool = new pg.Pool({ ...(createPgConfig(db) as object), max, Client: PgliteClient } as pg.PoolConfig);
    return {
      kind,
      dbos: { systemDatabasePool: pool, systemDatabaseUrl: 'postgres://postgres@localhost:5432/postgres', useListenNotify: false },
      app,
      pglite: db,
      close: async () => {
        await pool.end().catch(() => {});
        await db.close();
      },
    };
  }
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: opts.socketMaxConn ?? 32 });
  await server.start();
  const port = (server as unknown as { port: number }).port;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
  return {
    kind,
    dbos: { systemDatabaseUrl: url, systemDatabasePoolSize: 8 },
    app,
    pglite: db,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}
