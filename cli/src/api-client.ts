import { CliError, EXIT } from './errors.ts';
import type { SessionStore } from './session.ts';

export interface RequestOptions {
  json?: unknown;
  /** Extra headers; an `authorization` here (a payment credential) replaces the bearer token. */
  headers?: Record<string, string>;
  /** Send the session token (default true). */
  bearer?: boolean;
  signal?: AbortSignal;
}

/**
 * The REST client: base URL, the session token (created through POST /sessions when missing or
 * rejected, kept in the config dir), and the service's `{error}` bodies turned into CliErrors.
 */
export class Api {
  readonly base: string;
  private readonly sessions: SessionStore;
  private token: string | undefined;
  /** Whether the token was read from disk (a 401 may then mean it expired: a new one is made once). */
  private tokenFromDisk = false;

  constructor(base: string, sessions: SessionStore) {
    this.base = base;
    this.sessions = sessions;
  }

  /** The session token, creating the session on first use. */
  async sessionToken(): Promise<string> {
    if (this.token) return this.token;
    const saved = this.sessions.get(this.base);
    if (saved) {
      this.token = saved.token;
      this.tokenFromDisk = true;
      return saved.token;
    }
    const res = await this.fetch(`${this.base}/api/v1/sessions`, { method: 'POST' });
    if (res.status !== 201) throw await errorFrom(res, 'creating a session');
    const body = (await res.json()) as { session_token: string; session_id: string; expires_at: string };
    this.sessions.save(this.base, { token: body.session_token, session_id: body.session_id, expires_at: body.expires_at });
    this.token = body.session_token;
    this.tokenFromDisk = false;
    return body.session_token;
  }

  /** A raw call to `path` under the base URL; never throws on an HTTP status (only when the service cannot be reached). */
  async send(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    const attempt = async () => {
      const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
      if (opts.bearer !== false && !headers.authorization) headers.authorization = `Bearer ${await this.sessionToken()}`;
      if (opts.json !== undefined) headers['content-type'] = 'application/json';
      return this.fetch(`${this.base}${path}`, { method, headers, body: opts.json === undefined ? undefined : JSON.stringify(opts.json), signal: opts.signal });
    };
    const res = await attempt();
    if (res.status === 401 && opts.bearer !== false && !opts.headers?.authorization && this.tokenFromDisk) {
      // The saved session expired or the service forgot it: start a new one (its jobs stay with the old session).
      await res.body?.cancel();
      this.sessions.forget(this.base);
      this.token = undefined;
      return attempt();
    }
    return res;
  }

  /** `send`, then the JSON body of a 2xx, or a CliError from the service's `{error}`. */
  async json<T>(method: string, path: string, what: string, opts: RequestOptions = {}): Promise<T> {
    const res = await this.send(method, path, opts);
    if (!res.ok) throw await errorFrom(res, what);
    return (await res.json()) as T;
  }

  /** fetch, with an unreachable service reported as such (exit 4) instead of "fetch failed". */
  async fetch(url: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (err) {
      if ((err as Error).name === 'AbortError') throw err;
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (err as Error).message;
      throw new CliError(EXIT.service, `cannot reach the service at ${new URL(url).origin} (${why})`, 'is it running? set CUTROOM_URL or --url');
    }
  }
}

/** A CliError from a refused call: the service's `{error}` (or problem `detail`), with the exit code its status means. */
export async function errorFrom(res: Response, what: string): Promise<CliError> {
  const text = await res.text().catch(() => '');
  let message = text.trim().slice(0, 500);
  try {
    const body = JSON.parse(text) as { error?: unknown; detail?: unknown; title?: unknown };
    const m = body.error ?? body.detail ?? body.title;
    if (typeof m === 'string') message = m;
  } catch {
    // not JSON: the text itself (a proxy's page, an S3 error)
  }
  const status = res.status;
  const said = `${what}: ${message || res.statusText || 'refused'} (HTTP ${status})`;
  if (status === 402) return new CliError(EXIT.payment, said, undefined, status);
  if (status === 403)
    return new CliError(EXIT.service, said, 'jobs belong to the session that created them; was the session in the config dir replaced?', status);
  return new CliError(EXIT.service, said, undefined, status);
}
