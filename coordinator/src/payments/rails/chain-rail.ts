// The chain rail (MPP method `evm`, x402 `exact`): verifies an EIP-3009 USDC authorization,
// relays transferWithAuthorization from our relayer account (we pay gas), and refunds.
// Replay safety lives in the token: the nonce is bound to the challenge and the contract marks it
// used, so two replicas racing one credential settle it at most once.
//
// Every relayer transaction is signed locally and handed to the caller (`onSigned`) BEFORE it is
// broadcast, so its hash is on record whatever happens next: a receipt that does not come in
// time, a node that fails mid-broadcast, a coordinator that crashes. `checkSettlement` /
// `checkRefund` later decide from the chain alone whether such a transaction moved the money.
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeFunctionData,
  getAddress,
  http,
  isAddress,
  isAddressEqual,
  keccak256,
  parseEventLogs,
  parseSignature,
  parseTransaction,
  RpcRequestError,
  TransactionNotFoundError,
  TransactionReceiptNotFoundError,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { PaymentProblem } from '../types.ts';
import { checkAuthorizationTerms, verifyAuthorizationSignature, type AuthorizationExpectation } from './authorization-checks.ts';
import type { Eip3009Authorization, TokenDomain } from './eip3009.ts';
import { classifyRelayError, revertedReceiptProblem } from './relay-errors.ts';
import { localRelayerTurns, type RelayerTurns } from './relayer-turns.ts';
import { USDC_ABI } from './usdc-abi.ts';

export { challengeNonce, type Eip3009Authorization } from './eip3009.ts';

export interface ChainRailConfig {
  /** JSON-RPC endpoint; may embed an API key, so it never appears in payer-facing details */
  rpcUrl: string;
  chainId: number;
  tokenAddress: Hex;
  /** EIP-712 domain name of the token, e.g. "USD Coin" */
  tokenName: string;
  /** EIP-712 domain version of the token, e.g. "2" */
  tokenVersion: string;
  /** receives payments; the relayer key must control it so refunds can be sent */
  recipient: Hex;
  relayerPrivateKey: Hex;
  /** blocks to wait for after inclusion. @default 1 */
  confirmations?: number;
  /** an authorization must stay valid at least this long to be relayed. @default 6 (seconds) */
  minValiditySeconds?: number;
  /** how long a paid request waits for its receipt before reconciliation takes over (the tx may still land). @default 60_000 */
  receiptTimeoutMs?: number;
  /** how far back (blocks) to look for the transaction that used an authorization (ours, or another that makes it an anomaly). @default 10_000 */
  logWindowBlocks?: bigint;
  /** @default systemClock */
  clock?: Clock;
  /**
   * The relayer's turns and nonces, given its address: every coordinator sharing the key must
   * share them (pgRelayerTurns). @default turns within this process only (localRelayerTurns)
   */
  turns?: (relayerAddress: Hex) => RelayerTurns;
}

/** A relayer transaction, signed: its hash is known before it is broadcast, and the same bytes can be sent again. */
export interface SignedTx {
  hash: Hex;
  raw: Hex;
}

/** Runs with the signed transaction before it is broadcast (record its hash); if it throws, nothing is sent. */
export type OnSigned = (tx: SignedTx) => Promise<void>;

/** The broadcast of a signed (and recorded) transaction failed in a way that leaves open whether the node took it. */
export class BroadcastUncertainError extends Error {
  readonly tx: SignedTx;
  constructor(tx: SignedTx, cause: unknown) {
    super(`chain rail: the broadcast of transaction ${tx.hash} may or may not have reached the node`, { cause });
    this.name = 'BroadcastUncertainError';
    this.tx = tx;
  }
}

/** The chain says something no rule here decides (a successful relay without our Transfer log): a person must look. */
export class SettlementAnomaly extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SettlementAnomaly';
  }
}

