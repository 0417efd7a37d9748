// The gate and the reconciler on PGlite with the manual clock and scripted rails: what the payer
// hears, what the books say, and how an open outcome ends. Credentials come from the stock
// clients (mppx `evm`/`stripe`, @x402/core + @x402/evm), signed offline. The rails' own chain
// logic (receipts, authorizationState, re-broadcast) runs on anvil in test/chain-rail.test.ts.
import { randomBytes, randomUUID } from 'node:crypto';
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequired } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { eq, like } from 'drizzle-orm';
import { evm as evmClient, Mppx, stripe as stripeClient } from 'mppx/client';
import { bytesToHex, type Hex, keccak256 } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ledgerEntries, paymentConsumptions } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import { createEngineCtx, type EngineCtx } from '../testing/engine-ctx.ts';
import type { Billing } from './billing.ts';
import { collectPayment, type Paid, type PaymentInput, PaymentRequiredError } from './gate.ts';
import { formatWwwAuthenticate } from './mpp/challenge.ts';
import { BroadcastUncertainError, type ChainRail, SettlementAnomaly, type SettlementStatus, type SignedTx } from './rails/chain-rail.ts';
import type { CardRail } from './rails/card-rail.ts';
import { revertedReceiptProblem } from './rails/relay-errors.ts';
import { reconcilePayments } from './reconcile.ts';
import { processRefunds } from './refunder.ts';
import { requestDigest } from './request-binding.ts';
import { STUCK_AFTER_MS } from './settlement.ts';
import { PaymentProblem, type Charge, type Settlement } from './types.ts';
import { PAYMENT_REQUIRED_HEADER } from './x402/x402-v2.ts';

const SECRET = 'reconcile-test-secret-0123456789abcdef';
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' as const;
const RECIPIENT = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8' as const;
const DOMAIN = { name: 'USD Coin', version: '2' };
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const PAYER = `did:pkh:eip155:8453:${account.address}`;
const PRICE = 200_000n;

/** What the scripted rails do next; reset before each case. */
const script = {
  broadcast: 'ok' as 'ok' | 'uncertain',
  confirm: 'ok' as 'ok' | 'timeout' | 'revert' | 'anomaly',
  /** checkSettlement's answer; 'ours' stands for the last relay's hash. */
  check: { status: 'unknown', reason: 'not mined yet' } as SettlementStatus | { status: 'settled'; txHash: 'ours' },
  card: 'ok' as 'ok' | 'down' | 'decline',
};
const calls = { relay: 0, chargeSpt: 0, lastTx: null as SignedTx | null };
const intents = new Map<string, string>();

const chain = {
  network: 'eip155:8453',
  chainId: 8453,
  asset: BASE_USDC,
  recipient: RECIPIENT,
  domain: DOMAIN,
  receiptTimeoutMs: 1_000,
  async relay(auth, _expect, onSigned) {
    calls.relay++;
    const raw = bytesToHex(randomBytes(64));
    const tx = { hash: keccak256(raw), raw };
    calls.lastTx = tx;
    await onSigned?.(tx);
    if (script.broadcast === 'uncertain') throw new BroadcastUncertainError(tx, new Error('socket hang up'));
    return { tx, payer: auth.from };
  },
  async confirm(tx) {
    if (script.confirm === 'timeout') throw new Error(`no receipt for ${tx.hash} in time`);
    if (script.confirm === 'revert') throw revertedReceiptProblem(tx.hash);
    if (script.confirm === 'anomaly') throw new SettlementAnomaly(`transaction ${tx.hash} succeeded without the expected Transfer log`);
  },
  async checkSettlement() {
    const c = script.check;
    return c.status === 'settled' && c.txHash === 'ours' ? { status: 'settled', txHash: calls.lastTx!.hash } : (c as SettlementStatus);
  },
} as Partial<ChainRail> as ChainRail & { chainId: number };

