// The fast tier's global set-up: one migrated PGlite template for the whole run (engine tests load
// it: coordinator/src/testing/engine-ctx.ts), kept between runs while the migrations are unchanged.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePgliteTemplate, PGLITE_TEMPLATE_ENV } from '../../coordinator/src/testing/pglite-template.ts';

export default async function setup(): Promise<void> {
  const dir = join(import.meta.dirname, '../../node_modules/.cache/cutroom');
  mkdirSync(dir, { recursive: true });
  process.env[PGLITE_TEMPLATE_ENV] = await ensurePgliteTemplate(dir);
}
