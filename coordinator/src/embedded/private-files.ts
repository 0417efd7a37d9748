import { chmodSync, mkdirSync } from 'node:fs';

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