const refunds: { pi: string; key: string; amount: number | undefined }[] = [];
const card = {
  async refund(pi, key, amount) {
    refunds.push({ pi, key, amount });
    return { id: `re_${refunds.length}`, kind: 'refund' as const };
  },
  async chargeSpt(input) {
    calls.chargeSpt++;
    if (script.card === 'down') throw new Error('The card processor is unavailable for this charge: api_error (HTTP 500).');
    if (script.card === 'decline') throw new PaymentProblem('verification-failed', 'The card processor declined the payment (card_declined).');
    // The processor's idempotency: one PaymentIntent per key.
    const pi = intents.get(input.idempotencyKey) ?? `pi_${intents.size + 1}`;
    intents.set(input.idempotencyKey, pi);
    return { paymentIntentId: pi };
  },
} as Partial<CardRail> as CardRail;

let ctx: EngineCtx;
beforeAll(async () => {
  ctx = await createEngineCtx();
  // Stock clients sign with the wall clock: start the manual clock there.
  ctx.clock.advance(Date.now() - ctx.clock.now().getTime());
  const billing: Billing = {
    enabled: true,
    realm: 'cutroom.test',
    challengeSecret: SECRET,
    challengeTtlSeconds: 600,
    chain,
    card,
    cardNetworkId: 'profile_test',
  };
  ctx.billing = billing;
}, 60_000);
afterAll(async () => {
  await ctx.close();
});
beforeEach(async () => {
  // Each case starts at wall-clock time (stock clients sign with it) with no payments on the books.
  ctx.clock.advance(Date.now() - ctx.clock.now().getTime());
  await ctx.db.delete(paymentConsumptions);
  await ctx.db.delete(ledgerEntries);
  Object.assign(script, { broadcast: 'ok', confirm: 'ok', check: { status: 'unknown', reason: 'not mined yet' }, card: 'ok' });
  Object.assign(calls, { relay: 0, chargeSpt: 0, lastTx: null });
});

const jobCharge = (jobId = randomUUID(), extra: Partial<Charge> = {}): Charge => ({
  description: `test job ${jobId}`,
  jobId,
  amounts: { chain: PRICE, card: 50n },
  ...extra,
});
const url = (c: Charge) => `https://cutroom.test/api/v1/jobs/${c.jobId ?? 'new'}/upload-url`;
const input = (c: Charge, creds: Partial<PaymentInput> = {}): PaymentInput => ({
  authorization: undefined,
  paymentSignature: undefined,
  resourceUrl: url(c),
  callerTag: 'anonymous',
  ...creds,
});

/** What `onSettled` saw (the job side's markJobPaid in production). */
const settledFor: Settlement[] = [];
const pay = (c: Charge, creds: Partial<PaymentInput>, resourceUrl = url(c)) =>
  collectPayment(ctx, { ...input(c, creds), resourceUrl }, c, async (_tx, s) => void settledFor.push(s));

/** The 402 for a charge, as the HTTP layer sends it. */
async function offer402(c: Charge, callerTag = 'anonymous', resourceUrl = url(c)): Promise<Response> {
  const err = await collectPayment(ctx, { ...input(c), callerTag, resourceUrl }, c, async () => {}).catch((e: unknown) => e);
  if (!(err instanceof PaymentRequiredError)) throw new Error('expected a 402');
  const headers = new Headers();
  for (const ch of err.offer.challenges) headers.append('WWW-Authenticate', formatWwwAuthenticate(ch));
  if (err.offer.x402) headers.set(PAYMENT_REQUIRED_HEADER, err.offer.x402.header);
  return new Response('{}', { status: 402, headers });
}
const evmCredential = async (c: Charge, callerTag?: string, resourceUrl?: string) =>
  Mppx.create({ methods: [evmClient({ account, authorization: DOMAIN })], polyfill: false }).createCredential(await offer402(c, callerTag, resourceUrl));
const cardCredential = async (c: Charge) =>
  Mppx.create({ methods: [stripeClient({ paymentMethod: 'pm_card_visa', createToken: async () => `spt_${randomUUID()}` })], polyfill: false }).createCredential(
    await offer402(c),
  );
