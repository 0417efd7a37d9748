import { eq } from 'drizzle-orm';
import { RAIL_CURRENCY, RAIL_OF_METHOD, type Rail } from '@cutroom/shared/payment-methods';
import type { Db, Tx } from '../db/database.ts';
import { paymentConsumptions } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Billing } from './billing.ts';
import { recordMovement } from './ledger.ts';
import { assertRequestBinding, parsePaymentAuthorization, verifyChallengeEcho } from './mpp/credential.ts';
import { checkEvmCredential, evmChallengeNonce, parseEvmPayload, parseEvmRequest, type Eip3009Authorization } from './mpp/evm-method.ts';
import { decodeRequest } from './mpp/challenge.ts';
import { formatReceipt } from './mpp/receipt.ts';
import { checkStripeCredential, parseStripePayload, parseStripeRequest, stripeIdempotencyKey } from './mpp/stripe-method.ts';
import { buildOffer, type Offer } from './offer.ts';
import { PaymentProblem, type Charge, type Settlement } from './types.ts';
import { buildPaymentRequirements, checkX402Payment, formatPaymentResponse, parsePaymentSignature } from './x402/x402-v2.ts';

export interface GateDeps {
  db: Db;
  billing: Billing;
  clock: Clock;
  logger: Logger;
}

/** The call needs payment: carries the offer (and why a presented credential was refused). */
export class PaymentRequiredError extends Error {
  /** Its class in the failure taxonomy (shared/src/failures.ts): HTTP 402, JSON-RPC -32042. */
  readonly code = 'payment_required' as const;
  readonly offer: Offer;
  readonly problem: PaymentProblem | null;
  constructor(offer: Offer, problem: PaymentProblem | null, detail: string) {
    super(problem?.message ?? detail);
    this.name = 'PaymentRequiredError';
    this.offer = offer;
    this.problem = problem;
  }
}

export interface PaymentInput {
  authorization: string | undefined;
  paymentSignature: string | undefined;
  resourceUrl: string;
  /** Owner tag of the requesting session, or `anonymous` (owner-tag.ts). */
  callerTag: string;
}
export interface Paid {
  settlement: Settlement;
  headers: Record<string, string>;
}

/** Does the request carry a payment credential (MPP or x402)? */
export const hasCredential = (p: PaymentInput): boolean => Boolean(p.paymentSignature) || /^Payment\s/i.test(p.authorization ?? '');

/**
 * Takes payment for `charge`, or throws PaymentRequiredError with the offer. A credential is
 * consumed before it is settled (primary key on the challenge id, unique per job), so a replay
 * or a concurrent duplicate is refused without touching the rail. `onSettled` runs in the same
 * transaction that records the consumption and the ledger charge: a job is marked paid exactly
 * when its money is on the books.
 */
export async function collectPayment(deps: GateDeps, input: PaymentInput, charge: Charge, onSettled: (tx: Tx, s: Settlement) => Promise<void>): Promise<Paid> {
  const now = deps.clock.now();
  const offer = buildOffer(deps.billing, charge, input.resourceUrl, now, input.callerTag);
  if (!hasCredential(input)) throw new PaymentRequiredError(offer, null, `${charge.description}: payment required`);
  try {
    return input.paymentSignature
      ? await settleX402(deps, input, offer, charge, onSettled)
      : await settleMpp(deps, input.authorization!, offer, charge, onSettled);
  } catch (err) {
    if (err instanceof PaymentProblem) {
      // method-unsupported stays a 400; every other refusal is a 402 with a fresh offer.
      if (err.type === 'method-unsupported') throw err;
      throw new PaymentRequiredError(offer, err, err.message);
    }
    throw err;
  }
}

