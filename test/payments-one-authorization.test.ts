import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { and, eq, inArray } from 'drizzle-orm';
import { execa, type ResultPromise } from 'execa';
import { createPublicClient, createTestClient, type Hex, http } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries, paymentConsumptions } from '../coordinator/src/db/schema.ts';
import { SYSTEM_OPERATOR } from '../coordinator/src/embedded/agent-children.ts';
import { cancelJob } from '../coordinator/src/operators/job-control.ts';
import { freePort, waitFor } from './fixtures/index.ts';
import { type LatestBlockNode, startLatestBlockNode } from './fixtures/latest-block-node.ts';
import { chainPayer } from './harness/chain-payer.ts';
import { startStack, type Stack } from './harness/stack.ts';

const JOB_PRICE = 200_000n; // transcribe (audio) on the chain rail: 0.20 USDC
const PROBLEMS = 'https://paymentauth.org/problems/';

/**
 * Money on a chain that behaves like production nodes, not like anvil: the coordinators reach
 * anvil through a proxy that estimates gas against the latest block and reports a lagging
 * pending nonce (fixtures/latest-block-node.ts), and blocks come every 2 s instead of per
 * transaction. Two coordinator processes share one Postgres and one relayer key: replica A (the
 * stack's, in this process) and replica B (coordinator/src/main.ts as a child process).
 * Payments are made by stock clients (mppx `evm`, @x402/core + @x402/evm); every case is checked
 * on the chain (balances, Transfer logs, nonces) and in the books.
 */
