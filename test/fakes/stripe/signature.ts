// The `Stripe-Signature` header exactly as Stripe computes it for webhook deliveries:
// `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw payload>")>`. The whole secret string
// (with its `whsec_` prefix) is the HMAC key, and the MAC covers the payload bytes as sent, which
// is why receivers must verify the raw body, not a re-serialized parse.
import { createHmac } from 'node:crypto';

export function computeSignature(payload: string, secret: string, timestampSec: number): string {
  return createHmac('sha256', secret).update(`${timestampSec}.${payload}`, 'utf8').digest('hex');
}

export function signatureHeader(payload: string, secret: string, timestampSec: number): string {
  return `t=${timestampSec},v1=${computeSignature(payload, secret, timestampSec)}`;
}
