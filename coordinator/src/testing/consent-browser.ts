import type { FastifyInstance } from 'fastify';

/**
 * A browser as the consent flow meets it, for tests: a cookie jar of its own (Set-Cookie with
 * Path and Max-Age; every cookie of a matching path sent back), our pages opened and their one
 * form submitted the way a person pressing its button does (form-encoded, with the Origin and
 * Sec-Fetch-Site a browser adds), redirects followed until the browser leaves our origin for the
 * video host's consent page. Two browsers are two people: the attacker's and the victim's.
 * Over `app.inject` (engine tests) or real HTTP (the integration suite).
 */

export interface BrowserRequest {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  body?: string;
}
export interface BrowserResponse {
  status: number;
  /** Header values as sent; Set-Cookie as one entry per cookie. */
  headers: Record<string, string | string[] | undefined>;
  body: string;
}
export type Transport = (req: BrowserRequest) => Promise<BrowserResponse>;

/** Requests answered by a fastify instance in the same process (the URL's path and query, its host as Host). */
export const injectTransport =
  (app: FastifyInstance): Transport =>
  async (req) => {
    const u = new URL(req.url);
    const res = await app.inject({
      method: req.method,
      url: `${u.pathname}${u.search}`,
      headers: { host: u.host, ...req.headers },
      ...(req.body !== undefined && { payload: req.body }),
    });
    return { status: res.statusCode, headers: res.headers as BrowserResponse['headers'], body: res.body };
  };

/** Requests over the network; redirects are the browser's to follow, not fetch's. */
export const fetchTransport: Transport = async (req) => {
  const res = await fetch(req.url, { method: req.method, headers: req.headers, body: req.body, redirect: 'manual' });
  const headers: BrowserResponse['headers'] = {};
  res.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['set-cookie'] = res.headers.getSetCookie();
  return { status: res.status, headers, body: await res.text() };
};

export const HTML_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

interface Cookie {
  value: string;
  path: string;
  /** Real time (ms): the jar expires cookies as a browser would. */
  expiresAt: number;
  httpOnly: boolean;
  sameSite: string | null;
}

export class ConsentBrowser {
  /** Cookies by name (one origin: ours). */
  readonly jar = new Map<string, Cookie>();
  /** Every response this browser received, to check that no token ever reached it. */
  readonly seen: BrowserResponse[] = [];

  private readonly transport: Transport;
  /** Ours (PUBLIC_BASE_URL's); a URL elsewhere is the host's, where the walk stops. */
  readonly origin: string;

  constructor(transport: Transport, origin: string) {
    this.transport = transport;
    this.origin = origin;
  }

  /** One request with this browser's cookies; its Set-Cookie kept. */
  async request(method: 'GET' | 'POST', url: string, opts: { accept?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    const u = new URL(url);
    const headers: Record<string, string> = { accept: opts.accept ?? HTML_ACCEPT, ...opts.headers };
    const cookie = this.cookieHeader(u);
    if (cookie) headers['cookie'] = cookie;
    let body: string | undefined;
    if (opts.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(opts.form).toString();
    }
    const res = await this.transport({ method, url, headers, ...(body !== undefined && { body }) });
    this.seen.push(res);
    const setCookie = res.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) this.store(line);
    return res;
  }

  get(url: string, accept = HTML_ACCEPT) {
    return this.request('GET', url, { accept });
  }

  /** Presses the one button of a page of ours: its form posted as a browser posts it (same-origin). */
  async press(page: BrowserResponse, pageUrl: string): Promise<{ res: BrowserResponse; url: string }> {
    const form = formOf(page.body);
    if (!form) throw new Error(`no form on the page at ${pageUrl} (${page.status}): ${textOf(page.body)}`);
    const url = new URL(form.action, pageUrl).toString();
    const res = await this.request('POST', url, {
      form: form.fields,
      headers: { origin: new URL(pageUrl).origin, 'sec-fetch-site': new URL(url).origin === new URL(pageUrl).origin ? 'same-origin' : 'cross-site' },
    });
    return { res, url };
  }

