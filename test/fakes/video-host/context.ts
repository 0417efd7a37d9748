// What every handler receives: the state, the fake's settings and the request being served.
import type { IncomingMessage } from 'node:http';
import type { Clock } from './clock.ts';
import { badRequest } from './errors.ts';
import type { FakeState, RequestLogEntry } from './state.ts';

/** Quota costs in units, per method (YouTube's published costs by default). */
export interface QuotaCosts {
  'videos.insert': number;
  'videos.list': number;
  'videos.delete': number;
  'captions.insert': number;
  'captions.list': number;
  'channels.list': number;
}

export interface FakeSettings {
  /** http://host:port of the fake (upload session URLs and the consent page live there) */
  baseUrl: string;
  clock: Clock;
  clientId: string;
  clientSecret: string;
  /** registered redirect URIs */
  redirectUris: string[];
  /** also accept any http://127.0.0.1, localhost or [::1] URL (when no redirect URIs were configured) */
  allowLoopbackRedirects: boolean;
  requirePkce: boolean;
  accessTokenTtlSec: number;
  refreshTokenTtlMs: number | null;
  codeTtlMs: number;
  uploadSessionTtlMs: number;
  /** bytes of a non-final chunk the host keeps are a multiple of this (Google: 256 KiB) */
  uploadGranularity: number;
  maxUploadBytes: number;
  dailyQuota: number;
  costs: QuotaCosts;
  dailyUploadsPerChannel: number;
}

export interface RequestInfo {
  raw: IncomingMessage;
  url: URL;
  /** the request body as far as it arrived */
  body: Buffer;
  /** false when the client went away (or a fault cut it) before the body ended */
  complete: boolean;
  /** the log entry of this request, for handlers to add upload details to */
  log: RequestLogEntry;
}

export interface FakeContext {
  state: FakeState;
  settings: FakeSettings;
  req: RequestInfo;
}

/** Query parameter that may be repeated (`part=a&part=b`, what the client library sends) or comma-separated. */
export function listParam(url: URL, name: string): string[] {
  return url.searchParams
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
}

export function header(ctx: FakeContext, name: string): string | null {
  const v = ctx.req.raw.headers[name.toLowerCase()];
  return (Array.isArray(v) ? v[0] : v) ?? null;
}

/** JSON body of a request, as Google's front end decodes it (400 parseError otherwise). */
export function jsonBody(body: Buffer): unknown {
  const text = body.toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest('parseError', 'Parse Error', 'global');
  }
}
