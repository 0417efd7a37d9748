import { RAIL_CURRENCY, RAIL_OF_METHOD, type Rail } from '@cutroom/shared/payment-methods';
import type { Db, Tx } from '../db/database.ts';
import { AppError } from '../lib/app-error.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Billing } from './billing.ts';
import { assertRequestBinding, parsePaymentAuthorization, verifyChallengeEcho } from './mpp/credential.ts';
import { checkEvmCredential, evmChallengeNonce, parseEvmPayload, parseEvmRequest, type Eip3009Authorization } from './mpp/evm-method.ts';
import { decodeRequest } from './mpp/challenge.ts';
import { formatReceipt } from './mpp/receipt.ts';
import { checkStripeCredential, parseStripePayload, parseStripeRequest, stripeIdempotencyKey } from './mpp/stripe-method.ts';
import { buildOffer, type Offer } from './offer.ts';
import { cardConsumptionKey, chainConsumptionKey, purposeOf } from './consumption-key.ts';
import { BroadcastUncertainError, SettlementAnomaly, type SignedTx } from './rails/chain-rail.ts';
import {
  type Attempt,
  checkConsumption,
  checkRecovery,
  claimConsumption,
  type ConsumptionRow,
  deferConsumption,
  failConsumption,
  isOpen,
  ledgerKindOf,
  type Outcome,
  ReferenceTakenError,
  recordChainTx,
  releaseConsumption,
  settleConsumption,
} from './settlement.ts';
import { PaymentProblem, type Charge, type Settlement } from './types.ts';
import { buildPaymentRequirements, checkX402Payment, formatPaymentResponse, parsePaymentSignature, verifyX402Binding } from './x402/x402-v2.ts';

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

type OnSettled = (tx: Tx, s: Settlement) => Promise<void>;

/** Does the request carry a payment credential (MPP or x402)? */
export const hasCredential = (p: PaymentInput): boolean => Boolean(p.paymentSignature) || /^Payment\s/i.test(p.authorization ?? '');

/**
 * Takes payment for `charge`, or throws PaymentRequiredError with the offer. A credential is
 * consumed before it is settled (primary key on the challenge id, unique per job), so a replay
 * or a concurrent duplicate is refused without touching the rail. `onSettled` runs in the same
 * transaction that records the consumption and the ledger charge: a job is marked paid exactly
 * when its money is on the books.
 *
 * When the rail's answer does not come (a receipt wait times out, the processor fails after the
 * charge may have run), the consumption stays `pending` and the caller gets a retryable 503
 * (`unavailable`) saying the payment is being confirmed: never "nothing was charged". Repeating
 * the call with the same credential asks the rail again and completes it once the payment
 * confirms; the reconciler (reconcile.ts) ends it otherwise.
 */
export async function collectPayment(deps: GateDeps, input: PaymentInput, charge: Charge, onSettled: OnSettled): Promise<Paid> {
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

async function settleMpp(deps: GateDeps, header: string, offer: Offer, charge: Charge, onSettled: OnSettled): Promise<Paid> {
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
  assertIssuedFor(charge, cred.challenge.opaque, challengeId);

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
    const s = await settleOnChain(deps, {
      key: chainConsumptionKey(billing.chain!.chainId, auth.from, auth.nonce),
      method,
      charge,
      auth,
      nonce: evmChallengeNonce(cred.challenge),
      payer: `did:pkh:eip155:${billing.chain!.chainId}:${payer}`,
      challengeId,
      onSettled,
    });
    return { settlement: s, headers: receiptHeaders(method, s.reference, deps.clock.now()) };
  }
  const request = parseStripeRequest(echoed, challengeId);
  const payload = parseStripePayload(cred.payload);
  checkStripeCredential({ request, payload, challengeId });
  const s = await settleByCard(deps, { key: cardConsumptionKey(challengeId), method, charge, spt: payload.spt, challengeId, onSettled });
  return { settlement: s, headers: receiptHeaders(method, s.reference, deps.clock.now()) };
}