  /**
   * Walks a link as a person does: opens it, presses the page's button, follows redirects, until
   * the browser is sent off our origin (the host's consent page, returned). A page with no button
   * or an error on the way throws, naming it.
   */
  async walkToHost(url: string): Promise<string> {
    let at = url;
    for (let step = 0; step < 6; step++) {
      if (new URL(at).origin !== this.origin) return at;
      const page = await this.get(at);
      const moved = await this.follow(page, at);
      if (moved) {
        at = moved;
        continue;
      }
      if (page.status !== 200) throw new Error(`${at} answered ${page.status}: ${textOf(page.body)}`);
      const pressed = await this.press(page, at);
      const next = await this.follow(pressed.res, pressed.url);
      if (!next) throw new Error(`pressing the button at ${at} answered ${pressed.res.status}: ${textOf(pressed.res.body)}`);
      at = next;
    }
    throw new Error(`too many steps from ${url}`);
  }

  private async follow(res: BrowserResponse, from: string): Promise<string | null> {
    const location = res.headers['location'];
    if (res.status < 300 || res.status >= 400 || typeof location !== 'string') return null;
    return new URL(location, from).toString();
  }

  private cookieHeader(u: URL): string {
    if (u.origin !== this.origin) return '';
    const now = Date.now();
    const out: string[] = [];
    for (const [name, c] of this.jar) {
      if (c.expiresAt <= now) this.jar.delete(name);
      else if (pathMatches(u.pathname, c.path)) out.push(`${name}=${c.value}`);
    }
    return out.join('; ');
  }

  private store(line: string): void {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq);
    const cookie: Cookie = { value: pair!.slice(eq + 1), path: '/', expiresAt: Number.POSITIVE_INFINITY, httpOnly: false, sameSite: null };
    for (const attr of attrs) {
      const [k, v = ''] = attr.split('=');
      const key = k!.toLowerCase();
      if (key === 'path') cookie.path = v;
      else if (key === 'max-age') cookie.expiresAt = Date.now() + Number(v) * 1000;
      else if (key === 'expires' && cookie.expiresAt === Number.POSITIVE_INFINITY) cookie.expiresAt = Date.parse(v);
      else if (key === 'httponly') cookie.httpOnly = true;
      else if (key === 'samesite') cookie.sameSite = v;
    }
    if (cookie.expiresAt <= Date.now()) this.jar.delete(name);
    else this.jar.set(name, cookie);
  }
}

/** RFC 6265 path-match: the same path, or below the cookie's path. */
function pathMatches(path: string, cookiePath: string): boolean {
  return path === cookiePath || (path.startsWith(cookiePath) && (cookiePath.endsWith('/') || path[cookiePath.length] === '/'));
}

/** The first POST form of a page of ours: its action and its hidden fields. */
export function formOf(html: string): { action: string; fields: Record<string, string> } | null {
  const form = /<form\b[^>]*\bmethod="post"[^>]*>([\s\S]*?)<\/form>/i.exec(html);
  if (!form) return null;
  const action = /\baction="([^"]*)"/.exec(form[0])?.[1] ?? '';
  const fields: Record<string, string> = {};
  for (const input of form[1]!.matchAll(/<input\b[^>]*>/g)) {
    const name = /\bname="([^"]*)"/.exec(input[0])?.[1];
    if (name) fields[name] = unescapeHtml(/\bvalue="([^"]*)"/.exec(input[0])?.[1] ?? '');
  }
  return { action: unescapeHtml(action), fields };
}

/** What a page says (its body's text; a JSON body as it is), for error messages. */
const textOf = (body: string) =>
  unescapeHtml(body.replace(/^[\s\S]*<body>/, '').replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 400);

const unescapeHtml = (s: string) => s.replace(/&#(\d+);/g, (_m, n: string) => String.fromCharCode(Number(n))).replace(/&amp;/g, '&');
