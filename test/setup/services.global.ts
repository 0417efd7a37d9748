// The flows' and slow tiers' global set-up: one Postgres (with the migrated template database) and
// one MinIO for the whole run, shared by every test file through test/fixtures/shared-services.ts.
import { openDatabase } from '../../coordinator/src/db/database.ts';
import { startPostgres } from '../fixtures/postgres.ts';
import { startS3 } from '../fixtures/s3.ts';
import { SHARED_PG_ENV, SHARED_S3_ENV, TEMPLATE_DB } from '../fixtures/shared-services.ts';

export default async function setup(): Promise<() => Promise<void>> {
  // flows and slow in one run (npm test) call this once per project: the second reuses the first's.
  if (process.env[SHARED_PG_ENV] && process.env[SHARED_S3_ENV]) return async () => {};
  const [pg, s3] = await Promise.all([startPostgres(), startS3()]);
  const { default: postgres } = await import('postgres');
  const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`CREATE DATABASE ${TEMPLATE_DB}`);
  } finally {
    await sql.end({ timeout: 5 });
  }
  const templateUrl = new URL(pg.url);
  templateUrl.pathname = `/${TEMPLATE_DB}`;
  const template = await openDatabase({ url: templateUrl.toString(), pgliteDir: 'unused' });
  await template.close();
  process.env[SHARED_PG_ENV] = pg.url;
  process.env[SHARED_S3_ENV] = JSON.stringify({ endpoint: s3.endpoint, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey });
  return async () => {
    delete process.env[SHARED_PG_ENV];
    delete process.env[SHARED_S3_ENV];
    await Promise.all([pg.stop(), s3.stop()]);
  };
}
