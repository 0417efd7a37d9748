/**
 * x402 protocol v2 on the chain rail, `exact` scheme, EVM, EIP-3009 (`@x402/core` 2.27 types,
 * `@x402/evm` exact client; mppx's x402 compatibility path agrees).
 *
 * Headers (all standard base64, WITH padding, of JSON; encoded/decoded with @x402/core/http):
 * - 402 → `PAYMENT-REQUIRED`: {x402Version: 2, error?, resource: {url, description?, mimeType?},
 *   accepts: [{scheme: "exact", network: "eip155:<id>", amount, asset, payTo, maxTimeoutSeconds,
 *   extra: {name, version}}]}
 * - request → `PAYMENT-SIGNATURE`: {x402Version: 2, resource?, accepted: <one accepts entry,
 *   verbatim>, payload: {authorization: {from, to, value, validAfter, validBefore, nonce},
 *   signature}, extensions?}
 * - 2xx → `PAYMENT-RESPONSE`: {success, transaction, network, payer?, errorReason?}
 *
 * The authorization nonce is client-chosen (random bytes32 from @x402/evm; mppx's client uses a
 * random nonce too unless the server sent mppx's own `extensions.mppx` route binding, which we
 * do not). Replay protection is the token contract's nonce state plus our consumed record.
 * The legacy v1 `X-PAYMENT` header is not accepted.
 *
 * Binding (WIRE.md "x402 binding"): nothing in the EIP-3009 message a stock client signs names
 * the job (from, to, value, validAfter, validBefore, a random nonce), so the offer carries an
 * HMAC-bound challenge in `extensions["cutroom-challenge"]` ({@link issueX402Binding}) that stock
 * clients echo with `accepted` and `resource`; a payment is accepted only with an unexpired
 * binding issued for this resource, job, price, owner and request ({@link verifyX402Binding}).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http';
import { PaymentPayloadV2Schema } from '@x402/core/schemas';
import type { PaymentRequired, PaymentRequirements, ResourceInfo, SettleResponse } from '@x402/core/types';
import { getAddress } from 'viem';
import { encodeRequest } from '../mpp/challenge.ts';
import {
  type Address,
  type Eip3009Authorization,
  evmSource,
  parseAuthorizationFields,
  type TokenDomain,
  verifyEip3009Authorization,
} from '../mpp/evm-method.ts';
import { paymentProblem } from '../mpp/problem.ts';
import type { PaymentProblem } from '../types.ts';

export const X402_VERSION = 2;
export const PAYMENT_REQUIRED_HEADER = 'PAYMENT-REQUIRED';
export const PAYMENT_SIGNATURE_HEADER = 'PAYMENT-SIGNATURE';
export const PAYMENT_RESPONSE_HEADER = 'PAYMENT-RESPONSE';

/** PAYMENT-SIGNATURE values longer than this are refused. */
export const MAX_PAYMENT_SIGNATURE_LENGTH = 16 * 1024;

export type EvmNetwork = `eip155:${number}`;

export interface BuildPaymentRequiredInput {
  /** Absolute URL of the paid resource (mppx's client derives its realm from it). */
  resource: string;
  description?: string;
  mimeType?: string;
  /** Base units. */
  amount: bigint | string;
  /** Token contract. */
  asset: string;
  payTo: string;
  network: EvmNetwork | string;
  maxTimeoutSeconds: number;
  /** EIP-712 domain of the token; both stock clients need it to sign. */
  extra: TokenDomain;
  /** Why a previous attempt failed (x402 reports failures here, with a 402). */
  error?: string;
  /** The challenge this offer is bound to, sent as `extensions["cutroom-challenge"].info` ({@link issueX402Binding}). */
  binding?: X402Binding;
}

/** `eip155:<chainId>`. */
export function x402Network(chainId: number): EvmNetwork {
  return `eip155:${chainId}`;
}

/** Chain id of an `eip155:<id>` network; throws on anything else. */
export function chainIdOfNetwork(network: string): number {
  const m = /^eip155:(\d{1,15})$/.exec(network);
  if (!m) throw new Error(`not an EVM CAIP-2 network: ${network}`);
  return Number(m[1]);
}

