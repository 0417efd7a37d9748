// The chain rail against a real EVM: anvil + TestUSDC (a FiatToken v2 look-alike). Accounts by
// the fixture's convention: [0] token owner, [1] the service (relayer = recipient), [2] payer,
// [3] a stranger. Every case uses its own challenge, hence its own EIP-3009 nonce.
import { createTestClient, createWalletClient, http, parseGwei, parseSignature } from 'viem';
import { foundry } from 'viem/chains';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  challengeNonce,
  createChainRail,
  type ChainRail,
  type Eip3009Authorization,
  type SettlementLookup,
  type SignedTx,
} from '../coordinator/src/payments/rails/chain-rail.ts';
import { transferAuthorizationTypedData } from '../coordinator/src/payments/rails/eip3009.ts';
import { PaymentProblem, type ProblemType } from '../coordinator/src/payments/types.ts';
import { deployTestUsdc, loadTestUsdcArtifact, mintUsdc, startAnvil, TEST_USDC_DOMAIN, waitFor, type AnvilFixture } from './fixtures/index.ts';

type Hex = `0x${string}`;
const REALM = 'cutroom.test';
const PRICE = 200_000n; // 0.20 USDC

let anvil: AnvilFixture;
let token: Hex;
let rail: ChainRail;
let service: Hex;
let payerKey: Hex;
let strangerKey: Hex;
let challengeCount = 0;

beforeAll(async () => {
  anvil = await startAnvil();
  const [owner, svc, payer, stranger] = anvil.accounts;
  if (!owner || !svc || !payer || !stranger) throw new Error('anvil fixture returned too few accounts');
  ({ address: token } = await deployTestUsdc(anvil.rpcUrl, owner.privateKey));
  await mintUsdc(anvil.rpcUrl, owner.privateKey, token, payer.address, 10_000_000n);
  service = svc.address;
  payerKey = payer.privateKey;
  strangerKey = stranger.privateKey;
  rail = createChainRail({
    rpcUrl: anvil.rpcUrl,
    chainId: anvil.chainId,
    tokenAddress: token,
    tokenName: TEST_USDC_DOMAIN.name,
    tokenVersion: TEST_USDC_DOMAIN.version,
    recipient: svc.address,
    relayerPrivateKey: svc.privateKey,
  });
});

afterAll(async () => {
  await anvil?.stop();
});

/** A fresh challenge's nonce, and an authorization for it signed by `signerKey` (the payer by
 * default) with `from` = the payer unless overridden. */
async function authorize(fields: Partial<Omit<Eip3009Authorization, 'signature'>> = {}, signerKey = payerKey) {
  const nonce = challengeNonce(`ch_${++challengeCount}`, REALM);
  const now = Math.floor(Date.now() / 1000);
  const message = {
    from: privateKeyToAccount(payerKey).address,
    to: service,
    value: String(PRICE),
    validAfter: String(now - 60),
    validBefore: String(now + 600),
    nonce,
    ...fields,
  };
  const domain = { ...TEST_USDC_DOMAIN, chainId: anvil.chainId, verifyingContract: token };
  const signature = await privateKeyToAccount(signerKey).signTypedData(transferAuthorizationTypedData(domain, message));
  return { auth: { ...message, signature }, expect: { amount: PRICE, nonce } };
}

/** What reconciling an authorization needs (what the gate stores as its recovery data). */
function lookup(auth: Eip3009Authorization, tx: SignedTx | null): SettlementLookup {
  return { from: auth.from, nonce: auth.nonce, value: BigInt(auth.value), validBefore: BigInt(auth.validBefore), tx };
}

async function nodeKnows(hash: Hex): Promise<boolean> {
  const res = await fetch(anvil.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [hash] }),
  });
  return ((await res.json()) as { result: unknown }).result !== null;
}

async function balances() {
  return { payer: await rail.balanceOf(privateKeyToAccount(payerKey).address), service: await rail.balanceOf(service) };
}

async function problemOf(p: Promise<unknown>): Promise<PaymentProblem> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(err instanceof PaymentProblem)) throw new Error(`expected a PaymentProblem, got ${String(err)}`, { cause: err });
  // Payer-facing text never carries the node's address, calldata or raw revert data.
  expect(err.message).not.toContain(anvil.rpcUrl);
  expect(err.message).not.toMatch(/0x[0-9a-f]{8}/i);
  return err;
}

