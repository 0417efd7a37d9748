import type { Ctx } from '../context.ts';
import type { PaymentInput } from '../payments/gate.ts';
import { callerTag } from '../payments/owner-tag.ts';

/**
 * What a transport lifted off a call, unchecked. REST reads it from headers; MCP from the same
 * headers of its HTTP request (or a tool's payment argument); tRPC from its context.
 */
export interface Credentials {
  /** The session token (`Authorization: Bearer …` over HTTP), or null. */
  bearer: string | null;
  /** An MPP credential (`Authorization: Payment …`), or whatever else the Authorization carried. */
  authorization: string | undefined;
  /** An x402 v2 payment (`PAYMENT-SIGNATURE`). */
  paymentSignature: string | undefined;
  /** Absolute URL of what is being paid for; x402 binds its payment to it. */
  resourceUrl: string;
  /** The client's address as the transport saw it (TRUST_PROXY applied), for per-IP caps; absent where there is none. */
  clientIp?: string | undefined;
}

/** The payment parts of a call, with the owner tag of its session (payments/owner-tag.ts). */
export function paymentInputOf(ctx: Ctx, creds: Credentials): PaymentInput {
  return {
    authorization: creds.authorization,
    paymentSignature: creds.paymentSignature,
    resourceUrl: creds.resourceUrl,
    callerTag: callerTag(ctx.billing.challengeSecret, creds.bearer),
  };
}