async function settleX402(deps: GateDeps, input: PaymentInput, offer: Offer, charge: Charge, onSettled: OnSettled): Promise<Paid> {
  const chain = deps.billing.chain;
  if (!chain || !offer.x402) throw new PaymentProblem('method-unsupported', 'x402 is not accepted here');
  // x402's clients keep the bearer token beside PAYMENT-SIGNATURE: a session-owned job is paid with it.
  if (charge.ownerTag && input.callerTag !== charge.ownerTag) {
    throw new PaymentProblem('invalid-challenge', "pay for this job with its owner's session token in Authorization");
  }
  const payment = parsePaymentSignature(input.paymentSignature!);
  const now = deps.clock.now();
  // The challenge the payment answers must have been issued for this resource, job, price, owner
  // and request (x402-v2.ts "Binding"): the signed authorization itself names none of them.
  verifyX402Binding({ ...offer.x402.scope, secret: deps.billing.challengeSecret }, payment.extensions, now, {
    owner: charge.ownerTag,
    request: charge.requestBinding,
  });
  const { payer, source } = await checkX402Payment({
    payment,
    expected: buildPaymentRequirements(offer.x402.input),
    resourceUrl: input.resourceUrl,
    now,
  });
  // The authorization's own identity, the same key an MPP credential carrying it would take.
  const s = await settleOnChain(deps, {
    key: chainConsumptionKey(chain.chainId, payment.authorization.from, payment.authorization.nonce),
    method: 'x402',
    charge,
    auth: payment.authorization,
    nonce: payment.authorization.nonce,
    payer: source,
    onSettled,
  });
  return {
    settlement: s,
    headers: {
      'PAYMENT-RESPONSE': formatPaymentResponse({ success: true, transaction: s.reference, network: chain.network, payer }),
      'Cache-Control': 'private',
    },
  };
}

/** The consumption's record of one payment on one rail: the charge's amount and currency on it, and how to recover it. */
function attemptOf(
  p: { key: string; method: string; charge: Charge; challengeId?: string | undefined },
  rail: Rail,
  payer: string | null,
  recovery: Attempt['recovery'],
): Attempt {
  return {
    key: p.key,
    challengeId: p.challengeId ?? null,
    purpose: purposeOf(p.charge),
    method: p.method,
    rail,
    jobId: p.charge.jobId,
    ledgerJobId: p.charge.ledgerJobId ?? p.charge.jobId,
    amount: p.charge.amounts[rail]!,
    currency: RAIL_CURRENCY[rail],
    payer,
    recovery,
  };
}

interface ChainPayment {
  key: string;
  method: string;
  charge: Charge;
  auth: Eip3009Authorization;
  nonce: `0x${string}`;
  payer: string;
  challengeId?: string;
  onSettled: OnSettled;
}

/**
 * Relays on the chain: the signed relay's hash is recorded on the consumption before it is
 * broadcast, then the request waits up to the rail's receipt timeout. Reverted (and no copy of
 * the authorization mined instead): failed. No receipt in time, an uncertain broadcast, or a
 * receipt without our Transfer: pending, answered 503, reconciled.
 */
async function settleOnChain(deps: GateDeps, p: ChainPayment): Promise<Settlement> {
  const chain = deps.billing.chain!;
  const railAuth = toRailAuth(p.auth);
  const attempt = attemptOf(p, 'chain', p.payer, {
    rail: 'chain',
    from: p.auth.from,
    nonce: p.nonce,
    value: railAuth.value,
    validBefore: railAuth.validBefore,
  });
  const resumed = await claim(deps, attempt, p.onSettled, p.challengeId);
  if (resumed) return resumed;

  let tx: SignedTx;
  try {
    ({ tx } = await chain.relay(railAuth, { amount: attempt.amount, nonce: p.nonce }, (signed) => recordChainTx(deps.db, p.key, signed, deps.clock.now())));
  } catch (err) {
    if (err instanceof BroadcastUncertainError) return conclude(deps, attempt, { status: 'unknown', reason: err.message }, p.onSettled, err);
    // Nothing was broadcast: the credential is free again.
    await releaseConsumption(deps.db, p.key);
    throw refusedOrUnavailable(deps, err, p.charge);
  }
  let outcome: Outcome;
  let problem: PaymentProblem | undefined;
  try {
    await chain.confirm(tx, railAuth);
    outcome = { status: 'settled', reference: tx.hash };
  } catch (err) {
    if (err instanceof PaymentProblem) {
      // Our relay reverted: if another transaction used the authorization first, that is an anomaly for an operator, never this payment.
      problem = err;
      outcome = await checkRecovery(deps.billing, { ...attempt.recovery, tx } as typeof attempt.recovery);
    } else if (err instanceof SettlementAnomaly) {
      outcome = { status: 'anomaly', reason: err.message };
    } else {
      outcome = { status: 'unknown', reason: err instanceof Error ? err.message : String(err) };
    }
  }
  return conclude(deps, attempt, outcome, p.onSettled, problem);
}