/** What reconciling one authorization needs: its terms and our relay of it, if one was signed. */
export interface SettlementLookup {
  from: Hex;
  nonce: Hex;
  value: bigint;
  /** unix seconds */
  validBefore: bigint;
  tx: SignedTx | null;
}

/**
 * settled: the authorization moved `value` to the recipient in `txHash`, our relay of it for this
 * very payment (`SettlementLookup.tx`); a use by any other transaction is an anomaly. failed: it did not and can no longer through our relay (reverted, replaced,
 * expired, cancelled by the payer, never sent). unknown: not decided yet; ask again later.
 * anomaly: needs an operator.
 */
export type SettlementStatus =
  | { status: 'settled'; txHash: Hex }
  | { status: 'failed'; reason: string }
  | { status: 'unknown'; reason: string }
  | { status: 'anomaly'; reason: string };

/** done: the refund landed. resend: it did not and never can (reverted, replaced): sending again is safe. */
export type RefundStatus =
  | { status: 'done'; txHash: Hex }
  | { status: 'resend'; reason: string }
  | { status: 'unknown'; reason: string }
  | { status: 'anomaly'; reason: string };

export interface ChainRail {
  /** CAIP-2 id, `eip155:<chainId>` */
  network: string;
  asset: Hex;
  recipient: Hex;
  domain: { name: string; version: string };
  /** How long `confirm` (a paid request) waits for the receipt; after that the outcome is reconciled. Adjustable at run time. */
  receiptTimeoutMs: number;
  /**
   * Verifies and relays one authorization: checks, pre-checks `authorizationState`, estimates,
   * signs, hands the signed transaction to `onSigned`, broadcasts. Refusals are PaymentProblems
   * and a plain Error means nothing was broadcast; after `onSigned` a failed broadcast is a
   * BroadcastUncertainError (reconcile it by hash).
   */
  relay(auth: Eip3009Authorization, expect: AuthorizationExpectation, onSigned?: OnSigned): Promise<{ tx: SignedTx; payer: Hex }>;
  /** Waits for the relay's receipt: resolves when the Transfer happened; PaymentProblem if it reverted;
   * SettlementAnomaly without our Transfer log; a plain Error when no receipt came in time (outcome unknown). */
  confirm(tx: SignedTx, auth: Eip3009Authorization): Promise<void>;
  /** relay + confirm. Exactly-once is the token's job: a replay reverts. */
  settle(auth: Eip3009Authorization, expect: AuthorizationExpectation, onSigned?: OnSigned): Promise<{ txHash: Hex; payer: Hex }>;
  /** Decides from the chain what became of an authorization (no waiting); may re-broadcast our signed relay. */
  checkSettlement(lookup: SettlementLookup): Promise<SettlementStatus>;
  /** Sends `amount` back to `to` from the recipient/relayer account (signed, `onSigned`, broadcast); does not wait. */
  sendRefund(to: Hex, amount: bigint, onSigned?: OnSigned): Promise<SignedTx>;
  /** Waits (receiptTimeoutMs) for a refund's receipt, then decides like checkRefund. */
  awaitRefund(tx: SignedTx, want: { to: Hex; amount: bigint }): Promise<RefundStatus>;
  /** What became of a refund transaction (no waiting); may re-broadcast it. */
  checkRefund(tx: SignedTx, want: { to: Hex; amount: bigint }): Promise<RefundStatus>;
  /** sendRefund + wait for success; throws when it did not land. */
  refund(to: Hex, amount: bigint, onSigned?: OnSigned): Promise<{ txHash: Hex }>;
  balanceOf(addr: Hex): Promise<bigint>;
}