/** Takes a thunk so balances are read before the settle starts (and its rejection is handled). */
async function expectRefused(settle: () => Promise<unknown>, type: ProblemType) {
  const before = await balances();
  expect((await problemOf(settle())).type).toBe(type);
  expect(await balances()).toEqual(before);
}

describe('chain rail on anvil + TestUSDC', () => {
  it('settles a signed authorization: funds move and the tx hash comes back', async () => {
    const before = await balances();
    const { auth, expect: want } = await authorize();
    const { txHash, payer } = await rail.settle(auth, want);
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(payer).toBe(privateKeyToAccount(payerKey).address);
    expect(await balances()).toEqual({ payer: before.payer - PRICE, service: before.service + PRICE });
  });

  it('refuses a replay of a settled authorization, moving nothing', async () => {
    const { auth, expect: want } = await authorize();
    await rail.settle(auth, want);
    await expectRefused(() => rail.settle(auth, want), 'verification-failed');
  });

  it('settles one of two concurrent settles of the same authorization; the token refuses the other', async () => {
    const before = await balances();
    const { auth, expect: want } = await authorize();
    const results = await Promise.allSettled([rail.settle(auth, want), rail.settle(auth, want)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const [refused] = results.filter((r) => r.status === 'rejected');
    expect((await problemOf(Promise.reject(refused?.reason))).type).toBe('verification-failed');
    expect(await balances()).toEqual({ payer: before.payer - PRICE, service: before.service + PRICE });
  });

  it('when a copy of the relay is mined first, the token reverts ours and settle refuses it', async () => {
    // Automine off mimics a real block time. anvil estimates gas against the pending block, so a
    // second settle would already fail its estimate; a front-runner broadcasting the same
    // authorization with a higher tip (no estimate) is what reaches the block first instead.
    const node = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const frontRunner = createWalletClient({
      account: privateKeyToAccount(strangerKey),
      chain: { ...foundry, id: anvil.chainId },
      transport: http(anvil.rpcUrl),
    });
    const before = await balances();
    const { auth, expect: want } = await authorize();
    const { r, s, yParity } = parseSignature(auth.signature);
    await node.setAutomine(false);
    try {
      const ours = rail.settle(auth, want).then(
        () => undefined,
        (e: unknown) => e,
      );
      await waitFor(async () => (await node.getTxpoolStatus()).pending === 1, 10_000, { description: 'our relay pending' });
      await frontRunner.writeContract({
        address: token,
        abi: loadTestUsdcArtifact().abi,
        functionName: 'transferWithAuthorization',
        args: [auth.from, auth.to, PRICE, BigInt(auth.validAfter), BigInt(auth.validBefore), auth.nonce, 27 + yParity, r, s],
        gas: 200_000n,
        maxPriorityFeePerGas: parseGwei('50'),
        maxFeePerGas: parseGwei('500'),
      });
      await node.mine({ blocks: 1 });
      const err = await ours;
      expect((await problemOf(Promise.reject(err))).type).toBe('verification-failed');
      // Refused from the mined receipt (the cause names our reverted transaction), not a pre-check.
      expect((err as PaymentProblem).cause).toMatchObject({ txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    } finally {
      await node.setAutomine(true);
    }
    // The authorization moved the money exactly once (to us, as signed), whoever relayed it.
    expect(await balances()).toEqual({ payer: before.payer - PRICE, service: before.service + PRICE });
  });

  it('refuses a wrong amount as payment-insufficient', async () => {
    const { auth, expect: want } = await authorize({ value: '100000' });
    const p = await problemOf(rail.settle(auth, want));
    expect(p.type).toBe('payment-insufficient');
    expect(p.message).toMatch(/0\.10 USDC.*0\.20 USDC/);
  });

  it('refuses an authorization whose validBefore has passed as payment-expired', async () => {
    const { auth, expect: want } = await authorize({ validAfter: '0', validBefore: String(Math.floor(Date.now() / 1000) - 5) });
    await expectRefused(() => rail.settle(auth, want), 'payment-expired');
  });

  it('refuses an authorization paying someone else as verification-failed', async () => {
    const { auth, expect: want } = await authorize({ to: privateKeyToAccount(strangerKey).address });
    await expectRefused(() => rail.settle(auth, want), 'verification-failed');
  });

  it('refuses a signature by a key other than `from` as verification-failed', async () => {
    const { auth, expect: want } = await authorize({}, strangerKey);
    await expectRefused(() => rail.settle(auth, want), 'verification-failed');
  });

  it('maps a token revert (payer balance too low) to verification-failed with a plain detail', async () => {
    // The stranger holds no USDC: everything checks out off chain, the token itself reverts.
    const { auth, expect: want } = await authorize({ from: privateKeyToAccount(strangerKey).address }, strangerKey);
    const p = await problemOf(rail.settle(auth, want));
    expect(p.type).toBe('verification-failed');
    expect(p.message).toMatch(/balance is too low/);
  });

  it('refunds: funds go back to the payer from the recipient account', async () => {
    const { auth, expect: want } = await authorize();
    const { payer } = await rail.settle(auth, want);
    const before = await balances();
    const { txHash } = await rail.refund(payer, PRICE);
    expect(txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await balances()).toEqual({ payer: before.payer + PRICE, service: before.service - PRICE });
  });

  it('records the signed relay before broadcasting it: the hash handed to onSigned is the one mined', async () => {
    const { auth, expect: want } = await authorize();
    const recorded: SignedTx[] = [];
    const { txHash } = await rail.settle(auth, want, async (tx) => {
      // Not on the node yet when it is recorded.
      expect(await nodeKnows(tx.hash)).toBe(false);
      recorded.push(tx);
    });
    expect(recorded.map((t) => t.hash)).toEqual([txHash]);
  });

  it('broadcasts nothing when recording fails, and leaves no nonce gap behind', async () => {
    const { auth, expect: want } = await authorize();
    const err = await rail
      .settle(auth, want, async () => {
        throw new Error('database down');
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect((err as Error).message).toBe('database down');
    expect(await rail.checkSettlement(lookup(auth, null))).toMatchObject({ status: 'failed', reason: expect.stringMatching(/no relay was ever broadcast/) });
    // The next relay takes the nonce that was handed back, and is mined at once.
    const next = await authorize();
    await rail.settle(next.auth, next.expect);
  });

  it('reconciles a relay whose receipt came too late: unknown while pending, settled once mined', async () => {
    const node = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const before = await balances();
    const { auth, expect: want } = await authorize();
    let ours: SignedTx | undefined;
    rail.receiptTimeoutMs = 1_500;
    await node.setAutomine(false);
    try {
      const err = await rail
        .settle(auth, want, async (tx) => {
          ours = tx;
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      // The wait gave up; that is not a refusal: the relay is out there.
      expect(err).toBeInstanceOf(Error);
      expect(err).not.toBeInstanceOf(PaymentProblem);
      expect(await rail.checkSettlement(lookup(auth, ours!))).toMatchObject({ status: 'unknown', reason: expect.stringMatching(/not mined yet/) });
      await node.mine({ blocks: 1 });
      expect(await rail.checkSettlement(lookup(auth, ours!))).toEqual({ status: 'settled', txHash: ours!.hash });
    } finally {
      rail.receiptTimeoutMs = 60_000;
      await node.setAutomine(true);
    }
    expect(await balances()).toEqual({ payer: before.payer - PRICE, service: before.service + PRICE });
  });

  it('reconciles a relay that was recorded but never reached the node: sends the same bytes again, then settled', async () => {
    const { auth, expect: want } = await authorize();
    let ours: SignedTx | undefined;
    await rail
      .settle(auth, want, async (tx) => {
        ours = tx;
        throw new Error('crashed after recording'); // nothing is broadcast
      })
      .catch(() => undefined);
    const before = await balances();
    expect(await rail.checkSettlement(lookup(auth, ours!))).toMatchObject({ status: 'unknown', reason: expect.stringMatching(/sent again/) });
    await waitFor(async () => (await rail.checkSettlement(lookup(auth, ours!))).status === 'settled', 10_000, { description: 'the re-broadcast relay mined' });
    expect(await balances()).toEqual({ payer: before.payer - PRICE, service: before.service + PRICE });
  });

  it('reconciles a relay dropped for good: its nonce went to another transaction, the authorization is unused: failed', async () => {
    const { auth, expect: want } = await authorize();
    let ours: SignedTx | undefined;
    await rail
      .settle(auth, want, async (tx) => {
        ours = tx;
        throw new Error('crashed after recording');
      })
      .catch(() => undefined);
    const next = await authorize(); // takes the same relayer nonce
    await rail.settle(next.auth, next.expect);
    const before = await balances();
    expect(await rail.checkSettlement(lookup(auth, ours!))).toMatchObject({ status: 'failed', reason: expect.stringMatching(/dropped/) });
    expect(await balances()).toEqual(before);
  });

  it('a reverted relay whose authorization another transaction used first is an anomaly for an operator, never taken as this payment', async () => {
    const node = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const frontRunner = createWalletClient({
      account: privateKeyToAccount(strangerKey),
      chain: { ...foundry, id: anvil.chainId },
      transport: http(anvil.rpcUrl),
    });
    const { auth, expect: want } = await authorize();
    const { r, s, yParity } = parseSignature(auth.signature);
    let ours: SignedTx | undefined;
    await node.setAutomine(false);
    let theirs: Hex;
    try {
      const settling = rail
        .settle(auth, want, async (tx) => {
          ours = tx;
        })
        .catch(() => undefined);
      await waitFor(async () => (await node.getTxpoolStatus()).pending === 1, 10_000, { description: 'our relay pending' });
      theirs = await frontRunner.writeContract({
        address: token,
        abi: loadTestUsdcArtifact().abi,
        functionName: 'transferWithAuthorization',
        args: [auth.from, auth.to, PRICE, BigInt(auth.validAfter), BigInt(auth.validBefore), auth.nonce, 27 + yParity, r, s],
        gas: 200_000n,
        maxPriorityFeePerGas: parseGwei('50'),
        maxFeePerGas: parseGwei('500'),
      });
      await node.mine({ blocks: 1 });
      await settling;
    } finally {
      await node.setAutomine(true);
    }
    // The money moved, but not by our relay of this payment: booking `theirs` could let one transfer pay two things.
    const status = await rail.checkSettlement(lookup(auth, ours!));
    expect(status).toMatchObject({ status: 'anomaly', reason: expect.stringContaining(theirs!) });
    expect(await rail.checkSettlement(lookup(auth, null))).toMatchObject({ status: 'anomaly' });
  });

  it('reconciles an authorization that expired unused (no relay will ever land): failed', async () => {
    const node = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const now = Math.floor(Date.now() / 1000);
    const { auth, expect: want } = await authorize({ validBefore: String(now + 30) });
    let ours: SignedTx | undefined;
    await rail
      .settle(auth, want, async (tx) => {
        ours = tx;
        throw new Error('crashed after recording');
      })
      .catch(() => undefined);
    // Recorded, never broadcast, and the chain moves past validBefore: no block can use it any more.
    await node.setNextBlockTimestamp({ timestamp: BigInt(now + 60) });
    await node.mine({ blocks: 1 });
    expect(await rail.checkSettlement(lookup(auth, ours!))).toMatchObject({ status: 'failed', reason: expect.stringMatching(/expired unused/) });
    expect(await nodeKnows(ours!.hash)).toBe(false); // and it was not sent again
  });

  it('reconciles a refund by its recorded transaction: unknown while pending, done once mined; a dropped one is safe to resend', async () => {
    const node = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    const payer = privateKeyToAccount(payerKey).address;
    rail.receiptTimeoutMs = 1_500;
    await node.setAutomine(false);
    let refundTx: SignedTx;
    try {
      refundTx = await rail.sendRefund(payer, 1_000n);
      expect(await rail.awaitRefund(refundTx, { to: payer, amount: 1_000n })).toMatchObject({ status: 'unknown' });
      await node.mine({ blocks: 1 });
    } finally {
      rail.receiptTimeoutMs = 60_000;
      await node.setAutomine(true);
    }
    expect(await rail.checkRefund(refundTx, { to: payer, amount: 1_000n })).toEqual({ status: 'done', txHash: refundTx.hash });

    let dropped: SignedTx | undefined;
    await rail
      .sendRefund(payer, 2_000n, async (tx) => {
        dropped = tx;
        throw new Error('crashed after recording');
      })
      .catch(() => undefined);
    await rail.refund(payer, 3_000n); // takes the nonce
    expect(await rail.checkRefund(dropped!, { to: payer, amount: 2_000n })).toMatchObject({ status: 'resend' });
  });

  it('reports an unreachable node as a plain Error (a 503), not a payment problem', async () => {
    const [, svc] = anvil.accounts;
    const deadUrl = 'http://127.0.0.1:9/rpc?key=SECRET';
    const offline = createChainRail({
      rpcUrl: deadUrl,
      chainId: anvil.chainId,
      tokenAddress: token,
      tokenName: TEST_USDC_DOMAIN.name,
      tokenVersion: TEST_USDC_DOMAIN.version,
      recipient: service,
      relayerPrivateKey: svc!.privateKey,
    });
    const { auth, expect: want } = await authorize();
    const err = await offline.settle(auth, want).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err).not.toBeInstanceOf(PaymentProblem);
    expect((err as Error).message).not.toContain('SECRET');
  });
});