describe('one signed authorization pays one thing; replicas never share a relayer nonce', () => {
  let stack: Stack;
  let node: LatestBlockNode;
  let payer: ReturnType<typeof chainPayer>;
  let service: Hex;
  let replicaB: { child: ResultPromise; url: string };

  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const uploadUrl = (base: string, id: string) => `${base}/api/v1/jobs/${id}/upload-url`;
  const db = () => stack.coordinator.ctx.db;
  const chargesOf = (ids: string[]) =>
    db()
      .select()
      .from(ledgerEntries)
      .where(and(inArray(ledgerEntries.jobId, ids), eq(ledgerEntries.kind, 'charge')));
  const refundsOf = (ids: string[]) =>
    db()
      .select()
      .from(ledgerEntries)
      .where(and(inArray(ledgerEntries.jobId, ids), eq(ledgerEntries.kind, 'refund')));
  const reader = () => createPublicClient({ transport: http(stack.billing!.anvil.rpcUrl) });
  const nonceOf = async (hash: string) => (await reader().getTransaction({ hash: hash as Hex })).nonce;
  async function newJobs(token: string, n: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) {
      const r = await stack.api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'transcribe', filename: 'talk.wav', content_type: 'audio/wav' } });
      expect(r.status).toBe(201);
      ids.push(r.body.job_id as string);
    }
    return ids;
  }

  beforeAll(async () => {
    stack = await startStack({
      billing: true,
      storage: 'local',
      agents: 0,
      sweepMs: 250,
      chainRpcUrl: async (anvilUrl) => {
        node = await startLatestBlockNode(anvilUrl);
        return node.url;
      },
    });
    payer = chainPayer(stack.billing!);
    service = stack.billing!.relayer.address;
    const port = await freePort();
    const child = execa('bash', ['scripts/run-node.sh', 'coordinator/src/main.ts'], {
      env: {
        ...stack.coordinatorEnv,
        PORT: String(port),
        DATA_DIR: mkdtempSync(join(tmpdir(), 'cutroom-replica-b-')),
        LOG_LEVEL: 'warn',
        URL_SIGNING_SECRET: 'test-url-signing-secret-0123',
      },
      reject: false,
      all: true,
    });
    replicaB = { child, url: `http://127.0.0.1:${port}` };
    let exited: string | null = null;
    void child.then((r) => {
      exited = `${r.exitCode} ${r.all}`;
    });
    await waitFor(
      async () => {
        if (exited !== null) throw new Error(`replica B exited: ${exited}`);
        return (await fetch(`${replicaB.url}/health`).catch(() => null))?.ok === true;
      },
      90_000,
      { description: 'replica B to start' },
    );
    // Blocks every 2 s, not one per transaction.
    const anvil = createTestClient({ mode: 'anvil', transport: http(stack.billing!.anvil.rpcUrl) });
    await anvil.setAutomine(false);
    await anvil.setIntervalMining({ interval: 2 });
  }, 120_000);
  afterAll(async () => {
    replicaB?.child.kill('SIGKILL');
    await stack?.stop();
    await node?.stop();
  });

  it('the authorization a stock MPP client signed for job A, re-sent at once as x402 for job B: one job paid, the other refused; failing both refunds what was paid, once', async () => {
    const base = stack.coordinator.url;
    const token = await stack.api.newSession();
    const [a, b] = (await newJobs(token, 2)) as [string, string];
    const before = await payer.balanceOf(payer.address);

    const credential = await payer.mppx.createCredential(await fetch(uploadUrl(base, a), { headers: bearer(token) }));
    const mpp = JSON.parse(Buffer.from(credential.replace(/^Payment\s+/, ''), 'base64url').toString()) as { payload: Record<string, string> };
    const { signature, type: _type, ...authorization } = mpp.payload;
    // Job B's own x402 envelope (its binding, resource and price) around A's signed authorization.
    const forB = decodePaymentSignatureHeader(await payer.signX402(await fetch(uploadUrl(replicaB.url, b), { headers: bearer(token) }))) as unknown as {
      payload: unknown;
    };
    forB.payload = { authorization, signature };
    const rewrapped = encodePaymentSignatureHeader(forB as never);

    const paidA = fetch(uploadUrl(base, a), { headers: { authorization: credential } });
    // A's relay is signed, recorded and in the mempool (not mined: blocks come every 2 s) …
    await waitFor(async () => (await db().select().from(paymentConsumptions).where(eq(paymentConsumptions.jobId, a)))[0]?.reference != null, 10_000, {
      description: "job A's relay recorded",
    });
    // … when the same authorization arrives for job B, through the other replica.
    const paidB = fetch(uploadUrl(replicaB.url, b), { headers: { ...bearer(token), 'payment-signature': rewrapped } });
    const [resA, resB] = await Promise.all([paidA, paidB]);

    expect(resA.status).toBe(200);
    expect(resB.status).toBe(402);
    const problem = (await resB.json()) as { type: string; detail: string };
    expect(problem.type).toBe(`${PROBLEMS}invalid-challenge`);
    expect(problem.detail).toMatch(/already presented for another payment/);
    expect(await payer.balanceOf(payer.address)).toBe(before - JOB_PRICE);
    const charges = await chargesOf([a, b]);
    expect(charges.map((c) => [c.jobId, c.state])).toEqual([[a, 'done']]);
    expect(await payer.transfersIn(charges[0]!.reference as Hex)).toEqual([{ from: payer.address, to: service, value: JOB_PRICE }]);
    expect((await stack.api.call('GET', `/api/v1/jobs/${b}`, { token })).body.payment_status).toBe('pending');

    // Both jobs fail: what was paid comes back once, and nothing more.
    for (const id of [a, b]) await cancelJob(stack.coordinator.ctx, SYSTEM_OPERATOR, id, 'test: fail both');
    await waitFor(async () => (await refundsOf([a, b])).every((r) => r.state === 'done') && (await refundsOf([a, b])).length > 0, 60_000, {
      description: "job A's refund",
    });
    await new Promise((r) => setTimeout(r, 3_000));
    expect((await refundsOf([a, b])).map((r) => [r.jobId, r.state, r.amount])).toEqual([[a, 'done', JOB_PRICE]]);
    expect(await payer.balanceOf(payer.address)).toBe(before);
    // The condition was there: every estimate ran against the latest block.
    expect(Object.fromEntries(node.calls)).toMatchObject({ eth_estimateGas: expect.any(Number) });
  });

  it('two replicas relay payments at once with a lagging pending nonce: every payment settles, each with a nonce of its own', async () => {
    const token = await stack.api.newSession();
    const ids = await newJobs(token, 6);
    const before = await payer.balanceOf(payer.address);
    const results = await Promise.all(
      ids.map((id, i) => payer.mppx.fetch(uploadUrl(i % 2 ? replicaB.url : stack.coordinator.url, id), { headers: bearer(token) })),
    );
    expect(results.map((r) => r.status)).toEqual(ids.map(() => 200));
    const charges = await chargesOf(ids);
    expect(charges.filter((c) => c.state === 'done')).toHaveLength(6);
    const references = charges.map((c) => c.reference!);
    expect(new Set(references).size).toBe(6);
    expect(new Set(await Promise.all(references.map(nonceOf))).size).toBe(6);
    expect(await payer.balanceOf(payer.address)).toBe(before - 6n * JOB_PRICE);

    // Six equal refunds to one payer, sent by both replicas' refunders at once: six transfers.
    for (const id of ids) await cancelJob(stack.coordinator.ctx, SYSTEM_OPERATOR, id, 'test: equal refunds');
    await waitFor(async () => (await refundsOf(ids)).filter((r) => r.state === 'done').length === 6, 90_000, { description: 'six refunds done' });
    const refunds = await refundsOf(ids);
    const refundTxs = refunds.map((r) => r.reference as Hex);
    expect(new Set(refundTxs).size).toBe(6);
    expect(new Set(await Promise.all(refundTxs.map(nonceOf))).size).toBe(6);
    for (const tx of refundTxs) expect(await payer.transfersIn(tx)).toEqual([{ from: service, to: payer.address, value: JOB_PRICE }]);
    expect(await payer.balanceOf(payer.address)).toBe(before);
  });
});
