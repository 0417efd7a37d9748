/**
 * MPP challenges (`WWW-Authenticate: Payment …`), built with mppx's own primitives so the
 * bytes match what mppx's client and server expect:
 *
 * - `request` = base64url (no padding) of the JCS (RFC 8785) canonical JSON: mppx
 *   `PaymentRequest.serialize` (ox `Json.canonicalize` + `Base64.fromString({url, pad:false})`).
 * - `id` = base64url-no-pad(HMAC-SHA256(utf8(secret), `realm|method|intent|request|expires|digest|opaque`)),
 *   absent optional slots as empty strings: mppx `Challenge.from({…, secretKey})`. This is the
 *   formula of payments.md; `description` is not bound. (mppx inserts a `header` slot before
 *   `opaque` when a challenge selects `Payment-Authorization`; draft-01 appends it after. We
 *   never emit `header`/`digest`/`opaque`, so both agree on our ids.)
 * - header value: mppx `Challenge.serialize` (`Payment id="…", realm="…", method="…",
 *   intent="…", request="…", description="…", expires="…"`, quoted-string escaping, code
 *   points above Latin-1 escaped as `\uXXXX` so the value is a legal header ByteString).
 */
import { Challenge as MppxChallenge, PaymentRequest } from 'mppx';

/** A challenge as it goes on the wire: `request` is the encoded (base64url JCS) form. */
export interface Challenge {
  id: string;
  realm: string;
  method: string;
  intent: string;
  /** base64url (no padding) of the JCS-canonical request JSON. */
  request: string;
  /** RFC 3339. */
  expires: string;
  description?: string;
  /** base64url JCS of server correlation data (mppx `meta`); HMAC-bound, echoed by clients unchanged. */
  opaque?: string;
}

/** A challenge with `request` as a JSON object: the form MCP's `-32042` error data carries. */
export interface JsonChallenge {
  id: string;
  realm: string;
  method: string;
  intent: string;
  request: Record<string, unknown>;
  expires: string;
  description?: string;
  opaque?: string;
}

export interface CreateChallengeInput {
  secret: string;
  realm: string;
  method: string;
  intent: 'charge';
  request: Record<string, unknown>;
  /** Date, or an RFC 3339 string. */
  expires: Date | string;
  description?: string;
  /** Server correlation data, carried as the HMAC-bound `opaque` parameter. */
  meta?: Record<string, string>;
}

/** Method ids are lowercase ASCII letters (draft §Method Identifier Format). */
const METHOD_ID = /^[a-z]+$/;

export function createChallenge(input: CreateChallengeInput): Challenge {
  if (!input.secret) throw new Error('createChallenge: empty secret');
  if (!METHOD_ID.test(input.method)) throw new Error(`createChallenge: invalid method id "${input.method}"`);
  const expires = input.expires instanceof Date ? input.expires.toISOString() : input.expires;
  const ch = MppxChallenge.from({
    secretKey: input.secret,
    realm: input.realm,
    method: input.method,
    intent: input.intent,
    request: input.request,
    expires,
    ...(input.description ? { description: input.description } : {}),
    ...(input.meta && { meta: input.meta }),
  });
  return {
    id: ch.id,
    realm: ch.realm,
    method: ch.method,
    intent: ch.intent,
    request: encodeRequest(ch.request),
    expires: ch.expires ?? expires,
    ...(ch.description !== undefined && { description: ch.description }),
    ...(ch.opaque !== undefined && { opaque: ch.opaque }),
  };
}

/** base64url-no-pad of the JCS-canonical JSON (mppx `PaymentRequest.serialize`). */
export function encodeRequest(request: Record<string, unknown>): string {
  return PaymentRequest.serialize(request);
}

/** The request JSON of a challenge. Throws on a value that is not base64url JSON of an object. */
export function decodeRequest(ch: Pick<Challenge, 'request'>): Record<string, unknown> {
  const value: unknown = PaymentRequest.deserialize(ch.request);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('challenge request is not a JSON object');
  return value as Record<string, unknown>;
}

/** One `WWW-Authenticate` header value (send one header per challenge). */
export function formatWwwAuthenticate(ch: Challenge): string {
  return MppxChallenge.serialize(toMppx(ch));
}

/** The challenge with `request` decoded, for MCP `error.data.challenges[]` (mppx's object form). */
export function toJsonChallenge(ch: Challenge): JsonChallenge {
  return toMppx(ch) as JsonChallenge;
}

/** @internal mppx's object form (request decoded). */
function toMppx(ch: Challenge): MppxChallenge.Challenge {
  return {
    id: ch.id,
    realm: ch.realm,
    method: ch.method,
    intent: ch.intent,
    request: decodeRequest(ch),
    expires: ch.expires,
    ...(ch.description !== undefined && { description: ch.description }),
    ...(ch.opaque !== undefined && { opaque: ch.opaque }),
  };
}
