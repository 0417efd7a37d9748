import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodePaymentRequiredHeader, decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { and, eq } from 'drizzle-orm';
import { Challenge } from 'mppx';
import { bytesToHex, createTestClient, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs, ledgerEntries, paymentConsumptions } from '../coordinator/src/db/schema.ts';
import { markJobPaid } from '../coordinator/src/jobs/mark-paid.ts';
import { reconcilePayments } from '../coordinator/src/payments/reconcile.ts';
import { waitFor } from './fixtures/index.ts';
import { chainPayer, decodeReceipt } from './harness/chain-payer.ts';
import { librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';
import { undecodableMp4 } from './harness/bad-media.ts';

const PROBLEMS = 'https://paymentauth.org/problems/';
const JOB_PRICE = 200_000n; // transcribe (audio) on the chain rail: 0.20 USDC
const SMOKE_PRICE = 10_000n; // GET /api/test: 0.01 USDC
const SWEEP_MS = 250;

/**
 * Stock payment clients (mppx `evm`, @x402/core + @x402/evm) pay the running service over HTTP;
 * the service relays the EIP-3009 authorizations on anvil. Every case checks the money on the
 * chain (balances, Transfer logs) and the books (jobs, ledger_entries), not only HTTP answers.
 */
describe('paying the running service on the chain rail', () => {
  let stack: Stack;
  let payer: ReturnType<typeof chainPayer>;
  let base: string;
  let chainId: number;
  let service: `0x${string}`;
  const wav = readFileSync(librivoxUtterances()[0]!.file);
  const jobBody = JSON.stringify({ job_type: 'transcribe', filename: 'clip.wav', content_type: 'audio/wav' });

  const balances = async () => ({ payer: await payer.balanceOf(payer.address), service: await payer.balanceOf(service) });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const uploadUrl = (id: string) => `${base}/api/v1/jobs/${id}/upload-url`;
  const ledger = (jobId: string) => stack.coordinator.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId)).orderBy(ledgerEntries.id);
  const consumptions = (jobId: string) => stack.coordinator.ctx.db.select().from(paymentConsumptions).where(eq(paymentConsumptions.jobId, jobId));
  const node = () => createTestClient({ mode: 'anvil', transport: http(stack.billing!.anvil.rpcUrl) });
  const rail = () => stack.coordinator.ctx.billing.chain!;
  /** The sweeper's reconciliation pass, run as the sweeper runs it (jobs/mark-paid.ts marks the job paid). */
  const reconcile = () => reconcilePayments(stack.coordinator.ctx, markJobPaid);
  const jobStatus = async (token: string, id: string) => (await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body.payment_status;
  /** With blocks held back (anvil mines only when told) and a short receipt wait, so a payment's receipt comes too late. */
  async function withHeldBlocks<T>(fn: () => Promise<T>): Promise<T> {
    rail().receiptTimeoutMs = 1_500;
    await node().setAutomine(false);
    try {
      return await fn();
    } finally {
      rail().receiptTimeoutMs = 60_000;
      await node().setAutomine(true);
    }
  }
  /** A 503 that tells the payer its payment is being confirmed, and never that nothing was charged. */
  async function expectConfirming(res: Response) {
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.headers.get('payment-receipt')).toBeNull();
    const { error } = (await res.json()) as { error: string };
    expect(error).toMatch(/being confirmed/);
    expect(error).toMatch(/Do not pay again/);
    expect(error).not.toMatch(/nothing was charged/i);
    return error;
  }
  async function pendingJob(): Promise<{ token: string; id: string; body: any }> {
    const token = await stack.api.newSession();
    const r = await stack.api.call('POST', '/api/v1/jobs', { token, json: JSON.parse(jobBody) });
    expect(r.status).toBe(201);
    return { token, id: r.body.job_id, body: r.body };
  }
  /** A refused credential is a 402 with a fresh offer and a problem body naming why. */
  async function expectRefused(res: Response, ...types: string[]) {
    expect(res.status).toBe(402);
    expect(res.headers.get('www-authenticate')).toMatch(/^Payment /);
    expect(res.headers.get('payment-receipt')).toBeNull();
    const problem = (await res.json()) as { type: string };
    expect(types.map((t) => PROBLEMS + t)).toContain(problem.type);
    return problem;
  }

  beforeAll(async () => {
    stack = await startStack({ billing: true, storage: 'local', agents: 1, sweepMs: SWEEP_MS });
    payer = chainPayer(stack.billing!);
    base = stack.coordinator.url;
    chainId = stack.billing!.anvil.chainId;
    service = stack.billing!.relayer.address;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  let jobCredential: { id: string; header: string };
  it('1. the stock mppx client pays a job at upload-url; the receipt names a real transfer; the job runs', async () => {
    const { token, id, body } = await pendingJob();
    expect(body).toMatchObject({
      payment_status: 'pending',
      checkout_url: expect.stringMatching(/^https?:\/\//),
      mpp: { deposit_address: service, network: `eip155:${chainId}`, amount: '0.20', currency: 'USDC' },
    });

    const unpaid = await fetch(uploadUrl(id), { headers: bearer(token) });
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get('cache-control')).toBe('no-store');
    expect(unpaid.headers.get('content-type')).toContain('application/problem+json');
    const challenges = Challenge.fromResponseList(unpaid);
    expect(challenges.map((c) => c.method)).toEqual(['evm', 'stripe']);
    expect(challenges[0]!.request).toMatchObject({ amount: String(JOB_PRICE), recipient: service, externalId: id });
    const x402 = decodePaymentRequiredHeader(unpaid.headers.get('payment-required')!);
    expect(x402.accepts[0]).toMatchObject({ scheme: 'exact', network: `eip155:${chainId}`, amount: String(JOB_PRICE), payTo: service });
    expect(await unpaid.json()).toEqual({
      type: `${PROBLEMS}payment-required`,
      title: 'Payment Required',
      status: 402,
      detail: expect.any(String),
      challengeId: challenges[0]!.id,
    });

    // The stock fetch wrapper answers the 402 itself (it replaces the bearer with the credential).
    const before = await balances();
    const paid = await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) });
    expect(paid.status).toBe(200);
    expect(paid.headers.get('cache-control')).toBe('private');
    jobCredential = { id, header: payer.sent.at(-1)! };
    const receipt = decodeReceipt(paid.headers.get('payment-receipt'));
    expect(receipt).toMatchObject({ method: 'evm', status: 'success', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await payer.transfersIn(receipt.reference as `0x${string}`)).toEqual([{ from: payer.address, to: service, value: JOB_PRICE }]);
    expect(await balances()).toEqual({ payer: before.payer - JOB_PRICE, service: before.service + JOB_PRICE });
    expect((await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body.payment_status).toBe('paid');

    const put = await fetch(((await paid.json()) as { upload_url: string }).upload_url, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: wav });
    expect(put.ok).toBe(true);
    expect((await stack.api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token })).status).toBe(200);
    const job = await stack.api.waitForJob(token, id);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.payment_status).toBe('paid');
  });

  let paidCreation: string;
  let paidCreationJob: string;
  it('2. paid creation: POST /jobs without a bearer is 402; the stock client pays it and gets a session', async () => {
    const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: jobBody };
    const offer = await fetch(`${base}/api/v1/jobs`, init);
    expect(offer.status).toBe(402);
    expect(Challenge.fromResponseList(offer)[0]).toMatchObject({ method: 'evm', request: { amount: String(JOB_PRICE) } });

    const before = await balances();
    const res = await payer.mppx.fetch(`${base}/api/v1/jobs`, init);
    expect(res.status).toBe(201);
    paidCreation = payer.sent.at(-1)!;
    expect(decodeReceipt(res.headers.get('payment-receipt')).method).toBe('evm');
    const created = (await res.json()) as { job_id: string; session_token: string };
    paidCreationJob = created.job_id;
    expect(created).toMatchObject({ payment_status: 'paid', session_token: expect.any(String) });
    const job = await stack.api.call('GET', `/api/v1/jobs/${created.job_id}`, { token: created.session_token });
    expect(job.body).toMatchObject({ status: 'uploading', payment_status: 'paid' });
    expect((await ledger(created.job_id)).filter((r) => r.kind === 'charge')).toHaveLength(1);
    expect(await balances()).toEqual({ payer: before.payer - JOB_PRICE, service: before.service + JOB_PRICE });
  });

  let smokeMpp: string;
  let smokeX402: string;
  it('3. the stock x402 v2 client and the mppx client both pay GET /api/test', async () => {
    const before = await balances();
    const { res, settle, header } = await payer.payX402(`${base}/api/test?echo=over%20x402`);
    smokeX402 = header;
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ paid: true, service: 'cutroom', echo: 'over x402' });
    expect(settle).toMatchObject({ success: true, network: `eip155:${chainId}`, transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(await payer.transfersIn(settle!.transaction as `0x${string}`)).toEqual([{ from: payer.address, to: service, value: SMOKE_PRICE }]);

    const mpp = await payer.mppx.fetch(`${base}/api/test?echo=over%20mpp`);
    smokeMpp = payer.sent.at(-1)!;
    expect(mpp.status).toBe(200);
    expect(await mpp.json()).toEqual({ paid: true, service: 'cutroom', echo: 'over mpp' });
    expect(decodeReceipt(mpp.headers.get('payment-receipt')).method).toBe('evm');
    expect(await balances()).toEqual({ payer: before.payer - 2n * SMOKE_PRICE, service: before.service + 2n * SMOKE_PRICE });
  });

  it('4. a used credential is refused when replayed, and moves no money', async () => {
    const before = await balances();
    await expectRefused(await fetch(`${base}/api/test?echo=over%20mpp`, { headers: { authorization: smokeMpp } }), 'invalid-challenge', 'verification-failed');
    await expectRefused(
      await fetch(`${base}/api/test?echo=over%20x402`, { headers: { 'payment-signature': smokeX402 } }),
      'invalid-challenge',
      'verification-failed',
    );
    // A replayed paid creation would otherwise create (and hand out) a second paid job.
    await expectRefused(
      await fetch(`${base}/api/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: paidCreation },
        body: jobBody,
      }),
      'invalid-challenge',
      'verification-failed',
    );
    // Case 1's credential: on another job it fails the request binding (externalId, amount);
    await expectRefused(await fetch(uploadUrl((await pendingJob()).id), { headers: { authorization: jobCredential.header } }), 'invalid-challenge');
    // on its own job, now paid, it opens nothing: a credential pays, it does not authenticate,
    // so neither it nor any "Payment …" header stands in for the owner's bearer (401).
    for (const authorization of [jobCredential.header, 'Payment bm90IGEgY3JlZGVudGlhbA']) {
      expect((await fetch(uploadUrl(jobCredential.id), { headers: { authorization } })).status).toBe(401);
      expect((await fetch(uploadUrl(paidCreationJob), { headers: { authorization } })).status).toBe(401);
      expect((await fetch(`${base}/api/v1/jobs/${paidCreationJob}/complete-upload`, { method: 'POST', headers: { authorization } })).status).toBe(401);
    }
    expect(await balances()).toEqual(before);
  });

  it('5. two concurrent credentials for one job (two challenges): exactly one is charged', async () => {
    const { token, id } = await pendingJob();
    const first = await fetch(uploadUrl(id), { headers: bearer(token) });
    await new Promise((r) => setTimeout(r, 5)); // expires has ms precision: another ms, another challenge
    const second = await fetch(uploadUrl(id), { headers: bearer(token) });
    const [a, b] = [await payer.mppx.createCredential(first), await payer.mppx.createCredential(second)];
    expect(Challenge.fromResponse(first).id).not.toBe(Challenge.fromResponse(second).id);

    const before = await balances();
    const results = await Promise.all([a, b].map((authorization) => fetch(uploadUrl(id), { headers: { authorization } })));
    const charged = results.filter((r) => r.headers.get('payment-receipt'));
    expect(charged).toHaveLength(1);
    expect(charged[0]!.status).toBe(200);
    // The loser is refused at the consumed-payment record (one per job), before the chain; had the
    // winner committed before it loaded the job, the job is paid and its credential opens nothing.
    const loser = results.find((r) => r !== charged[0])!;
    expect([401, 402]).toContain(loser.status);
    if (loser.status === 402) await expectRefused(loser, 'invalid-challenge');
    expect(await balances()).toEqual({ payer: before.payer - JOB_PRICE, service: before.service + JOB_PRICE });
    const charges = (await ledger(id)).filter((r) => r.kind === 'charge');
    expect(charges).toMatchObject([{ state: 'done', amount: JOB_PRICE, reference: decodeReceipt(charged[0]!.headers.get('payment-receipt')).reference }]);
    expect((await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body.payment_status).toBe('paid');
  });

  it('6. a credential presented after its challenge expired is refused as payment-expired', async () => {
    // `expires` is HMAC-bound and the stock client will not sign a lapsed challenge, so the real
    // case is a challenge that lapses between signing and presenting. The config floor for
    // PAYMENT_CHALLENGE_TTL_SECONDS is 30 s; rather than wait that out (it would double this
    // suite), this one 402 is issued by the live coordinator with a 2 s TTL (the field that
    // setting fills), so the server really issues, binds and checks a short-lived challenge.
    const { token, id } = await pendingJob();
    const billing = stack.coordinator.ctx.billing;
    const ttl = billing.challengeTtlSeconds;
    billing.challengeTtlSeconds = 2;
    const offer = await fetch(uploadUrl(id), { headers: bearer(token) }).finally(() => {
      billing.challengeTtlSeconds = ttl;
    });
    const credential = await payer.mppx.createCredential(offer);
    await new Promise((r) => setTimeout(r, 2500));
    const before = await balances();
    await expectRefused(await fetch(uploadUrl(id), { headers: { authorization: credential } }), 'payment-expired');
    expect(await balances()).toEqual(before);
    expect(await ledger(id)).toEqual([]);
  });

  it('7. a credential for a cheaper offer (the 0.01 smoke test) does not pay a 0.20 job', async () => {
    const { token, id } = await pendingJob();
    const cheap = await payer.mppx.createCredential(await fetch(`${base}/api/test`));
    const before = await balances();
    await expectRefused(await fetch(uploadUrl(id), { headers: { authorization: cheap } }), 'invalid-challenge', 'payment-insufficient');
    expect(await balances()).toEqual(before);
    expect((await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body.payment_status).toBe('pending');
    expect(await ledger(id)).toEqual([]);
  });

  it("9. a stranger who knows a job id cannot pay for it and take its upload: challenges are bound to the owner's session", async () => {
    const { token, id } = await pendingJob();
    const before = await balances();
    // Without any credential a stranger gets no offer at all (401).
    expect((await fetch(uploadUrl(id))).status).toBe(401);
    // A bogus credential yields a 402 whose challenges are issued to `anonymous`; paying one is
    // refused before anything settles.
    const harvested = await fetch(uploadUrl(id), { headers: { authorization: 'Payment bogus' } });
    expect(harvested.status).toBe(402);
    const credential = await payer.mppx.createCredential(harvested);
    await expectRefused(await fetch(uploadUrl(id), { headers: { authorization: credential } }), 'invalid-challenge');
    // x402 the same way: the stock client signs the harvested offer; presented without the owner's
    // bearer it is refused, and beside the owner's bearer too (its challenge went to `anonymous`).
    const signed = await payer.signX402(await fetch(uploadUrl(id), { headers: { authorization: 'Payment bogus' } }));
    await expectRefused(await fetch(uploadUrl(id), { headers: { 'payment-signature': signed } }), 'invalid-challenge');
    await expectRefused(await fetch(uploadUrl(id), { headers: { ...bearer(token), 'payment-signature': signed } }), 'invalid-challenge');
    expect(await balances()).toEqual(before);
    expect(await ledger(id)).toEqual([]);
    expect((await stack.api.call('GET', `/api/v1/jobs/${id}`, { token })).body.payment_status).toBe('pending');
    // The owner still pays with the same stock client (it drops the bearer on the retry).
    const owner = await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) });
    expect(owner.status).toBe(200);
  });

  it('8. a paid job that fails is refunded on the chain, exactly once', async () => {
    const { token, id } = await pendingJob();
    const before = await balances();
    const paid = await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) });
    expect(paid.status).toBe(200);
    const chargeTx = decodeReceipt(paid.headers.get('payment-receipt')).reference;
    await fetch(((await paid.json()) as { upload_url: string }).upload_url, {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: undecodableMp4(64 * 1024),
    });
    expect((await stack.api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token })).status).toBe(200);

    const job = await stack.api.waitForJob(token, id);
    expect(job).toMatchObject({ status: 'failed', payment_status: 'refunded' });
    const [row] = await stack.coordinator.ctx.db.select({ code: jobs.errorCode }).from(jobs).where(eq(jobs.id, id));
    expect(row!.code).toBe('media_invalid');

    // The refunder runs on the sweeper cadence and sends the USDC back from the relayer.
    const refunds = () =>
      stack.coordinator.ctx.db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.jobId, id), eq(ledgerEntries.kind, 'refund')));
    await waitFor(async () => (await refunds())[0]?.state === 'done', 30_000, { description: 'the chain refund' });
    const [refund] = await refunds();
    expect(refund).toMatchObject({
      state: 'done',
      reference: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      amount: JOB_PRICE,
      chargeReference: chargeTx,
      payer: `did:pkh:eip155:${chainId}:${payer.address}`,
    });
    expect(await payer.transfersIn(refund!.reference as `0x${string}`)).toEqual([{ from: service, to: payer.address, value: JOB_PRICE }]);
    expect(await balances()).toEqual(before);

    // Later sweeps find nothing left to pay back.
    await new Promise((r) => setTimeout(r, 6 * SWEEP_MS));
    expect(await refunds()).toHaveLength(1);
    expect(await balances()).toEqual(before);
  });

  it('10. the x402 signature for job A cannot pay job B (same owner, same price, same payTo)', async () => {
    const token = await stack.api.newSession();
    const create = async () => (await stack.api.call('POST', '/api/v1/jobs', { token, json: JSON.parse(jobBody) })).body.job_id as string;
    const [a, b] = [await create(), await create()];
    const forA = await payer.signX402(await fetch(uploadUrl(a), { headers: bearer(token) }));
    const edit = (fn: (p: Record<string, unknown>) => void) => {
      const p = decodePaymentSignatureHeader(forA) as unknown as Record<string, unknown>;
      fn(p);
      return encodePaymentSignatureHeader(p as never);
    };
    const before = await balances();
    for (const header of [
      forA,
      edit((p) => {
        p['resource'] = { url: uploadUrl(b) };
      }),
      edit((p) => {
        delete p['resource'];
      }),
    ]) {
      await expectRefused(
        await fetch(uploadUrl(b), { headers: { ...bearer(token), 'payment-signature': header } }),
        'invalid-challenge',
        'verification-failed',
      );
    }
    expect(await balances()).toEqual(before);
    expect(await ledger(b)).toEqual([]);
    expect(await jobStatus(token, b)).toBe('pending');
    // On job A it pays.
    const paid = await fetch(uploadUrl(a), { headers: { ...bearer(token), 'payment-signature': forA } });
    expect(paid.status).toBe(200);
    expect(await balances()).toEqual({ payer: before.payer - JOB_PRICE, service: before.service + JOB_PRICE });
  });

  it('11. a payment whose receipt is delayed past the wait: 503 "being confirmed", then paid by reconciliation, one ledger row', async () => {
    const { token, id } = await pendingJob();
    const before = await balances();
    const tx = await withHeldBlocks(async () => {
      const error = await expectConfirming(await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) }));
      const [row] = await consumptions(id);
      expect(row).toMatchObject({ state: 'pending', rail: 'chain', reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
      expect(error).toContain(row!.reference);
      expect(await ledger(id)).toMatchObject([{ kind: 'charge', state: 'pending', reference: row!.reference, amount: JOB_PRICE }]);
      expect(await jobStatus(token, id)).toBe('pending');
      await node().mine({ blocks: 1 });
      return row!.reference as `0x${string}`;
    });
    await waitFor(
      async () => {
        await reconcile();
        return (await jobStatus(token, id)) === 'paid';
      },
      30_000,
      { description: 'the payment reconciled' },
    );
    expect(await ledger(id)).toMatchObject([{ kind: 'charge', state: 'done', reference: tx, amount: JOB_PRICE }]);
    expect(await consumptions(id)).toMatchObject([{ state: 'settled', reference: tx, recovery: null }]);
    expect(await payer.transfersIn(tx)).toEqual([{ from: payer.address, to: service, value: JOB_PRICE }]);
    expect(await balances()).toEqual({ payer: before.payer - JOB_PRICE, service: before.service + JOB_PRICE });
    // The job goes on without paying again.
    expect((await fetch(uploadUrl(id), { headers: bearer(token) })).status).toBe(200);
  });

  it('12. repeating the request with the same credential completes a delayed payment once it confirms', async () => {
    const { token, id } = await pendingJob();
    const before = await balances();
    const credential = await withHeldBlocks(async () => {
      await expectConfirming(await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) }));
      const sent = payer.sent.at(-1)!;
      // Not mined yet: the same answer, nothing sent twice.
      await expectConfirming(await fetch(uploadUrl(id), { headers: { authorization: sent } }));
      expect((await node().getTxpoolStatus()).pending).toBe(1);
      await node().mine({ blocks: 1 });
      return sent;
    });
    const [row] = await consumptions(id);
    const res = await fetch(uploadUrl(id), { headers: { authorization: credential } });
    expect(res.status).toBe(200);
    // (Had the sweeper reconciled it first, the job is paid and the call needs no payment at all.)
    const receipt = res.headers.get('payment-receipt');
    expect(receipt === null || decodeReceipt(receipt).reference === row!.reference).toBe(true);
    expect(await jobStatus(token, id)).toBe('paid');
    expect((await ledger(id)).map((r) => [r.kind, r.state])).toEqual([['charge', 'done']]);
    expect(await balances()).toEqual({ payer: before.payer - JOB_PRICE, service: before.service + JOB_PRICE });
  });

  it('13. a settling row left by a crash does not block the job for good: reconciled away, then a new credential pays', async () => {
    const { token, id } = await pendingJob();
    const db = stack.coordinator.ctx.db;
    await db.insert(paymentConsumptions).values({
      key: `crashed-${id}`,
      method: 'evm',
      jobId: id,
      state: 'settling',
      createdAt: new Date(),
      updatedAt: new Date(),
      rail: 'chain',
      ledgerJobId: id,
      amount: JOB_PRICE,
      currency: 'USDC',
      payer: `did:pkh:eip155:${chainId}:${payer.address}`,
      // The coordinator died before it signed the relay: nothing recorded, the authorization unused.
      recovery: { rail: 'chain', from: payer.address, nonce: bytesToHex(randomBytes(32)), value: String(JOB_PRICE), validBefore: '4102444800' },
    });
    const before = await balances();
    // While it may still be a live request, the job takes no other credential (before this fix, forever).
    await expectRefused(await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) }), 'invalid-challenge');
    // Ten minutes on, it is a crash: the reconciler asks the chain, finds nothing moved, and frees the job.
    const crashedAt = new Date(Date.now() - 10 * 60_000);
    await db
      .update(paymentConsumptions)
      .set({ createdAt: crashedAt, updatedAt: crashedAt })
      .where(eq(paymentConsumptions.key, `crashed-${id}`));
    await waitFor(
      async () => {
        await reconcile();
        return (await consumptions(id)).length === 0;
      },
      30_000,
      { description: 'the crashed row reconciled' },
    );
    expect(await ledger(id)).toMatchObject([{ kind: 'charge', state: 'failed', lastError: expect.stringMatching(/no relay was ever broadcast/) }]);
    expect(await balances()).toEqual(before);
    const paid = await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) });
    expect(paid.status).toBe(200);
    expect((await ledger(id)).map((r) => r.state)).toEqual(['failed', 'done']);
  });

  it('14. a chain refund whose receipt comes too late stays `sending` and is reconciled by its recorded hash, paid once', async () => {
    const { token, id } = await pendingJob();
    const before = await balances();
    const paid = await payer.mppx.fetch(uploadUrl(id), { headers: bearer(token) });
    expect(paid.status).toBe(200);
    const refunds = () =>
      stack.coordinator.ctx.db
        .select()
        .from(ledgerEntries)
        .where(and(eq(ledgerEntries.jobId, id), eq(ledgerEntries.kind, 'refund')));
    const refundTx = await withHeldBlocks(async () => {
      await fetch(((await paid.json()) as { upload_url: string }).upload_url, {
        method: 'PUT',
        headers: { 'content-type': 'audio/wav' },
        body: undecodableMp4(64 * 1024),
      });
      expect((await stack.api.call('POST', `/api/v1/jobs/${id}/complete-upload`, { token })).status).toBe(200);
      expect(await stack.api.waitForJob(token, id)).toMatchObject({ status: 'failed', payment_status: 'refunded' });
      // The refunder signed and recorded the transfer, broadcast it, and gave up waiting for its receipt.
      await waitFor(async () => Boolean((await refunds())[0]?.chainTx) && (await node().getTxpoolStatus()).pending === 1, 30_000, {
        description: 'the refund broadcast',
      });
      await new Promise((r) => setTimeout(r, 2_500));
      const [row] = await refunds();
      expect(row).toMatchObject({ state: 'sending', reference: row!.chainTx!.hash });
      await node().mine({ blocks: 1 });
      return row!.chainTx!.hash;
    });
    await waitFor(async () => (await refunds())[0]?.state === 'done', 30_000, { description: 'the refund reconciled' });
    expect(await refunds()).toMatchObject([{ state: 'done', reference: refundTx, amount: JOB_PRICE }]);
    expect(await payer.transfersIn(refundTx)).toEqual([{ from: service, to: payer.address, value: JOB_PRICE }]);
    await new Promise((r) => setTimeout(r, 6 * SWEEP_MS));
    expect(await refunds()).toHaveLength(1);
    expect(await balances()).toEqual(before);
  });
});
