import { isUtf8 } from 'node:buffer';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * One guard for every route: text that Postgres cannot store or that is not valid Unicode never
 * reaches a handler. Refused with 400 `{error}` naming what is wrong and where:
 * - a NUL character (U+0000) anywhere: Postgres `text`/`jsonb` cannot hold it;
 * - a lone UTF-16 surrogate (a JSON `"\ud800"` escape): not Unicode, it cannot be encoded as UTF-8;
 * - a request body or query string whose bytes are not valid UTF-8;
 * - malformed percent-encoding (`%zz`, `%4`) in the query string;
 * - raw control, space or non-ASCII characters in the request target (they must be percent-encoded).
 * Checked: the request target and query string, the path parameters (onRequest, before the body
 * is read) and every string and object key of a parsed body, recursively (preValidation).
 * Malformed percent-encoding in the path is refused by the router (FST_ERR_BAD_URL, see
 * error-handler.ts).
 */

/** What is wrong with one string, or null when it is storable text. */
export function textProblem(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000), which cannot be stored';
  if (!s.isWellFormed()) return 'contains a lone UTF-16 surrogate, which is not valid Unicode';
  return null;
}

/** Quotes a user-supplied name for an error message: escaped, at most 64 characters. */
export function quoteName(name: string): string {
  return JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (v === null || typeof v !== 'object') return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

/**
 * The first invalid string or object key in a parsed value (JSON body, parsed query), walked
 * iteratively so deep nesting cannot overflow the stack. Buffers, streams and other non-plain
 * objects (raw webhook bodies, blob uploads) are not walked. Returns `<where>: <what>` or null.
 */
export function findInvalidText(value: unknown, label: string): string | null {
  const stack: { v: unknown; path: string }[] = [{ v: value, path: '' }];
  const at = (path: string) => (path ? `${label} field ${quoteName(path)}` : label);
  while (stack.length) {
    const { v, path } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return `${at(path)} ${problem}`;
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: path ? `${path}.${i}` : String(i) });
    } else if (isPlainObject(v)) {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!;
        const problem = textProblem(key);
        if (problem) return `${label} has a field name that ${problem}`;
        stack.push({ v: v[key], path: path ? `${path}.${key}` : key });
      }
    }
  }
  return null;
}

const RAW_TARGET_OK = /^[\x21-\x7e]*$/;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;

/** Decodes one `application/x-www-form-urlencoded` component to bytes (`+` is a space). */
function percentDecodeBytes(s: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25 /* % */) {
      bytes.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(c === 0x2b /* + */ ? 0x20 : c);
  }
  return Buffer.from(bytes);
}

/**
 * Checks a raw request target (`/path?query`) as it arrived on the wire: only visible ASCII, and
 * every query component well-formed percent-encoded UTF-8 without NUL. Returns what is wrong, or null.
 */
export function requestTargetProblem(target: string): string | null {
  if (!RAW_TARGET_OK.test(target)) {
    return 'the URL contains a raw space, control or non-ASCII character; percent-encode it (UTF-8)';
  }
  const q = target.indexOf('?');
  if (q < 0) return null;
  const pieces = target.slice(q + 1).split('&');
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i]!;
    if (!piece) continue;
    const eq = piece.indexOf('=');
    const rawName = eq < 0 ? piece : piece.slice(0, eq);
    const rawValue = eq < 0 ? '' : piece.slice(eq + 1);
    const nameBytes = BAD_PERCENT.test(rawName) ? null : percentDecodeBytes(rawName);
    const name = nameBytes && isUtf8(nameBytes) ? nameBytes.toString('utf8') : null;
    const where = name !== null && textProblem(name) === null ? `query parameter ${quoteName(name)}` : `query parameter #${i + 1}`;
    for (const [part, raw] of [
      ['name', rawName],
      ['value', rawValue],
    ] as const) {
      if (BAD_PERCENT.test(raw)) return `${where}: malformed percent-encoding in its ${part} (% must be followed by two hex digits)`;
      const bytes = percentDecodeBytes(raw);
      if (!isUtf8(bytes)) return `${where}: its ${part} is not valid UTF-8 once percent-decoded`;
      const problem = textProblem(bytes.toString('utf8'));
      if (problem) return `${where}: its ${part} ${problem}`;
    }
  }
  return null;
}

function refuse(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).type('application/json; charset=utf-8').send({ error: message });
}

/**
 * Installs the guard on the root instance, before any route and before the idempotency hook
 * (so a refused request is never stored as an idempotent answer), and replaces the JSON body
 * parser with one that refuses bodies that are not valid UTF-8 (the stock parser would turn
 * them into U+FFFD silently). Scopes with their own parsers (raw webhook, blob uploads) keep them.
 */
export function installTextGuard(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) {
      done(Object.assign(new Error('request body is not valid UTF-8; send JSON encoded as UTF-8'), { statusCode: 400 }), undefined);
      return;
    }
    parseJson(req, bytes.toString('utf8'), done);
  });

  app.addHook('onRequest', async (req: FastifyRequest, reply: FastifyReply) => {
    const targetProblem = requestTargetProblem(req.raw.url ?? req.url);
    if (targetProblem) return refuse(reply, targetProblem);
    const params = req.params; // find-my-way's params object: not a plain object, own string values
    if (params && typeof params === 'object') {
      for (const [name, value] of Object.entries(params)) {
        const problem = typeof value === 'string' ? textProblem(value) : null;
        if (problem) return refuse(reply, `path parameter ${quoteName(name === '*' ? 'key' : name)} ${problem}`);
      }
    }
  });

  app.addHook('preValidation', async (req: FastifyRequest, reply: FastifyReply) => {
    const problem = findInvalidText(req.body, 'request body');
    if (problem) return refuse(reply, problem);
  });
}
