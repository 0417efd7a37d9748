import { join } from 'node:path';
import { readJson, writePrivateJson } from './private-file.ts';

export interface SavedSession {
  token: string;
  session_id: string;
  expires_at: string;
}

/** Session tokens by service URL, in `<config dir>/session.json` (mode 0600). */
export class SessionStore {
  readonly file: string;
  constructor(configDir: string) {
    this.file = join(configDir, 'session.json');
  }

  /** The saved session for `url`, unless it has expired (a minute of margin). */
  get(url: string, now = Date.now()): SavedSession | undefined {
    const s = readJson<Record<string, SavedSession>>(this.file, {})[url];
    if (!s || typeof s.token !== 'string') return undefined;
    return Date.parse(s.expires_at) - 60_000 > now ? s : undefined;
  }

  save(url: string, session: SavedSession): void {
    const all = readJson<Record<string, SavedSession>>(this.file, {});
    all[url] = session;
    writePrivateJson(this.file, all);
  }

  forget(url: string): void {
    const all = readJson<Record<string, SavedSession>>(this.file, {});
    delete all[url];
    writePrivateJson(this.file, all);
  }
}