async function x402Signature(c: Charge, callerTag?: string, resourceUrl?: string): Promise<string> {
  const client = new x402HTTPClient(
    registerExactEvmScheme(new x402Client(), { signer: account }).setSpendControls({
      allowedAssets: [{ network: 'eip155:8453', asset: BASE_USDC, maxAmountPerPayment: '1000000' }],
    }),
  );
  const res = await offer402(c, callerTag, resourceUrl);
  const required = client.getPaymentRequiredResponse((n) => res.headers.get(n), {});
  return client.encodePaymentSignatureHeader(await client.createPaymentPayload(required))['PAYMENT-SIGNATURE']!;
}

async function outcomeOf(p: Promise<Paid>): Promise<Paid | Error> {
  return p.then(
    (v) => v,
    (e: unknown) => e as Error,
  );
}
async function refusal(p: Promise<Paid>): Promise<PaymentProblem> {
  const err = await outcomeOf(p);
  if (!(err instanceof PaymentRequiredError) || !err.problem) throw new Error(`expected a refused credential (402), got ${String(err)}`);
  return err.problem;
}
async function stillConfirming(p: Promise<Paid>): Promise<AppError> {
  const err = await outcomeOf(p);
  if (!(err instanceof AppError)) throw new Error(`expected a 503 while the payment is confirmed, got ${String(err)}`, { cause: err });
  expect(err.code).toBe('unavailable');
  expect(err.status).toBe(503);
  expect(err.message).toMatch(/being confirmed/);
  expect(err.message).toMatch(/Do not pay again/);
  expect(err.message).not.toMatch(/nothing was charged/i);
  return err;
}
const consumption = async (jobId: string) => (await ctx.db.select().from(paymentConsumptions).where(eq(paymentConsumptions.jobId, jobId)))[0];
const ledger = (jobId: string) => ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId)).orderBy(ledgerEntries.id);
const markJobPaid = (isPending = true) => {
  const seen: { jobId: string; s: Settlement }[] = [];
  const fn = async (_tx: unknown, jobId: string, s: Settlement) => {
    seen.push({ jobId, s });
    return isPending;
  };
  return { seen, fn };
};