/** The `accepts[0]` entry, which is also what a client echoes back as `accepted`. */
export function buildPaymentRequirements(input: BuildPaymentRequiredInput): PaymentRequirements {
  const amount = typeof input.amount === 'bigint' ? input.amount.toString() : input.amount;
  if (!/^\d+$/.test(amount) || BigInt(amount) <= 0n) throw new Error('buildPaymentRequirements: amount must be a positive integer');
  if (!Number.isFinite(input.maxTimeoutSeconds) || input.maxTimeoutSeconds <= 0)
    throw new Error('buildPaymentRequirements: maxTimeoutSeconds must be positive');
  chainIdOfNetwork(input.network);
  return {
    scheme: 'exact',
    network: input.network as EvmNetwork,
    amount,
    asset: getAddress(input.asset),
    payTo: getAddress(input.payTo),
    maxTimeoutSeconds: Math.floor(input.maxTimeoutSeconds),
    extra: { name: input.extra.name, version: input.extra.version },
  };
}

/** The PAYMENT-REQUIRED object (also usable as a JSON body). */
export function buildPaymentRequiredObject(input: BuildPaymentRequiredInput): PaymentRequired {
  try {
    new URL(input.resource);
  } catch {
    throw new Error('buildPaymentRequired: resource must be an absolute URL');
  }
  const resource: ResourceInfo = {
    url: input.resource,
    ...(input.description !== undefined && { description: input.description }),
    ...(input.mimeType !== undefined && { mimeType: input.mimeType }),
  };
  return {
    x402Version: X402_VERSION,
    ...(input.error !== undefined && { error: input.error }),
    resource,
    accepts: [buildPaymentRequirements(input)],
    ...(input.binding !== undefined && { extensions: { [X402_BINDING_EXTENSION]: { info: input.binding, schema: X402_BINDING_SCHEMA } } }),
  };
}

/** `PAYMENT-REQUIRED` header value. */
export function buildPaymentRequired(input: BuildPaymentRequiredInput): string {
  return encodePaymentRequiredHeader(buildPaymentRequiredObject(input));
}

export interface ParsedX402Payment {
  authorization: Eip3009Authorization;
  /** The requirements the client says it paid (compare with ours: {@link checkX402Payment}). */
  accepted: PaymentRequirements;
  resource?: ResourceInfo;
  /** What the client echoed (and added) under `extensions`. */
  extensions?: Record<string, unknown>;
  chainId: number;
}

/**
 * Parses a `PAYMENT-SIGNATURE` header value into the same typed EIP-3009 authorization as the
 * MPP `evm` method. Throws `malformed-credential` for bad base64, bad JSON, a payload that is
 * not x402 v2, a scheme other than `exact` on an `eip155:` network, or a non-EIP-3009
 * (e.g. Permit2) payload.
 */
export function parsePaymentSignature(headerValue: string): ParsedX402Payment {
  if (typeof headerValue !== 'string' || headerValue.length === 0) throw malformed('empty PAYMENT-SIGNATURE');
  if (headerValue.length > MAX_PAYMENT_SIGNATURE_LENGTH) throw malformed('PAYMENT-SIGNATURE too large');
  let decoded: unknown;
  try {
    decoded = decodePaymentSignatureHeader(headerValue.trim());
  } catch (cause) {
    throw malformed('PAYMENT-SIGNATURE is not base64 JSON', cause);
  }
  const parsed = PaymentPayloadV2Schema.safeParse(decoded);
  if (!parsed.success) throw malformed('not an x402 v2 payment payload');
  const { accepted, payload, resource, extensions } = parsed.data;
  if (accepted.scheme !== 'exact') throw malformed(`unsupported x402 scheme "${accepted.scheme.slice(0, 32)}"`);
  let chainId: number;
  try {
    chainId = chainIdOfNetwork(accepted.network);
  } catch (cause) {
    throw malformed('x402 network is not eip155', cause);
  }
  const auth = payload.authorization;
  if (typeof auth !== 'object' || auth === null || Array.isArray(auth)) {
    throw malformed('x402 payload is not an EIP-3009 authorization (Permit2 is not accepted)');
  }
  const authorization = parseAuthorizationFields(auth as Record<string, unknown>, payload.signature);
  return {
    authorization,
    accepted: accepted as PaymentRequirements,
    ...(resource !== undefined && { resource: resource as ResourceInfo }),
    ...(isRecord(extensions) && { extensions }),
    chainId,
  };
}

