import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** The JSON in `file`, or `fallback` when it is missing or unreadable (a corrupt file is not fatal: it is rewritten). */
export function readJson<T>(file: string, fallback: T): T {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return fallback;
  }
}

/**
 * Writes JSON readable by the owner only (0600, in a 0700 folder): it holds a session token.
 * Written to a temporary name and renamed, so a crash never leaves half a file.
 */
export function writePrivateJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  // mode applies only when the file is created; an older file is tightened too.
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}