async function consume(deps: GateDeps, key: string, method: string, jobId: string | null, challengeId?: string): Promise<void> {
  const rows = await deps.db
    .insert(paymentConsumptions)
    .values({ challengeId: key, method, jobId, state: 'settling', createdAt: deps.clock.now() })
    .onConflictDoNothing()
    .returning({ id: paymentConsumptions.challengeId });
  if (!rows.length) {
    throw new PaymentProblem(
      'invalid-challenge',
      jobId ? 'this credential was already used, or this job is already paid or being paid' : 'this credential was already used',
      { challengeId },
    );
  }
}

async function release(deps: GateDeps, key: string): Promise<void> {
  await deps.db.delete(paymentConsumptions).where(eq(paymentConsumptions.challengeId, key));
}

/** Settles on the rail; a refusal or an outage frees the consumption so the payer can retry. */
async function settleOnce(
  deps: GateDeps,
  key: string,
  settle: () => Promise<Settlement>,
  charge: Charge,
  onSettled: (tx: Tx, s: Settlement) => Promise<void>,
): Promise<Settlement> {
  let settlement: Settlement;
  try {
    settlement = await settle();
  } catch (err) {
    await release(deps, key);
    if (err instanceof PaymentProblem || err instanceof AppError) throw err;
    deps.logger.error({ err: err instanceof Error ? err.message : String(err), job_id: charge.jobId }, 'payment rail unavailable');
    throw new AppError('unavailable', 'the payment network is unavailable right now; nothing was charged, retry shortly');
  }
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    await tx.update(paymentConsumptions).set({ state: 'settled', reference: settlement.reference }).where(eq(paymentConsumptions.challengeId, key));
    await recordMovement(tx, {
      jobId: charge.ledgerJobId ?? charge.jobId,
      rail: settlement.rail,
      kind: 'charge',
      amount: settlement.amount,
      currency: settlement.currency,
      state: 'done',
      reference: settlement.reference,
      payer: settlement.payer,
      idempotencyKey: `charge:${key}`,
      now,
    });
    await onSettled(tx, settlement);
  });
  return settlement;
}

async function settleMpp(deps: GateDeps, header: string, offer: Offer, charge: Charge, onSettled: (tx: Tx, s: Settlement) => Promise<void>): Promise<Paid> {
  const { billing } = deps;
  const cred = parsePaymentAuthorization(header);
  const method = cred.challenge.method;
  const rail: Rail | undefined = RAIL_OF_METHOD[method];
  const expected = offer.requests[method];
  if (!rail || !expected)
    throw new PaymentProblem(
      'method-unsupported',
      `payment method ${method} is not accepted here; offered: ${Object.keys(offer.requests).join(', ') || 'hosted checkout only'}`,
    );
  const echoed = verifyChallengeEcho(billing.challengeSecret, cred.challenge, deps.clock.now());
  assertRequestBinding(expected, echoed, cred.challenge.id);
  const challengeId = cred.challenge.id;
  assertIssuedToOwner(charge, cred.challenge.opaque, challengeId);

  if (method === 'evm') {
    const request = parseEvmRequest(echoed, challengeId);
    const auth = parseEvmPayload(cred.payload);
    const { payer } = await checkEvmCredential({
      challenge: cred.challenge,
      request,
      authorization: auth,
      source: cred.source,
      domain: billing.chain!.domain,
      now: deps.clock.now(),
    });
    await consume(deps, challengeId, method, charge.jobId, challengeId);
    const s = await settleOnce(
      deps,
      challengeId,
      async () => {
        const { txHash } = await billing.chain!.settle(toRailAuth(auth), { amount: charge.amounts.chain!, nonce: evmChallengeNonce(cred.challenge) });
        return {
          rail,
          method,
          amount: charge.amounts.chain!,
          currency: RAIL_CURRENCY.chain,
          reference: txHash,
          payer: `did:pkh:eip155:${billing.chain!.chainId}:${payer}`,
        };
      },
      charge,
      onSettled,
    );
    return { settlement: s, headers: receiptHeaders(method, s.reference, deps.clock.now()) };
  }
  const request = parseStripeRequest(echoed, challengeId);
  const payload = parseStripePayload(cred.payload);
  checkStripeCredential({ request, payload, challengeId });
  await consume(deps, challengeId, method, charge.jobId, challengeId);
  const s = await settleOnce(
    deps,
    challengeId,
    async () => {
      const { paymentIntentId } = await billing.card!.chargeSpt({
        spt: payload.spt,
        amountCents: Number(charge.amounts.card!),
        currency: RAIL_CURRENCY.card,
        idempotencyKey: stripeIdempotencyKey(challengeId, payload.spt),
        metadata: { job_id: charge.jobId ?? '', challenge_id: challengeId },
      });
      return { rail, method, amount: charge.amounts.card!, currency: RAIL_CURRENCY.card, reference: paymentIntentId, payer: null };
    },
    charge,
    onSettled,
  );
  return { settlement: s, headers: receiptHeaders(method, s.reference, deps.clock.now()) };
}

