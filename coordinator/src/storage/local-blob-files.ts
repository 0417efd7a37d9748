// File-system mechanics of the local store: atomic writes, size-capped streaming, tidy folders.
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, open, readdir, rename, rm, rmdir } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** '#' can never appear in a key, so side files can never collide with a stored key. */
export const META_SUFFIX = '#meta.json';
const TEMP_MARK = '#tmp-';

export function isSideFile(name: string): boolean {
  return name.includes('#');
}

export class BlobTooLargeError extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`upload is larger than the ${limitBytes}-byte limit: compress or trim the media and retry`);
    this.name = 'BlobTooLargeError';
    this.limitBytes = limitBytes;
  }
}

/**
 * Streams `source` into a temp file beside `path`, then renames it over `path`, so readers see
 * either the old or the new content, never a partial file. Exceeding maxBytes aborts the write,
 * removes the temp file and throws BlobTooLargeError. Returns the number of bytes written.
 */
export async function writeFileAtomic(path: string, source: Readable, maxBytes: number): Promise<number> {
  const tmp = `${path}${TEMP_MARK}${randomBytes(6).toString('hex')}`;
  const handle = await openCreatingParents(tmp);
  let written = 0;
  const limiter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      written += chunk.length;
      done(written > maxBytes ? new BlobTooLargeError(maxBytes) : null, chunk);
    },
  });
  try {
    await pipeline(source, limiter, handle.createWriteStream());
    await rename(tmp, path);
    return written;
  } catch (err) {
    await handle.close().catch(() => {}); // createWriteStream closes it on success only
    await rm(tmp, { force: true });
    throw err;
  }
}

// A concurrent delete may prune the folder between mkdir and open (see pruneEmptyDirs): retry.
async function openCreatingParents(file: string) {
  for (let attempt = 1; ; attempt++) {
    await mkdir(dirname(file), { recursive: true });
    try {
      return await open(file, 'wx');
    } catch (err) {
      if (!isCode(err, 'ENOENT') || attempt >= 3) throw err;
    }
  }
}

/** Removes now-empty folders from `dir` up to (not including) `root`; stops at the first non-empty one. */
export async function pruneEmptyDirs(root: string, dir: string): Promise<void> {
  let current = dir;
  while (current !== root && current.startsWith(root + sep)) {
    try {
      await rmdir(current);
    } catch {
      return; // not empty (or already gone): ancestors are not empty either
    }
    current = dirname(current);
  }
}

/** Every stored object below `dir`, as keys relative to root ('/'-separated). */
export async function listKeysUnder(root: string, dir: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return [];
    throw err;
  }
  return entries.filter((e) => e.isFile() && !isSideFile(e.name)).map((e) => relative(root, join(e.parentPath, e.name)).split(sep).join('/'));
}

export function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