export interface CheckX402PaymentInput {
  payment: ParsedX402Payment;
  /** What this route offers now (rebuild with {@link buildPaymentRequirements}). */
  expected: PaymentRequirements;
  /** The resource URL of this request: the payment must echo it as `resource.url` (stock clients do). */
  resourceUrl?: string;
  now: Date;
}

/**
 * Checks an x402 payment against the route (the checks mppx's x402 path makes): `accepted`
 * must equal our requirements (order-insensitive JSON equality), the echoed resource URL must
 * match, then the EIP-3009 authorization is verified off-chain against payTo/amount/asset/
 * network and the token domain in `extra`. Throws `verification-failed`,
 * `payment-insufficient` or `payment-expired`.
 */
export async function checkX402Payment(input: CheckX402PaymentInput): Promise<{ payer: Address; source: string }> {
  const { payment, expected } = input;
  if (encodeRequest(payment.accepted as unknown as Record<string, unknown>) !== encodeRequest(expected as unknown as Record<string, unknown>)) {
    throw paymentProblem('verification-failed', "x402 payment does not match this route's requirements");
  }
  // Required, not merely compared when present: a payment that leaves its resource out must not
  // pass for whichever route it is presented to.
  if (input.resourceUrl !== undefined && payment.resource?.url !== input.resourceUrl) {
    throw paymentProblem('verification-failed', 'x402 payment resource does not match this route');
  }
  const name = expected.extra?.name;
  const version = expected.extra?.version;
  if (typeof name !== 'string' || typeof version !== 'string') throw new Error('checkX402Payment: expected.extra needs name and version');
  const chainId = chainIdOfNetwork(expected.network);
  const { payer } = await verifyEip3009Authorization({
    authorization: payment.authorization,
    chainId,
    token: expected.asset,
    domain: { name, version },
    recipient: expected.payTo,
    amount: BigInt(expected.amount),
    now: input.now,
  });
  return { payer, source: evmSource(chainId, payer) };
}

export interface FormatPaymentResponseInput {
  success: boolean;
  /** tx hash; empty string when settlement failed before a transaction existed. */
  transaction: string;
  network: EvmNetwork | string;
  payer?: string;
  errorReason?: string;
}

/** `PAYMENT-RESPONSE` header value (a SettleResponse). */
export function formatPaymentResponse(input: FormatPaymentResponseInput): string {
  const response: SettleResponse = {
    success: input.success,
    transaction: input.transaction,
    network: input.network as EvmNetwork,
    ...(input.payer !== undefined && { payer: input.payer }),
    ...(input.errorReason !== undefined && { errorReason: input.errorReason }),
  };
  return encodePaymentResponseHeader(response);
}

/** The `extensions` key of our challenge in PAYMENT-REQUIRED (echoed in PAYMENT-SIGNATURE). */
export const X402_BINDING_EXTENSION = 'cutroom-challenge';

/** `extensions["cutroom-challenge"].info`: an HMAC-bound challenge, the x402 counterpart of an MPP challenge id. */
export interface X402Binding {
  /** base64url HMAC-SHA256 over the scope, `expires`, `owner` and `request` ({@link x402BindingId}). */
  id: string;
  /** RFC 3339; the same TTL as the MPP challenges of the same 402. */
  expires: string;
  /** Owner tag of the session the 402 went to, or `anonymous` (owner-tag.ts). */
  owner: string;
  /** Digest of the request that got the 402 (paid creation: request-binding.ts), when the route binds one. */
  request?: string;
}