export function createChainRail(cfg: ChainRailConfig): ChainRail {
  const relayer = privateKeyToAccount(cfg.relayerPrivateKey);
  if (!isAddressEqual(relayer.address, cfg.recipient)) {
    throw new Error('chain rail: relayerPrivateKey must control the recipient address, or refunds cannot be sent');
  }
  const chain = defineChain({
    id: cfg.chainId,
    name: `eip155:${cfg.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [cfg.rpcUrl] } },
  });
  const transport = http(cfg.rpcUrl, { timeout: 10_000, retryCount: 2 });
  // Receipts are polled; viem's 4 s default would add seconds to every paid request on L2s.
  const reader = createPublicClient({ chain, transport, pollingInterval: 1_000 });
  const writer = createWalletClient({ chain, transport, account: relayer });
  const asset = getAddress(cfg.tokenAddress);
  const recipient = getAddress(cfg.recipient);
  const domain: TokenDomain = { name: cfg.tokenName, version: cfg.tokenVersion, chainId: cfg.chainId, verifyingContract: asset };
  const clock = cfg.clock ?? systemClock;
  const confirmations = cfg.confirmations ?? 1;
  const logWindow = cfg.logWindowBlocks ?? 10_000n;
  // Whose turn it is to send, and from which nonce (an RPC's "pending" count can lag, so the turn keeps its own floor).
  const turns = cfg.turns?.(relayer.address) ?? localRelayerTurns(`${cfg.chainId}:${relayer.address}`);
  let receiptTimeoutMs = cfg.receiptTimeoutMs ?? 60_000;

  type Call = { address: Hex; abi: typeof USDC_ABI; functionName: 'transferWithAuthorization' | 'transfer'; args: readonly unknown[] };

  /**
   * One relayer transaction: estimate (a call the token would refuse fails here, before it takes a
   * nonce), sign with 20 % gas headroom, record (`onSigned`), broadcast. Sent in the relayer's
   * turn (relayer-turns.ts: shared by every replica through Postgres), with a nonce no other
   * turn used; a failure before the broadcast leaves the nonce free.
   */
  async function sendSigned(call: Call, estimateFailure: (err: unknown) => Error, onSigned?: OnSigned): Promise<SignedTx> {
    const sent = await turns.run<{ tx: SignedTx } | { error: unknown }>(async (turn) => {
      const fail = (error: unknown, used: number | null = null) => ({ result: { error }, used });
      let gas: bigint;
      try {
        gas = ((await reader.estimateContractGas({ ...call, account: relayer } as Parameters<typeof reader.estimateContractGas>[0])) * 12n) / 10n;
      } catch (err) {
        return fail(estimateFailure(err));
      }
      let tx: SignedTx;
      let nonce: number;
      try {
        const pending = await reader.getTransactionCount({ address: relayer.address, blockTag: 'pending' });
        nonce = Math.max(turn.floor, pending);
        const data = encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args } as Parameters<typeof encodeFunctionData>[0]);
        const request = await writer.prepareTransactionRequest({ account: relayer, chain, to: call.address, data, gas, nonce });
        const raw = await relayer.signTransaction(request as Parameters<typeof relayer.signTransaction>[0]);
        tx = { hash: keccak256(raw), raw };
      } catch (err) {
        return fail(new Error('chain rail: could not prepare the relayer transaction (RPC unavailable or relayer misconfigured)', { cause: err }));
      }
      try {
        await onSigned?.(tx);
      } catch (err) {
        return fail(err);
      }
      // The turn may have run out while recording (a stalled database): another replica may hold this nonce now.
      if (!(await turn.stillHeld().catch(() => false))) return fail(new Error('chain rail: lost the relayer turn before broadcasting; nothing was sent'));
      try {
        await writer.sendRawTransaction({ serializedTransaction: tx.raw });
      } catch (err) {
        // A retried send can fail although its first try got through: ask the node before deciding.
        if (await isKnown(tx.hash).catch(() => false)) return { result: { tx }, used: nonce };
        if (isNodeRefusal(err)) return fail(new Error('chain rail: the node refused the relayer transaction', { cause: err }));
        return fail(new BroadcastUncertainError(tx, err), nonce);
      }
      return { result: { tx }, used: nonce };
    });
    if ('error' in sent) throw sent.error;
    return sent.tx;
  }

  async function isKnown(hash: Hex): Promise<boolean> {
    return (await txOrNull(hash)) !== null;
  }
  async function txOrNull(hash: Hex) {
    try {
      return await reader.getTransaction({ hash });
    } catch (err) {
      if (err instanceof TransactionNotFoundError) return null;
      throw err;
    }
  }
  async function receiptOrNull(hash: Hex): Promise<TransactionReceipt | null> {
    try {
      return await reader.getTransactionReceipt({ hash });
    } catch (err) {
      if (err instanceof TransactionReceiptNotFoundError) return null;
      throw err;
    }
  }
  /** Sends our signed bytes again (same hash): a dropped transaction comes back, a known one is a no-op. */
  async function rebroadcast(tx: SignedTx): Promise<void> {
    await writer.sendRawTransaction({ serializedTransaction: tx.raw }).catch(() => undefined);
  }
  const nonceOf = (tx: SignedTx): number => parseTransaction(tx.raw).nonce ?? -1;

  async function relay(auth: Eip3009Authorization, expect: AuthorizationExpectation, onSigned?: OnSigned) {
    const nowSeconds = BigInt(Math.floor(clock.now().getTime() / 1000));
    const minValiditySeconds = BigInt(cfg.minValiditySeconds ?? 6);
    const msg = checkAuthorizationTerms(auth, expect, { recipient, nowSeconds, minValiditySeconds });
    await verifyAuthorizationSignature(auth, domain);

    // Pre-check so a replay costs a read, not a reverted transaction's gas.
    const isUsed = await callRpc('read authorizationState', () =>
      reader.readContract({ address: asset, abi: USDC_ABI, functionName: 'authorizationState', args: [msg.from, msg.nonce] }),
    );
    if (isUsed) throw new PaymentProblem('verification-failed', 'This payment authorization has already been used or cancelled.');

    const { r, s, yParity } = parseSignature(auth.signature);
    const call: Call = {
      address: asset,
      abi: USDC_ABI,
      functionName: 'transferWithAuthorization',
      // v normalised to 27/28: some signers emit 0/1, which the token's ecrecover refuses.
      args: [msg.from, msg.to, msg.value, msg.validAfter, msg.validBefore, msg.nonce, 27 + yParity, r, s],
    };
    const tx = await sendSigned(call, classifyRelayError, onSigned);
    return { tx, payer: getAddress(msg.from) };
  }

  async function confirm(tx: SignedTx, auth: Eip3009Authorization): Promise<void> {
    let receipt: TransactionReceipt;
    try {
      receipt = await reader.waitForTransactionReceipt({ hash: tx.hash, confirmations, timeout: receiptTimeoutMs });
    } catch (err) {
      // Not a PaymentProblem: the transaction may still be mined; reconciliation looks it up by hash.
      throw new Error(`chain rail: no receipt for payment transaction ${tx.hash} in time`, { cause: err });
    }
    // viem follows a replacement (same nonce) to its receipt: that is not our relay's outcome.
    if (receipt.transactionHash.toLowerCase() !== tx.hash.toLowerCase()) throw new Error(`chain rail: payment transaction ${tx.hash} was replaced`);
    if (receipt.status !== 'success') throw revertedReceiptProblem(tx.hash);
    if (!isTransferLogged(receipt, { from: auth.from, to: recipient, value: BigInt(auth.value) })) {
      throw new SettlementAnomaly(`chain rail: transaction ${tx.hash} succeeded without the expected Transfer log; check tokenAddress`);
    }
  }

  async function settle(auth: Eip3009Authorization, expect: AuthorizationExpectation, onSigned?: OnSigned) {
    const { tx, payer } = await relay(auth, expect, onSigned);
    await confirm(tx, auth);
    return { txHash: tx.hash, payer };
  }

  async function checkSettlement(l: SettlementLookup): Promise<SettlementStatus> {
    return callRpc('reconcile a payment', async () => {
      // Order matters: a nonce count and a block read BEFORE the receipt and the token state, so
      // "no receipt" and "unused" are facts about a chain at least that far along.
      const minedNonce = l.tx ? await reader.getTransactionCount({ address: relayer.address, blockTag: 'latest' }) : 0;
      const head = await reader.getBlock({ blockTag: 'latest' });
      const receipt = l.tx ? await receiptOrNull(l.tx.hash) : null;
      if (receipt?.status === 'success') {
        return isTransferLogged(receipt, { from: l.from, to: recipient, value: l.value })
          ? { status: 'settled', txHash: receipt.transactionHash }
          : { status: 'anomaly', reason: `transaction ${receipt.transactionHash} succeeded without the expected Transfer log` };
      }
      const isUsed = await reader.readContract({ address: asset, abi: USDC_ABI, functionName: 'authorizationState', args: [l.from, l.nonce] });
      if (isUsed) return findUse(l);
      if (receipt) return { status: 'failed', reason: `relay ${receipt.transactionHash} reverted; the authorization is unused` };
      if (!l.tx) return { status: 'failed', reason: 'no relay was ever broadcast; the authorization is unused' };
      // Block timestamps never go back: once the head is at validBefore, no block can use it.
      if (head.timestamp >= l.validBefore) return { status: 'failed', reason: 'the authorization expired unused' };
      if (await isKnown(l.tx.hash)) return { status: 'unknown', reason: `relay ${l.tx.hash} is not mined yet` };
      if (minedNonce > nonceOf(l.tx)) return { status: 'failed', reason: `relay ${l.tx.hash} was dropped (its nonce went to another transaction)` };
      await rebroadcast(l.tx);
      return { status: 'unknown', reason: `relay ${l.tx.hash} was unknown to the node; sent again` };
    });
  }

  /** The authorization is used or cancelled, not by a transaction of ours we know of: find which. */
  async function findUse(l: SettlementLookup): Promise<SettlementStatus> {
    const latest = await reader.getBlockNumber();
    const range = { fromBlock: latest > logWindow ? latest - logWindow : 0n, toBlock: latest };
    const args = { authorizer: l.from, nonce: l.nonce };
    const [used] = await reader.getContractEvents({ address: asset, abi: USDC_ABI, eventName: 'AuthorizationUsed', args, ...range });
    if (used?.transactionHash) {
      // Only our own relay of this very consumption settles it. A transaction we did not relay
      // for it (another payment's relay that carried the same authorization, or a third party's)
      // is never taken as this payment: booking it could pay two things with one transfer.
      if (l.tx && used.transactionHash.toLowerCase() === l.tx.hash.toLowerCase()) {
        const r = await receiptOrNull(used.transactionHash);
        if (r?.status === 'success' && isTransferLogged(r, { from: l.from, to: recipient, value: l.value }))
          return { status: 'settled', txHash: used.transactionHash };
      }
      return {
        status: 'anomaly',
        reason: `the authorization was used by transaction ${used.transactionHash}, not by this payment's relay${l.tx ? ` ${l.tx.hash}` : ''}; not booked as this payment`,
      };
    }
    const [cancelled] = await reader.getContractEvents({ address: asset, abi: USDC_ABI, eventName: 'AuthorizationCanceled', args, ...range });
    if (cancelled) return { status: 'failed', reason: 'the payer cancelled the authorization' };
    return { status: 'anomaly', reason: `the authorization is used, but no AuthorizationUsed event in the last ${logWindow} blocks` };
  }

  async function sendRefund(to: Hex, amount: bigint, onSigned?: OnSigned): Promise<SignedTx> {
    if (!isAddress(to) || amount <= 0n) throw new Error('chain rail: refund needs a valid address and a positive amount');
    const call: Call = { address: asset, abi: USDC_ABI, functionName: 'transfer', args: [to, amount] };
    return sendSigned(
      call,
      (err) => new Error('chain rail: estimate refund failed (RPC unreachable, or a misconfigured token/relayer)', { cause: err }),
      onSigned,
    );
  }

  async function checkRefund(tx: SignedTx, want: { to: Hex; amount: bigint }): Promise<RefundStatus> {
    return callRpc('reconcile a refund', async () => {
      const minedNonce = await reader.getTransactionCount({ address: relayer.address, blockTag: 'latest' });
      const receipt = await receiptOrNull(tx.hash);
      if (receipt) return refundOutcome(receipt, want);
      if (await isKnown(tx.hash)) return { status: 'unknown', reason: `refund ${tx.hash} is not mined yet` };
      if (minedNonce > nonceOf(tx)) return { status: 'resend', reason: `refund ${tx.hash} was dropped (its nonce went to another transaction)` };
      await rebroadcast(tx);
      return { status: 'unknown', reason: `refund ${tx.hash} was unknown to the node; sent again` };
    });
  }

  function refundOutcome(receipt: TransactionReceipt, want: { to: Hex; amount: bigint }): RefundStatus {
    if (receipt.status !== 'success') return { status: 'resend', reason: `refund ${receipt.transactionHash} reverted` };
    return isTransferLogged(receipt, { from: recipient, to: want.to, value: want.amount })
      ? { status: 'done', txHash: receipt.transactionHash }
      : { status: 'anomaly', reason: `refund ${receipt.transactionHash} succeeded without the expected Transfer log` };
  }

  async function awaitRefund(tx: SignedTx, want: { to: Hex; amount: bigint }): Promise<RefundStatus> {
    try {
      const receipt = await reader.waitForTransactionReceipt({ hash: tx.hash, confirmations, timeout: receiptTimeoutMs });
      if (receipt.transactionHash.toLowerCase() === tx.hash.toLowerCase()) return refundOutcome(receipt, want);
    } catch {
      // fall through: decide without waiting
    }
    return checkRefund(tx, want);
  }

  async function refund(to: Hex, amount: bigint, onSigned?: OnSigned) {
    const tx = await sendRefund(to, amount, onSigned);
    const outcome = await awaitRefund(tx, { to, amount });
    if (outcome.status !== 'done') throw new Error(`chain rail: refund transaction ${tx.hash}: ${outcome.reason}`);
    return { txHash: tx.hash };
  }

  /** A success status alone does not prove *our* transfer happened (a wrong tokenAddress could
   * point at any contract that accepts the call), so require the token's own Transfer log. */
  function isTransferLogged(receipt: TransactionReceipt, want: { from: Hex; to: Hex; value: bigint }): boolean {
    const transfers = parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: receipt.logs });
    return transfers.some(
      (log) =>
        isAddressEqual(log.address, asset) && isAddressEqual(log.args.from, want.from) && isAddressEqual(log.args.to, want.to) && log.args.value === want.value,
    );
  }

  const balanceOf = (addr: Hex) =>
    callRpc('read balanceOf', () => reader.readContract({ address: asset, abi: USDC_ABI, functionName: 'balanceOf', args: [addr] }));

  return {
    network: `eip155:${cfg.chainId}`,
    asset,
    recipient,
    domain: { name: cfg.tokenName, version: cfg.tokenVersion },
    get receiptTimeoutMs() {
      return receiptTimeoutMs;
    },
    set receiptTimeoutMs(ms: number) {
      receiptTimeoutMs = ms;
    },
    relay,
    confirm,
    settle,
    checkSettlement,
    sendRefund,
    awaitRefund,
    checkRefund,
    refund,
    balanceOf,
  };
}

/** The node answered the broadcast with a JSON-RPC error (it refused it); a timeout or a lost connection is not that. */
function isNodeRefusal(err: unknown): boolean {
  return err instanceof BaseError && err.walk((e) => e instanceof RpcRequestError) instanceof RpcRequestError;
}

/** Failures here are ours, not the payer's: a plain Error naming the step; viem's error (with
 * the RPC URL in it) stays in `cause` for the logs. */
async function callRpc<T>(step: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new Error(`chain rail: ${step} failed; see cause (RPC unreachable, or a misconfigured token/relayer)`, { cause: err });
  }
}