async function settleX402(
  deps: GateDeps,
  input: PaymentInput,
  offer: Offer,
  charge: Charge,
  onSettled: (tx: Tx, s: Settlement) => Promise<void>,
): Promise<Paid> {
  const chain = deps.billing.chain;
  if (!chain || !offer.x402) throw new PaymentProblem('method-unsupported', 'x402 is not accepted here');
  // x402 has no challenge to bind an owner to; its clients keep the bearer token beside PAYMENT-SIGNATURE.
  if (charge.ownerTag && input.callerTag !== charge.ownerTag) {
    throw new PaymentProblem('invalid-challenge', "pay for this job with its owner's session token in Authorization");
  }
  const payment = parsePaymentSignature(input.paymentSignature!);
  const { payer, source } = await checkX402Payment({
    payment,
    expected: buildPaymentRequirements(offer.x402.input),
    resourceUrl: input.resourceUrl,
    now: deps.clock.now(),
  });
  // x402 has no challenge id: the client's EIP-3009 nonce identifies the payment.
  const key = `x402:${payment.authorization.from.toLowerCase()}:${payment.authorization.nonce}`;
  await consume(deps, key, 'x402', charge.jobId);
  const s = await settleOnce(
    deps,
    key,
    async () => {
      const { txHash } = await chain.settle(toRailAuth(payment.authorization), { amount: charge.amounts.chain!, nonce: payment.authorization.nonce });
      return { rail: 'chain', method: 'x402', amount: charge.amounts.chain!, currency: RAIL_CURRENCY.chain, reference: txHash, payer: source };
    },
    charge,
    onSettled,
  );
  return {
    settlement: s,
    headers: {
      'PAYMENT-RESPONSE': formatPaymentResponse({ success: true, transaction: s.reference, network: chain.network, payer }),
      'Cache-Control': 'private',
    },
  };
}

/** A credential for a session-owned job must answer a challenge that was issued to that session. */
function assertIssuedToOwner(charge: Charge, opaque: string | undefined, challengeId: string): void {
  if (!charge.ownerTag) return;
  let owner: unknown;
  try {
    owner = opaque ? decodeRequest({ request: opaque })['owner'] : undefined;
  } catch {
    owner = undefined;
  }
  if (owner !== charge.ownerTag) {
    throw new PaymentProblem('invalid-challenge', "this challenge was not issued to the job's owner: request it with the owner's session token", {
      challengeId,
    });
  }
}

function receiptHeaders(method: string, reference: string, now: Date): Record<string, string> {
  return { 'Payment-Receipt': formatReceipt({ method, reference, timestamp: now.toISOString() }), 'Cache-Control': 'private' };
}

/** The wire layer parses numbers as bigint; the rail takes decimal strings. */
function toRailAuth(a: Eip3009Authorization) {
  return {
    from: a.from,
    to: a.to,
    value: a.value.toString(),
    validAfter: a.validAfter.toString(),
    validBefore: a.validBefore.toString(),
    nonce: a.nonce,
    signature: a.signature,
  };
}