interface CardPayment {
  key: string;
  method: string;
  charge: Charge;
  spt: string;
  challengeId: string;
  onSettled: OnSettled;
}

/** Charges the SPT, or for a hold (`charge.hold`) authorizes it with manual capture. A decline is
 * final (nothing charged, the credential is free again); any other failure leaves the charge open:
 * it is re-run under the same idempotency key until it resolves. */
async function settleByCard(deps: GateDeps, p: CardPayment): Promise<Settlement> {
  const card = deps.billing.card!;
  const params = {
    spt: p.spt,
    amountCents: Number(p.charge.amounts.card!),
    currency: RAIL_CURRENCY.card,
    idempotencyKey: stripeIdempotencyKey(p.challengeId, p.spt),
    metadata: { job_id: p.charge.jobId ?? '', challenge_id: p.challengeId },
  };
  const hold = p.charge.hold === true;
  const attempt = attemptOf(p, 'card', null, { rail: 'card', ...params, ...(hold && { captureMethod: 'manual' as const }) });
  const resumed = await claim(deps, attempt, p.onSettled, p.challengeId);
  if (resumed) return resumed;
  let outcome: Outcome;
  try {
    const { paymentIntentId } = hold ? await card.authorizeHold(params) : await card.chargeSpt(params);
    outcome = { status: 'settled', reference: paymentIntentId };
  } catch (err) {
    if (err instanceof PaymentProblem || err instanceof AppError) {
      await releaseConsumption(deps.db, p.key);
      throw err;
    }
    outcome = { status: 'unknown', reason: err instanceof Error ? err.message : String(err) };
  }
  return conclude(deps, attempt, outcome, p.onSettled);
}

/**
 * Consumes the credential. Returns null to go on settling, or the settlement when this credential
 * was already paying and its payment resolved now. Refuses a used credential and a second one
 * for a job that is paid or being paid; answers 503 while an earlier payment is still open.
 */
async function claim(deps: GateDeps, attempt: Attempt, onSettled: OnSettled, challengeId?: string): Promise<Settlement | null> {
  const now = deps.clock.now();
  const conflict = await claimConsumption(deps.db, attempt, now);
  if (!conflict) return null;
  if (conflict.kind === 'job-taken') {
    const other = conflict.row;
    if (other && isOpen(other, now, deps.billing)) throw pendingError(other, attempt, 'earlier');
    throw new PaymentProblem('invalid-challenge', 'this job is already paid or being paid', { challengeId });
  }
  const { row } = conflict;
  // The same authorization presented for something else (another job, another request, or by
  // another protocol for another job): it pays one thing only, whatever state its payment is in.
  if (row.purpose !== attempt.purpose || row.amount !== attempt.amount || row.rail !== attempt.rail) {
    throw new PaymentProblem(
      'invalid-challenge',
      'this payment authorization was already presented for another payment; it pays one thing only: sign a new one for this request',
      { challengeId },
    );
  }
  if (!isOpen(row, now, deps.billing)) {
    throw new PaymentProblem(
      'invalid-challenge',
      attempt.jobId ? 'this credential was already used, or this job is already paid or being paid' : 'this credential was already used',
      {
        challengeId,
      },
    );
  }
  // The same credential again, its earlier outcome open: ask the rail now.
  const outcome = await checkConsumption(deps.billing, row);
  if (outcome.status === 'failed') {
    // Nothing moved: book the failed attempt, then settle this credential afresh (once).
    await failConsumption(deps.db, attempt.key, outcome.reason, now);
    if (!(await claimConsumption(deps.db, attempt, deps.clock.now()))) return null;
    throw new PaymentProblem('invalid-challenge', 'this credential is being settled by another request', { challengeId });
  }
  return conclude(deps, attempt, outcome, onSettled);
}