/** What a binding is issued for: the route's resource and job, and the offer's terms. */
export interface X402BindingScope {
  secret: string;
  realm: string;
  /** Absolute URL of the paid resource (the offer's `resource.url`). */
  resource: string;
  /** The job paid for (the MPP challenges' `externalId`); absent for paid creation and the smoke test. */
  externalId?: string | undefined;
  amount: bigint | string;
  asset: string;
  payTo: string;
  network: string;
}

// x402 v2 extensions are {info, schema}: the schema tells a client what the info holds.
const X402_BINDING_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { id: { type: 'string' }, expires: { type: 'string' }, owner: { type: 'string' }, request: { type: 'string' } },
  required: ['id', 'expires', 'owner'],
  additionalProperties: false,
} as const;

/** base64url( HMAC-SHA256(secret, `x402|realm|resource|externalId|amount|asset|payTo|network|expires|owner|request`) ). */
export function x402BindingId(scope: X402BindingScope, b: Omit<X402Binding, 'id'>): string {
  const input = [
    'x402',
    scope.realm,
    scope.resource,
    scope.externalId ?? '',
    String(scope.amount),
    scope.asset.toLowerCase(),
    scope.payTo.toLowerCase(),
    scope.network,
    b.expires,
    b.owner,
    b.request ?? '',
  ].join('|');
  return createHmac('sha256', scope.secret).update(input).digest('base64url');
}

export function issueX402Binding(scope: X402BindingScope, expires: Date, owner: string, request?: string): X402Binding {
  const b = { expires: expires.toISOString(), owner, ...(request !== undefined && { request }) };
  return { id: x402BindingId(scope, b), ...b };
}

/**
 * Checks the binding a payment echoed: issued by us for exactly this scope (HMAC), not expired,
 * issued to the job's owner when the job has one, and for this request when the route binds one.
 * Throws `invalid-challenge` (no, forged or foreign binding) or `payment-expired`.
 */
export function verifyX402Binding(
  scope: X402BindingScope,
  extensions: Record<string, unknown> | undefined,
  now: Date,
  expect: { owner?: string | undefined; request?: string | undefined },
): X402Binding {
  const ext = extensions?.[X402_BINDING_EXTENSION];
  const info = isRecord(ext) ? ext['info'] : undefined;
  if (!isRecord(info) || typeof info['id'] !== 'string' || typeof info['expires'] !== 'string' || typeof info['owner'] !== 'string') {
    throw paymentProblem(
      'invalid-challenge',
      `x402 payment carries no challenge: answer a PAYMENT-REQUIRED from this server, echoing its extensions["${X402_BINDING_EXTENSION}"]`,
    );
  }
  if (info['request'] !== undefined && typeof info['request'] !== 'string') throw paymentProblem('invalid-challenge', 'x402 challenge is malformed');
  const b: X402Binding = {
    id: info['id'],
    expires: info['expires'],
    owner: info['owner'],
    ...(typeof info['request'] === 'string' && { request: info['request'] }),
  };
  const want = Buffer.from(x402BindingId(scope, { expires: b.expires, owner: b.owner, request: b.request }));
  const got = Buffer.from(b.id);
  if (want.length !== got.length || !timingSafeEqual(want, got)) {
    throw paymentProblem('invalid-challenge', 'x402 challenge was not issued for this job, resource and price: request a new 402 for this call');
  }
  const expiresMs = Date.parse(b.expires);
  if (Number.isNaN(expiresMs)) throw paymentProblem('invalid-challenge', 'x402 challenge has a malformed expires');
  if (expiresMs < now.getTime()) throw paymentProblem('payment-expired', `x402 challenge expired at ${b.expires}`);
  if (expect.owner !== undefined && b.owner !== expect.owner) {
    throw paymentProblem('invalid-challenge', "x402 challenge was not issued to the job's owner: request it with the owner's session token");
  }
  if (expect.request !== undefined && b.request !== expect.request) {
    throw paymentProblem('invalid-challenge', 'x402 challenge was issued for a different request: request a new 402 with this exact request');
  }
  return b;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function malformed(detail: string, cause?: unknown): PaymentProblem {
  return paymentProblem('malformed-credential', `Payment payload is malformed: ${detail}.`, { cause });
}
