import { createHash } from 'node:crypto';
import { encodeRequest } from './mpp/challenge.ts';

/**
 * Digest of the request a 402 answered, for routes whose price does not name a job yet (paid
 * creation: POST /jobs without a session). Set it as `Charge.requestBinding`: the offer binds it
 * into every MPP challenge (`opaque.request`, HMAC-bound, so also into the `evm` nonce) and into
 * the x402 challenge, and a credential is accepted only when the request presenting it has the
 * same digest. A credential obtained for one creation request cannot create a different job.
 *
 * `sha-256=:<base64>:` (RFC 9530 style) of the JCS (RFC 8785) JSON of the validated request, so
 * a client re-serializing the same body (key order, whitespace) still matches.
 */
export function requestDigest(request: unknown): string {
  const jcs = Buffer.from(encodeRequest({ request }), 'base64url');
  return `sha-256=:${createHash('sha256').update(jcs).digest('base64')}:`;
}
