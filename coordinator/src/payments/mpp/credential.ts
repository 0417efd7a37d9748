/**
 * MPP credentials: `Authorization: Payment <base64url JSON {challenge, payload, source?}>`.
 *
 * Parsing goes through mppx's `Credential.deserialize` (the same code mppx's server runs), so
 * we accept exactly what mppx accepts, including the legacy object-shaped `opaque`. The HMAC
 * check is mppx's `Challenge.verify`, which re-canonicalizes the echoed request before
 * hashing; the expiry check is ours because it must take `now` (mppx reads the wall clock).
 *
 * Never log a credential or a parsed payload: an EIP-3009 signature or an SPT is spendable.
 */
import { Challenge as MppxChallenge, Credential as MppxCredential, PaymentRequest } from 'mppx';
import type { PaymentProblem } from '../types.ts';
import { encodeRequest } from './challenge.ts';
import { paymentProblem } from './problem.ts';

/** Credential header values longer than this are refused (the draft's floor is 4 KB). */
export const MAX_CREDENTIAL_LENGTH = 16 * 1024;

/** The echoed challenge parameters, `request` in its encoded (base64url JCS) form. */
export interface EchoedChallenge {
  id: string;
  realm: string;
  method: string;
  intent: string;
  request: string;
  expires?: string;
  description?: string;
  digest?: string;
  opaque?: string;
  /** Only when a challenge selected `Payment-Authorization`; we never do, so its presence fails the HMAC. */
  header?: string;
}

export interface ParsedCredential {
  challenge: EchoedChallenge;
  /** Method-specific; validate with the method's `parse…Payload`. */
  payload: Record<string, unknown>;
  /** Payer DID, e.g. `did:pkh:eip155:8453:0x…`. Informational until the method verifies it. */
  source?: string;
}

/** True when the header value carries a `Payment` credential (possibly beside other schemes). */
export function hasPaymentCredential(headerValue: string | undefined | null): boolean {
  return typeof headerValue === 'string' && MppxCredential.extractPaymentScheme(headerValue) !== null;
}

/**
 * Parses an `Authorization` (or `Payment-Authorization`) header value. Throws a
 * `malformed-credential` {@link PaymentProblem} for a missing `Payment` scheme, bad base64url,
 * bad JSON, a challenge object missing required fields, or a payload that is not an object.
 */
export function parsePaymentAuthorization(headerValue: string): ParsedCredential {
  if (typeof headerValue !== 'string' || headerValue.length === 0) throw malformed('empty credential');
  if (headerValue.length > MAX_CREDENTIAL_LENGTH) throw malformed('credential too large');
  const scheme = MppxCredential.extractPaymentScheme(headerValue);
  if (!scheme) throw malformed('not a Payment credential');
  let parsed: MppxCredential.Credential;
  try {
    parsed = MppxCredential.deserialize(scheme);
  } catch (cause) {
    throw malformed('invalid base64url or JSON', cause);
  }
  return fromMppx(parsed);
}

/**
 * Parses the object form of a credential: MCP's `params._meta["org.paymentauth/credential"]`
 * (`{challenge: {…, request: <object>}, payload, source?}`), validated like mppx's MCP
 * transport does: re-serialize to the header form, then parse that.
 */
export function parseCredentialObject(value: unknown): ParsedCredential {
  if (typeof value !== 'object' || value === null || !('challenge' in value) || !('payload' in value)) {
    throw malformed('credential must be an object with challenge and payload');
  }
  let header: string;
  try {
    header = MppxCredential.serialize(value as MppxCredential.Credential);
  } catch (cause) {
    throw malformed('invalid credential object', cause);
  }
  return parsePaymentAuthorization(header);
}

/**
 * Verifies the echoed challenge was issued by us (HMAC over its bound parameters; any change
 * to realm/method/intent/request/expires/digest/opaque fails) and has not expired. Returns the
 * decoded request. Problems: `invalid-challenge` (bad HMAC, missing or malformed `expires`),
 * `payment-expired`. The caller still has to compare the request with the route's
 * ({@link assertRequestBinding}), check the consumed-challenge record, and verify the payload.
 */