/** Ends the request's part of a settlement: settled → booked and returned; failed → refused; open → 503. */
async function conclude(deps: GateDeps, attempt: Attempt, outcome: Outcome, onSettled: OnSettled, problem?: Error): Promise<Settlement> {
  const now = deps.clock.now();
  if (outcome.status === 'settled') {
    const book = { ledgerJobId: attempt.ledgerJobId, kind: ledgerKindOf(attempt.recovery) };
    let booked: Awaited<ReturnType<typeof settleConsumption>>;
    try {
      booked = await settleConsumption(deps.db, attempt.key, outcome.reference, book, onSettled, now);
    } catch (err) {
      if (!(err instanceof ReferenceTakenError)) throw err;
      return conclude(deps, attempt, { status: 'anomaly', reason: err.message }, onSettled, err);
    }
    const { result, settlement } = booked;
    // The reconciler booked it a moment earlier, with its own onSettled (the job marked paid, or
    // the money queued back when there was no job): this request's onSettled did not run.
    if (result === 'already') {
      throw new AppError('unavailable', `Your payment (${settlement.reference}) was confirmed while this request was checking it; repeat this request.`);
    }
    return settlement;
  }
  if (outcome.status === 'failed') {
    await failConsumption(deps.db, attempt.key, outcome.reason, now);
    if (problem instanceof PaymentProblem) throw problem;
    throw new PaymentProblem('verification-failed', 'The payment did not go through, and no money moved; pay with a new credential.');
  }
  const deferred = await deferConsumption(deps.db, attempt.key, outcome, now);
  const log = { job_id: attempt.ledgerJobId, key: attempt.key, reason: outcome.reason, err: problem?.message };
  if (deferred?.state === 'stuck') deps.logger.error(log, 'payment outcome needs an operator');
  else deps.logger.warn(log, 'payment outcome unknown; reconciling');
  throw pendingError(deferred?.row ?? null, attempt, 'yours');
}

/** The retryable answer (503, Retry-After) while a payment's outcome is open. It never says nothing was charged. */
function pendingError(row: ConsumptionRow | null, attempt: Attempt, whose: 'yours' | 'earlier'): AppError {
  const ref = row?.reference ? ` (${row.rail === 'card' ? 'payment' : 'transaction'} ${row.reference})` : '';
  const where = (row?.rail ?? attempt.rail) === 'chain' ? 'on the chain' : 'by the card processor';
  const poll = attempt.jobId ? "; or poll the job: its payment_status turns 'paid'" : '';
  return new AppError(
    'unavailable',
    whose === 'yours'
      ? `Your payment${ref} is not confirmed ${where} yet; it is being confirmed. Do not pay again: repeat this request with the same credential in a few seconds${poll}. If the payment does not go through, no money moves and you can pay with a new credential.`
      : `An earlier payment for this job${ref} is not confirmed ${where} yet; it is being confirmed. Do not pay again: once it confirms the job is paid${poll}. If it does not go through, repeat this request with a new credential.`,
  );
}

function refusedOrUnavailable(deps: GateDeps, err: unknown, charge: Charge): Error {
  if (err instanceof PaymentProblem || err instanceof AppError) return err;
  deps.logger.error({ err: err instanceof Error ? err.message : String(err), job_id: charge.jobId }, 'payment rail unavailable');
  return new AppError('unavailable', 'the payment network is unavailable right now; nothing was charged, retry shortly');
}

/** A credential for a session-owned job must answer a challenge issued to that session; one for a
 * request-bound call (paid creation) a challenge issued for that very request. */
function assertIssuedFor(charge: Charge, opaque: string | undefined, challengeId: string): void {
  if (!charge.ownerTag && charge.requestBinding === undefined) return;
  let meta: Record<string, unknown> = {};
  try {
    meta = opaque ? decodeRequest({ request: opaque }) : {};
  } catch {
    meta = {};
  }
  if (charge.ownerTag && meta['owner'] !== charge.ownerTag) {
    throw new PaymentProblem('invalid-challenge', "this challenge was not issued to the job's owner: request it with the owner's session token", {
      challengeId,
    });
  }
  if (charge.requestBinding !== undefined && meta['request'] !== charge.requestBinding) {
    throw new PaymentProblem('invalid-challenge', 'this challenge was issued for a different request: request a new 402 with this exact request', {
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
