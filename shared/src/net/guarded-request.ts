import { lookup as dnsLookup } from 'node:dns/promises';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { RefusedRange } from '../failure-details.ts';
import { checkAddress } from './public-address.ts';

/**
 * HTTP requests the service makes to an address a caller chose (media by URL, completion
 * webhooks), made so that the caller cannot point them into our network:
 *
 * - https only, unless the operator allows http; no credentials in the URL;
 * - the host is resolved once per connection, every address it resolves to is checked
 *   (public-address.ts), and the connection goes to the checked address (pinned through the
 *   socket's `lookup`), so a name that answers a public address to a check and a private one to
 *   the connection (DNS rebinding) has nothing to rebind; an IP literal is checked as such;
 * - redirects are followed by hand, at most `maxRedirects`, each target checked the same way;
 * - one deadline for the whole exchange up to the response head, and an idle limit on the socket.
 *
 * node:http rather than fetch: fetch cannot be given a per-request resolver without a dispatcher
 * from the undici package, and its redirect mode cannot re-check each hop's address.
 */
export interface GuardedRequestOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirects followed, each re-checked; 0 refuses any. @default 5 */
  maxRedirects?: number;
  /** Until the final response's head has arrived (connections, redirects, server think time). */
  timeoutMs: number;
  /** A socket silent this long fails the request, during the body too. @default 30 000 */
  idleTimeoutMs?: number;
  /** http: URLs as well as https: (an operator's setting). @default false */
  allowHttp?: boolean;
  /**
   * Exact addresses allowed although not public: a test setting (a local HTTP server on
   * 127.0.0.1). Never set from a caller's input.
   */
  allowAddresses?: readonly string[];
  /** The resolver (tests inject one). @default the system's (dns.lookup, every address) */
  resolve?: (host: string) => Promise<readonly { address: string; family: number }[]>;
  signal?: AbortSignal;
}

/** Why a URL was not fetched: the caller's to fix (a 4xx, or a failed and refunded job). */
export class RefusedUrlError extends Error {
  readonly reason: 'url' | 'scheme' | 'address' | 'redirect' | 'dns';
  /** For `address`: the class of the refused address. */
  readonly range: RefusedRange | undefined;
  constructor(reason: RefusedUrlError['reason'], message: string, range?: RefusedRange) {
    super(message);
    this.name = 'RefusedUrlError';
    this.reason = reason;
    this.range = range;
  }
}

export interface GuardedResponse {
  /** The URL that answered (after redirects). */
  url: URL;
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, unread: the caller consumes or destroys it. */
  body: IncomingMessage;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_URL_LENGTH = 2048;

const systemResolve = async (host: string) => dnsLookup(host, { all: true, verbatim: true });

/** The URL, if the service may request it at all (before any address is looked at). */
export function checkUrl(raw: string, o: { allowHttp?: boolean } = {}): URL {
  if (raw.length > MAX_URL_LENGTH) throw new RefusedUrlError('url', `the URL is longer than ${MAX_URL_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RefusedUrlError('url', 'not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && o.allowHttp)) {
    throw new RefusedUrlError('scheme', `${url.protocol.replace(/:$/, '')} URLs are not fetched: use https${o.allowHttp ? ' or http' : ''}`);
  }
  if (url.username || url.password)
    throw new RefusedUrlError('url', 'the URL carries a user name or password: use a URL that needs none (for example a presigned link)');
  return url;
}

/** The address to connect to for `host`: every address it has must be allowed (the first is used). */
async function pinnedAddress(host: string, o: GuardedRequestOptions): Promise<{ address: string; family: 4 | 6 }> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  const allowedByTest = (a: string) => o.allowAddresses?.includes(a) ?? false;
  const family = isIP(bare);
  let addresses: readonly { address: string; family: number }[];
  if (family !== 0) addresses = [{ address: bare, family }];
  else {
    try {
      addresses = await (o.resolve ?? systemResolve)(bare);
    } catch (err) {
      throw new RefusedUrlError('dns', `${bare} could not be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    if (addresses.length === 0) throw new RefusedUrlError('dns', `${bare} has no address`);
  }
  for (const a of addresses) {
    if (allowedByTest(a.address)) continue;
    const verdict = checkAddress(a.address);
    if (!verdict.allowed) {
      const named = family === 0 ? `${bare} resolves to ${a.address}, ` : `${a.address} is `;
      throw new RefusedUrlError('address', `${named}a ${verdict.range} address: only public addresses are fetched`, verdict.kind);
    }
  }
  const first = addresses[0]!;
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** One request to `url` on the pinned address; resolves at the response head. */
function requestOnce(
  url: URL,
  pinned: { address: string; family: 4 | 6 },
  o: GuardedRequestOptions,
  method: string,
  body: GuardedRequestOptions['body'],
  signal: AbortSignal,
): Promise<IncomingMessage> {
  // The socket connects to the checked address whatever the name would resolve to now.
  const lookup: LookupFunction = (_host, opts, cb) => {
    if ((opts as { all?: boolean }).all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [pinned]);
    else cb(null, pinned.address, pinned.family);
  };
  const agentless = { agent: false as const, lookup, signal, timeout: o.idleTimeoutMs ?? 30_000 };
  const headers = { ...o.headers, ...(body !== undefined && { 'content-length': String(Buffer.byteLength(body)) }) };
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { ...agentless, method, headers }, resolve);
    req.on('timeout', () => req.destroy(new Error(`no data from ${url.host} for ${o.idleTimeoutMs ?? 30_000} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * The response to `rawUrl` after at most `maxRedirects` checked redirects. A 303, or a 301/302
 * answering a POST, continues as a GET without the body (as browsers do).
 */
export async function guardedRequest(rawUrl: string, o: GuardedRequestOptions): Promise<GuardedResponse> {
  const deadline = AbortSignal.timeout(o.timeoutMs);
  const signal = o.signal ? AbortSignal.any([o.signal, deadline]) : deadline;
  let url = checkUrl(rawUrl, o);
  let method: string = o.method ?? 'GET';
  let body = o.body;
  const maxRedirects = o.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    const pinned = await pinnedAddress(url.hostname, o);
    let res: IncomingMessage;
    try {
      res = await requestOnce(url, pinned, o, method, body, signal);
    } catch (err) {
      if (deadline.aborted) throw new Error(`${url.host} did not answer within ${o.timeoutMs} ms`);
      throw err;
    }
    const location = res.headers.location;
    if (!REDIRECTS.has(res.statusCode ?? 0) || location === undefined) return { url, status: res.statusCode ?? 0, headers: res.headers, body: res };
    res.destroy();
    if (hop >= maxRedirects)
      throw new RefusedUrlError(
        'redirect',
        maxRedirects === 0 ? `${url.host} answered a redirect (${res.statusCode}); redirects are not followed here` : `more than ${maxRedirects} redirects`,
      );
    let next: URL;
    try {
      next = new URL(location, url);
    } catch {
      throw new RefusedUrlError('redirect', `${url.host} redirected to an invalid location`);
    }
    url = checkUrl(next.href, o);
    if (res.statusCode === 303 || ((res.statusCode === 301 || res.statusCode === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
  }
}