describe('chain: a payment whose outcome is unknown is kept, answered 503, and reconciled', () => {
  it('a receipt that does not come in time: pending with its tx hash; the reconciler ends it paid with one ledger row', async () => {
    const c = jobCharge();
    script.confirm = 'timeout';
    const err = await stillConfirming(pay(c, { authorization: await evmCredential(c) }));
    const hash = calls.lastTx!.hash;
    expect(err.message).toContain(hash);
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'pending', rail: 'chain', reference: hash, amount: PRICE, payer: PAYER, attempts: 1 });
    expect((await consumption(c.jobId!))!.recovery).toMatchObject({ rail: 'chain', from: account.address, tx: { hash } });
    expect(await ledger(c.jobId!)).toMatchObject([{ kind: 'charge', state: 'pending', reference: hash, amount: PRICE }]);

    const job = markJobPaid();
    // Not due yet: the next check is backed off.
    expect(await reconcilePayments(ctx, job.fn)).toEqual({ settled: 0, failed: 0, pending: 0, stuck: 0 });
    ctx.clock.advance(2_000);
    expect(await reconcilePayments(ctx, job.fn)).toMatchObject({ pending: 1 });
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'pending', attempts: 2 });

    script.check = { status: 'settled', txHash: 'ours' };
    ctx.clock.advance(4_000);
    expect(await reconcilePayments(ctx, job.fn)).toMatchObject({ settled: 1 });
    expect(job.seen).toEqual([{ jobId: c.jobId, s: { rail: 'chain', method: 'evm', amount: PRICE, currency: 'USDC', reference: hash, payer: PAYER } }]);
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'settled', reference: hash, recovery: null });
    expect(await ledger(c.jobId!)).toMatchObject([{ kind: 'charge', state: 'done', reference: hash, amount: PRICE, payer: PAYER }]);
    // Ended once: later passes find nothing.
    ctx.clock.advance(600_000);
    expect(await reconcilePayments(ctx, job.fn)).toEqual({ settled: 0, failed: 0, pending: 0, stuck: 0 });
    expect(job.seen).toHaveLength(1);
  });

  it('repeating the request with the same credential asks the chain again and completes it once confirmed', async () => {
    const c = jobCharge();
    const credential = await evmCredential(c);
    script.confirm = 'timeout';
    await stillConfirming(pay(c, { authorization: credential }));
    // Still open: the same answer, and no second relay.
    await stillConfirming(pay(c, { authorization: credential }));
    expect(calls.relay).toBe(1);

    script.check = { status: 'settled', txHash: 'ours' };
    settledFor.length = 0;
    const paid = await pay(c, { authorization: credential });
    expect(paid.settlement.reference).toBe(calls.lastTx!.hash);
    expect(paid.headers['Payment-Receipt']).toBeDefined();
    expect(settledFor).toHaveLength(1);
    expect(calls.relay).toBe(1);
    expect((await ledger(c.jobId!)).map((r) => [r.kind, r.state])).toEqual([['charge', 'done']]);
    // Used now: a replay is refused.
    expect((await refusal(pay(c, { authorization: credential }))).type).toBe('invalid-challenge');
    const job = markJobPaid();
    ctx.clock.advance(600_000);
    await reconcilePayments(ctx, job.fn);
    expect(job.seen).toEqual([]);
  });

  it('a second credential for a job whose payment is open is told to wait (503), not to pay (402)', async () => {
    const c = jobCharge();
    script.confirm = 'timeout';
    await stillConfirming(pay(c, { authorization: await evmCredential(c) }));
    ctx.clock.advance(1_000); // another expires, another challenge
    const err = await outcomeOf(pay(c, { authorization: await evmCredential(c) }));
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toMatch(/^An earlier payment for this job \(transaction 0x[0-9a-f]{64}\) is not confirmed/);
    expect(calls.relay).toBe(1);
  });

  it('a relay that reverted with nothing mined instead: refused, a failed ledger row, and the credential can pay again', async () => {
    const c = jobCharge();
    const credential = await evmCredential(c);
    script.confirm = 'revert';
    script.check = { status: 'failed', reason: 'relay reverted; the authorization is unused' };
    expect((await refusal(pay(c, { authorization: credential }))).type).toBe('verification-failed');
    expect(await consumption(c.jobId!)).toBeUndefined();
    const [failed] = await ledger(c.jobId!);
    expect(failed).toMatchObject({ kind: 'charge', state: 'failed', reference: calls.lastTx!.hash, lastError: expect.stringMatching(/reverted/) });

    script.confirm = 'ok';
    const paid = await pay(c, { authorization: credential });
    expect((await ledger(c.jobId!)).map((r) => [r.state, r.reference])).toEqual([
      ['failed', failed!.reference],
      ['done', paid.settlement.reference],
    ]);
  });

  it('our relay reverted and the rail names another transaction as the use: stuck for an operator, nothing booked', async () => {
    const c = jobCharge();
    script.confirm = 'revert';
    script.check = { status: 'anomaly', reason: `the authorization was used by transaction 0x${'ab'.repeat(32)}, not by this payment's relay` };
    await stillConfirming(pay(c, { authorization: await evmCredential(c) }));
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'stuck' });
    expect((await ledger(c.jobId!)).map((r) => r.state)).toEqual(['pending']);
  });

  it('one settled transaction books one charge: a second payment naming the same transaction is stuck, not booked', async () => {
    const shared = `0x${'cd'.repeat(32)}` as Hex;
    script.confirm = 'revert';
    script.check = { status: 'settled', txHash: shared };
    const a = jobCharge();
    const paid = await pay(a, { authorization: await evmCredential(a) });
    expect(paid.settlement.reference).toBe(shared);
    const b = jobCharge();
    await stillConfirming(pay(b, { authorization: await evmCredential(b) }));
    expect(await consumption(b.jobId!)).toMatchObject({ state: 'stuck', lastError: expect.stringMatching(/already pays another charge/) });
    expect((await ledger(b.jobId!)).map((r) => r.state)).toEqual(['pending']);
    // The reconciler does not book it either.
    ctx.clock.advance(STUCK_AFTER_MS);
    await reconcilePayments(ctx, async () => true);
    expect((await ledger(b.jobId!)).map((r) => r.state)).toEqual(['pending']);
    expect(await ledger(a.jobId!)).toMatchObject([{ state: 'done', reference: shared }]);
  });

  it('the authorization an MPP credential carries for job A, re-sent as x402 for job B, is refused: the rail is reached once', async () => {
    const a = jobCharge();
    const b = jobCharge();
    const credential = await evmCredential(a);
    // The payer (or anyone holding the credential) re-wraps its signed EIP-3009 authorization in
    // job B's x402 envelope: same price, same payee, so the signature verifies.
    const mpp = JSON.parse(Buffer.from(credential.replace(/^Payment\s+/, ''), 'base64url').toString()) as {
      payload: Record<string, string>;
    };
    const { signature, type: _type, ...authorization } = mpp.payload;
    const forB = decodePaymentSignatureHeader(await x402Signature(b)) as unknown as { payload: Record<string, unknown> };
    forB.payload = { authorization, signature };
    const rewrapped = encodePaymentSignatureHeader(forB as never);

    // While A's payment is still open (its receipt late) …
    script.confirm = 'timeout';
    await stillConfirming(pay(a, { authorization: credential }));
    const refusedOpen = await refusal(pay(b, { paymentSignature: rewrapped }));
    expect(refusedOpen.type).toBe('invalid-challenge');
    expect(refusedOpen.message).toMatch(/already presented for another payment/);
    // … and after it settled.
    script.check = { status: 'settled', txHash: 'ours' };
    ctx.clock.advance(5_000);
    await reconcilePayments(ctx, async () => true);
    expect(await ledger(a.jobId!)).toMatchObject([{ state: 'done' }]);
    const refusedSettled = await refusal(pay(b, { paymentSignature: rewrapped }));
    expect(refusedSettled.message).toMatch(/already presented for another payment/);
    expect(calls.relay).toBe(1);
    expect(await ledger(b.jobId!)).toEqual([]);
    expect(await consumption(b.jobId!)).toBeUndefined();
    // One row for the authorization, keyed by it, with the challenge id beside it.
    expect(await consumption(a.jobId!)).toMatchObject({
      key: `eip155:8453:${account.address.toLowerCase()}:${authorization['nonce']!.toLowerCase()}`,
      challengeId: expect.any(String),
      purpose: `job:${a.jobId}`,
    });
  });

  it('an uncertain broadcast is pending; when the chain says nothing moved, it is released with a failed ledger row', async () => {
    const c = jobCharge();
    const credential = await evmCredential(c);
    script.broadcast = 'uncertain';
    await stillConfirming(pay(c, { authorization: credential }));
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'pending', reference: calls.lastTx!.hash });

    script.check = { status: 'failed', reason: 'relay was dropped (its nonce went to another transaction)' };
    ctx.clock.advance(2_000);
    expect(await reconcilePayments(ctx, markJobPaid().fn)).toMatchObject({ failed: 1 });
    expect(await consumption(c.jobId!)).toBeUndefined();
    expect(await ledger(c.jobId!)).toMatchObject([{ kind: 'charge', state: 'failed', lastError: expect.stringMatching(/dropped/) }]);
    // The payer pays again (here with the same, still valid, credential).
    script.broadcast = 'ok';
    await pay(c, { authorization: credential });
    expect((await ledger(c.jobId!)).map((r) => r.state)).toEqual(['failed', 'done']);
  });

  it('a settling row left by a crash no longer blocks the job: reconciled, then a new credential pays', async () => {
    const c = jobCharge();
    const crashedAt = new Date(ctx.clock.now().getTime() - 10 * 60_000);
    await ctx.db.insert(paymentConsumptions).values({
      key: 'crashed-before-broadcast',
      method: 'evm',
      jobId: c.jobId,
      state: 'settling',
      createdAt: crashedAt,
      updatedAt: crashedAt,
      rail: 'chain',
      ledgerJobId: c.jobId,
      amount: PRICE,
      currency: 'USDC',
      payer: PAYER,
      recovery: { rail: 'chain', from: account.address, nonce: `0x${'01'.repeat(32)}`, value: String(PRICE), validBefore: '4102444800' },
    });
    const credential = await evmCredential(c);
    const err = await outcomeOf(pay(c, { authorization: credential }));
    expect((err as AppError).message).toMatch(/An earlier payment for this job/);

    script.check = { status: 'failed', reason: 'no relay was ever broadcast; the authorization is unused' };
    expect(await reconcilePayments(ctx, markJobPaid().fn)).toMatchObject({ failed: 1 });
    expect(await ledger(c.jobId!)).toMatchObject([{ state: 'failed' }]);
    const paid = await pay(c, { authorization: credential });
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'settled', reference: paid.settlement.reference });
  });

  it('a settling row left by a crash after its broadcast is reconciled to paid', async () => {
    const c = jobCharge();
    const crashedAt = new Date(ctx.clock.now().getTime() - 10 * 60_000);
    const tx = { hash: `0x${'cd'.repeat(32)}` as Hex, raw: '0x02' as Hex };
    await ctx.db.insert(paymentConsumptions).values({
      key: 'crashed-after-broadcast',
      method: 'x402',
      jobId: c.jobId,
      state: 'settling',
      reference: tx.hash,
      createdAt: crashedAt,
      updatedAt: crashedAt,
      rail: 'chain',
      ledgerJobId: c.jobId,
      amount: PRICE,
      currency: 'USDC',
      payer: PAYER,
      recovery: { rail: 'chain', from: account.address, nonce: `0x${'02'.repeat(32)}`, value: String(PRICE), validBefore: '4102444800', tx },
    });
    script.check = { status: 'settled', txHash: tx.hash };
    const job = markJobPaid();
    expect(await reconcilePayments(ctx, job.fn)).toMatchObject({ settled: 1 });
    expect(job.seen.map((x) => [x.jobId, x.s.reference, x.s.method])).toEqual([[c.jobId, tx.hash, 'x402']]);
    expect(await ledger(c.jobId!)).toMatchObject([{ kind: 'charge', state: 'done', reference: tx.hash }]);
  });

  it('still unknown after an hour: stuck for an operator, still re-checked, and it can still settle', async () => {
    const c = jobCharge();
    script.confirm = 'timeout';
    await stillConfirming(pay(c, { authorization: await evmCredential(c) }));
    ctx.clock.advance(STUCK_AFTER_MS);
    expect(await reconcilePayments(ctx, markJobPaid().fn)).toMatchObject({ stuck: 1 });
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'stuck', lastError: 'not mined yet' });
    // The job stays blocked (money may have moved) until it is decided.
    expect((await outcomeOf(pay(c, { authorization: await evmCredential(c) }))) instanceof AppError).toBe(true);
    script.check = { status: 'settled', txHash: 'ours' };
    ctx.clock.advance(30 * 60_000);
    expect(await reconcilePayments(ctx, markJobPaid().fn)).toMatchObject({ settled: 1 });
  });

  it('a relay that succeeded without our Transfer log is stuck at once: neither marked paid nor released', async () => {
    const c = jobCharge();
    script.confirm = 'anomaly';
    await stillConfirming(pay(c, { authorization: await evmCredential(c) }));
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'stuck', lastError: expect.stringMatching(/Transfer log/) });
    expect(await ledger(c.jobId!)).toMatchObject([{ state: 'pending' }]);
  });

  it('a payment that confirms after its job stopped waiting for it (paid another way, deleted, never created) is booked and refunded', async () => {
    const c = jobCharge();
    script.confirm = 'timeout';
    await stillConfirming(pay(c, { authorization: await evmCredential(c) }));
    script.check = { status: 'settled', txHash: 'ours' };
    ctx.clock.advance(2_000);
    const job = markJobPaid(false);
    expect(await reconcilePayments(ctx, job.fn)).toMatchObject({ settled: 1 });
    const hash = calls.lastTx!.hash;
    expect(await ledger(c.jobId!)).toMatchObject([
      { kind: 'charge', state: 'done', reference: hash },
      { kind: 'refund', state: 'pending', amount: PRICE, payer: PAYER, chargeReference: hash, idempotencyKey: `refund:unclaimed:${hash}` },
    ]);
  });
});

