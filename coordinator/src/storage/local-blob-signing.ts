// Presigned URLs for the local store: the coordinator serves /blobs/<key> itself, and the URL
// carries an HMAC over everything the holder may rely on, so none of it can be altered.
import { createHmac, timingSafeEqual } from 'node:crypto';

export type BlobUrlOp = 'get' | 'put';

export interface SignedBlobFields {
  op: BlobUrlOp;
  key: string;
  /** expiry, unix seconds */
  exp: number;
  /** content type: required upload type (put) or served type override (get); '' when none */
  ct: string;
  /** download filename (get only); '' when none */
  fn: string;
}

export type SignatureCheck = { isValid: true; fields: SignedBlobFields } | { isValid: false; reason: string };

export function signBlobFields(secret: string, f: SignedBlobFields): string {
  // JSON array as the canonical string: unambiguous whatever characters ct or fn contain.
  const canonical = JSON.stringify([f.op, f.key, f.exp, f.ct, f.fn]);
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

export function buildSignedBlobUrl(baseUrl: string, secret: string, f: SignedBlobFields): string {
  const query = new URLSearchParams({ op: f.op, exp: String(f.exp) });
  if (f.ct) query.set('ct', f.ct);
  if (f.fn) query.set('fn', f.fn);
  query.set('sig', signBlobFields(secret, f));
  // Keys are limited to URL-safe characters (see assertValidBlobKey), so no escaping is needed.
  return `${baseUrl.replace(/\/+$/, '')}/blobs/${f.key}?${query.toString()}`;
}

/** Checks a request's query against the key and the operation its HTTP method implies. */
export function verifySignedBlobQuery(secret: string, op: BlobUrlOp, key: string, query: Record<string, unknown>, nowMs: number): SignatureCheck {
  const text = (name: string): string | null => {
    const v = query[name];
    if (v === undefined) return '';
    return typeof v === 'string' ? v : null; // repeated parameters are ambiguous: refuse them
  };
  const qop = text('op'),
    exp = text('exp'),
    ct = text('ct'),
    fn = text('fn'),
    sig = text('sig');
  if (qop === null || exp === null || ct === null || fn === null || sig === null || !sig) {
    return { isValid: false, reason: 'the URL is not a complete presigned blob URL' };
  }
  if (qop !== op) {
    return { isValid: false, reason: `this URL was signed for op=${qop}, not ${op}` };
  }
  if (!/^\d{1,12}$/.test(exp)) return { isValid: false, reason: 'the URL has no valid expiry' };
  const fields: SignedBlobFields = { op, key, exp: Number(exp), ct, fn };
  const expected = Buffer.from(signBlobFields(secret, fields));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { isValid: false, reason: 'the signature does not match (was the URL altered?)' };
  }
  // Checked after the signature so an attacker learns nothing from the expiry message.
  if (Math.floor(nowMs / 1000) > fields.exp) {
    return { isValid: false, reason: `the URL expired at ${new Date(fields.exp * 1000).toISOString()}` };
  }
  return { isValid: true, fields };
}
