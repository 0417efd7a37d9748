import { chmodSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The service's files are its own: everything the coordinator and its children (PGlite,
 * nats-server, the embedded agents) create from here on is 0600, each folder 0700, whatever umask
 * the shell that started it had. Called first thing by both entries (main.ts, embedded-main.ts).
 */
export function keepNewFilesPrivate(): void {
  process.umask(0o077);
}

/**
 * DATA_DIR holds the database, the blobs, the generated secrets and the agents' credentials: it is
 * made 0700 even when it already existed with a looser mode (a folder made by hand, or by an older
 * version), which also closes whatever older, looser files it holds.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}

/**
 * Folders 0700 and files 0600 under `dir`, wherever group or others had a bit. PGlite lays its
 * new data folder out from a bundled template with the template's modes (0666 files), not through
 * the umask: closed right after it opens (files Postgres makes later are created 0600).
 */
export function closeTree(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isSymbolicLink()) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) closeTree(p);
    if ((statSync(p).mode & 0o077) !== 0) chmodSync(p, e.isDirectory() ? 0o700 : 0o600);
  }
}