describe('card: a charge whose outcome is unknown is re-run under its idempotency key', () => {
  it('a processor failure: 503 pending (the SPT kept); the re-run settles it; the SPT is dropped', async () => {
    const c = jobCharge();
    script.card = 'down';
    await stillConfirming(pay(c, { authorization: await cardCredential(c) }));
    const row = await consumption(c.jobId!);
    expect(row).toMatchObject({ state: 'pending', rail: 'card', amount: 50n, currency: 'usd' });
    expect(row!.recovery).toMatchObject({ rail: 'card', spt: expect.stringMatching(/^spt_/), idempotencyKey: expect.stringMatching(/^mpp_/) });

    script.card = 'ok';
    ctx.clock.advance(2_000);
    const job = markJobPaid();
    expect(await reconcilePayments(ctx, job.fn)).toMatchObject({ settled: 1 });
    expect(await consumption(c.jobId!)).toMatchObject({ state: 'settled', reference: job.seen[0]!.s.reference, recovery: null });
    expect(await ledger(c.jobId!)).toMatchObject([{ rail: 'card', kind: 'charge', state: 'done', amount: 50n }]);
    expect(calls.chargeSpt).toBe(2);
  });

  it('settled after its job stopped waiting: booked, refunded, and the refund paid out once', async () => {
    const c = jobCharge();
    script.card = 'down';
    await stillConfirming(pay(c, { authorization: await cardCredential(c) }));
    script.card = 'ok';
    ctx.clock.advance(2_000);
    expect(await reconcilePayments(ctx, markJobPaid(false).fn)).toMatchObject({ settled: 1 });
    const [charge] = await ledger(c.jobId!);
    refunds.length = 0;
    await processRefunds(ctx);
    await processRefunds(ctx);
    expect(refunds).toEqual([{ pi: charge!.reference, key: `refund:refund:unclaimed:${charge!.reference}`, amount: 50 }]);
    expect(await ledger(c.jobId!)).toMatchObject([
      { kind: 'charge', state: 'done' },
      { kind: 'refund', state: 'done', reference: 're_1', chargeReference: charge!.reference },
    ]);
  });

  it('a decline on the re-run ends it failed: a ledger row, and the job can be paid again', async () => {
    const c = jobCharge();
    script.card = 'down';
    await stillConfirming(pay(c, { authorization: await cardCredential(c) }));
    script.card = 'decline';
    ctx.clock.advance(2_000);
    expect(await reconcilePayments(ctx, markJobPaid().fn)).toMatchObject({ failed: 1 });
    expect(await consumption(c.jobId!)).toBeUndefined();
    expect(await ledger(c.jobId!)).toMatchObject([{ rail: 'card', state: 'failed', lastError: expect.stringMatching(/declined/) }]);
    script.card = 'ok';
    await pay(c, { authorization: await cardCredential(c) });
  });

  it('a decline in the request is final at once: refused, nothing booked', async () => {
    const c = jobCharge();
    script.card = 'decline';
    expect((await refusal(pay(c, { authorization: await cardCredential(c) }))).type).toBe('verification-failed');
    expect(await consumption(c.jobId!)).toBeUndefined();
    expect(await ledger(c.jobId!)).toEqual([]);
  });
});