export function verifyChallengeEcho(secret: string, echoed: EchoedChallenge, now: Date): Record<string, unknown> {
  let request: Record<string, unknown>;
  try {
    const value: unknown = PaymentRequest.deserialize(echoed.request);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('request is not an object');
    request = value as Record<string, unknown>;
  } catch (cause) {
    throw paymentProblem('invalid-challenge', 'challenge request is not base64url JSON', { challengeId: echoed.id, cause });
  }
  const mppx: MppxChallenge.Challenge = {
    id: echoed.id,
    realm: echoed.realm,
    method: echoed.method,
    intent: echoed.intent,
    request,
    ...(echoed.expires !== undefined && { expires: echoed.expires }),
    ...(echoed.digest !== undefined && { digest: echoed.digest }),
    ...(echoed.opaque !== undefined && { opaque: echoed.opaque }),
    ...(echoed.header !== undefined && { header: echoed.header }),
  };
  if (!secret || !MppxChallenge.verify(mppx, { secretKey: secret })) {
    throw paymentProblem('invalid-challenge', 'challenge was not issued by this server', { challengeId: echoed.id });
  }
  // Fail closed like mppx's Expires.assert: no or unparsable expires → invalid-challenge.
  if (!echoed.expires) throw paymentProblem('invalid-challenge', 'challenge has no expires', { challengeId: echoed.id });
  const expiresMs = Date.parse(echoed.expires);
  if (Number.isNaN(expiresMs)) throw paymentProblem('invalid-challenge', 'malformed expires timestamp', { challengeId: echoed.id });
  if (expiresMs < now.getTime()) {
    throw paymentProblem('payment-expired', `challenge expired at ${echoed.expires}`, { challengeId: echoed.id });
  }
  return request;
}

/**
 * Request fields a credential must agree on with the route it is presented to (mppx pins the
 * same: amount, currency, recipient, and the method's chain/network). The HMAC only proves we
 * issued the echoed request; this proves it was issued for *this* purchase.
 */
const PINNED_FIELDS = ['amount', 'currency', 'recipient', 'externalId'] as const;
const PINNED_METHOD_DETAILS = ['chainId', 'networkId', 'splits'] as const;

/** Throws `invalid-challenge` when the echoed request does not match the route's expected one. */
export function assertRequestBinding(expected: Record<string, unknown>, echoed: Record<string, unknown>, challengeId?: string): void {
  for (const field of PINNED_FIELDS) {
    if (!sameJson(expected[field], echoed[field])) {
      throw paymentProblem('invalid-challenge', `credential ${field} does not match this route's requirements`, { challengeId });
    }
  }
  const exp = asRecord(expected.methodDetails);
  const got = asRecord(echoed.methodDetails);
  for (const field of PINNED_METHOD_DETAILS) {
    if (!sameJson(exp?.[field], got?.[field])) {
      throw paymentProblem('invalid-challenge', `credential methodDetails.${field} does not match this route's requirements`, { challengeId });
    }
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return a === b;
  return encodeRequest({ v: a }) === encodeRequest({ v: b });
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

function fromMppx(parsed: MppxCredential.Credential): ParsedCredential {
  const payload: unknown = parsed.payload;
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw malformed('payload must be a JSON object');
  if (parsed.source !== undefined && typeof parsed.source !== 'string') throw malformed('source must be a string');
  const ch = parsed.challenge;
  const challenge: EchoedChallenge = {
    id: ch.id,
    realm: ch.realm,
    method: ch.method,
    intent: ch.intent,
    request: encodeRequest(ch.request),
    ...(ch.expires !== undefined && { expires: ch.expires }),
    ...(ch.description !== undefined && { description: ch.description }),
    ...(ch.digest !== undefined && { digest: ch.digest }),
    ...(ch.opaque !== undefined && { opaque: ch.opaque }),
    ...(ch.header !== undefined && { header: ch.header }),
  };
  return {
    challenge,
    payload: payload as Record<string, unknown>,
    ...(parsed.source !== undefined && { source: parsed.source }),
  };
}

function malformed(detail: string, cause?: unknown): PaymentProblem {
  return paymentProblem('malformed-credential', `Credential is malformed: ${detail}.`, { cause });
}