describe('x402: a payment is bound to the job and resource its challenge was issued for', () => {
  /** Re-encodes a PAYMENT-SIGNATURE with `edit` applied to its JSON (the signed authorization is untouched). */
  const tamper = (header: string, edit: (p: Record<string, unknown>) => void) => {
    const payload = decodePaymentSignatureHeader(header) as unknown as Record<string, unknown>;
    edit(payload);
    return encodePaymentSignatureHeader(payload as never);
  };

  it('the x402 signature for job A cannot pay job B (same price, same payTo)', async () => {
    const a = jobCharge();
    const b = jobCharge();
    const forA = await x402Signature(a);
    const required = (await offer402(b)).headers.get(PAYMENT_REQUIRED_HEADER)!;
    const offerB = JSON.parse(Buffer.from(required, 'base64').toString()) as PaymentRequired;
    expect(offerB.accepts[0]).toEqual((decodePaymentSignatureHeader(forA) as unknown as { accepted: unknown }).accepted);

    const variants = {
      verbatim: forA,
      'resource rewritten to B': tamper(forA, (p) => {
        p['resource'] = { url: url(b) };
      }),
      'resource left out': tamper(forA, (p) => {
        delete p['resource'];
      }),
      'challenge left out': tamper(forA, (p) => {
        delete p['extensions'];
        p['resource'] = { url: url(b) };
      }),
    };
    for (const [name, header] of Object.entries(variants)) {
      const problem = await refusal(pay(b, { paymentSignature: header }));
      expect(['invalid-challenge', 'verification-failed'], name).toContain(problem.type);
    }
    expect(calls.relay).toBe(0);
    expect(await consumption(b.jobId!)).toBeUndefined();
    // On job A it pays.
    const paid = await pay(a, { paymentSignature: forA });
    expect(paid.headers['PAYMENT-RESPONSE']).toBeDefined();
    expect(await consumption(a.jobId!)).toMatchObject({ state: 'settled', method: 'x402' });
  });

  it('the challenge expires with the offer', async () => {
    const c = jobCharge();
    const header = await x402Signature(c);
    ctx.clock.advance(601_000);
    expect((await refusal(pay(c, { paymentSignature: header }))).type).toBe('payment-expired');
  });

  it("an offer harvested by a stranger does not pay a session-owned job, even with the owner's token beside it", async () => {
    const c = jobCharge(randomUUID(), { ownerTag: 'owner-tag-1' });
    const header = await x402Signature(c, 'anonymous');
    const problem = await refusal(pay(c, { paymentSignature: header, callerTag: 'owner-tag-1' }));
    expect(problem.type).toBe('invalid-challenge');
    expect(problem.message).toMatch(/owner/);
    // Issued to the owner, it pays.
    await pay(c, { paymentSignature: await x402Signature(c, 'owner-tag-1'), callerTag: 'owner-tag-1' });
  });
});

describe('paid creation: the challenge is tied to the request that got the 402', () => {
  const creation = (body: Record<string, unknown>): Charge => ({
    description: 'cutroom transcribe (audio) job',
    jobId: null,
    ledgerJobId: randomUUID(),
    requestBinding: requestDigest(body),
    amounts: { chain: PRICE, card: 50n },
  });
  const creationUrl = 'https://cutroom.test/api/v1/jobs';
  const bodyA = { job_type: 'transcribe', filename: 'a.wav', content_type: 'audio/wav' };
  const bodyB = { job_type: 'transcribe', filename: 'b.wav', content_type: 'audio/wav' };

  it('requestDigest does not depend on key order', () => {
    expect(requestDigest({ a: 1, b: [1, { c: 2, d: 3 }] })).toBe(requestDigest({ b: [1, { d: 3, c: 2 }], a: 1 }));
    expect(requestDigest(bodyA)).toMatch(/^sha-256=:[A-Za-z0-9+/]{43}=:$/);
    expect(requestDigest(bodyA)).not.toBe(requestDigest(bodyB));
  });

  it('an MPP credential for one creation request does not create another', async () => {
    const a = creation(bodyA);
    const credential = await evmCredential(a, 'anonymous', creationUrl);
    const problem = await refusal(pay(creation(bodyB), { authorization: credential }, creationUrl));
    expect(problem.type).toBe('invalid-challenge');
    expect(problem.message).toMatch(/different request/);
    expect(calls.relay).toBe(0);
    const paid = await pay(creation(bodyA), { authorization: credential }, creationUrl);
    expect(paid.settlement.amount).toBe(PRICE);
  });

  it('an x402 payment for one creation request does not create another', async () => {
    const header = await x402Signature(creation(bodyA), 'anonymous', creationUrl);
    expect((await refusal(pay(creation(bodyB), { paymentSignature: header }, creationUrl))).type).toBe('invalid-challenge');
    expect(calls.relay).toBe(0);
    await pay(creation(bodyA), { paymentSignature: header }, creationUrl);
    const [row] = await ctx.db
      .select()
      .from(paymentConsumptions)
      .where(like(paymentConsumptions.key, `eip155:8453:${account.address.toLowerCase()}:%`));
    expect(row).toBeDefined();
  });
});
