// The chain rail (MPP method `evm`, x402 `exact`): verifies an EIP-3009 USDC authorization,
// relays transferWithAuthorization from our relayer account (we pay gas), and refunds.
// Replay safety lives in the token: the nonce is bound to the challenge and the contract marks it
// used, so two replicas racing one credential settle it at most once.
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getAddress,
  http,
  isAddress,
  isAddressEqual,
  nonceManager,
  parseEventLogs,
  parseSignature,
  type Hex,
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { systemClock, type Clock } from '../../lib/clock.ts';
import { PaymentProblem } from '../types.ts';
import { checkAuthorizationTerms, verifyAuthorizationSignature, type AuthorizationExpectation } from './authorization-checks.ts';
import type { Eip3009Authorization, TokenDomain } from './eip3009.ts';
import { classifyRelayError, revertedReceiptProblem } from './relay-errors.ts';
import { runSerially } from './relayer-queue.ts';
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
  /** give up waiting for a receipt after this long (the tx may still land). @default 60_000 */
  receiptTimeoutMs?: number;
  /** @default systemClock */
  clock?: Clock;
}

export interface ChainRail {
  /** CAIP-2 id, `eip155:<chainId>` */
  network: string;
  asset: Hex;
  recipient: Hex;
  domain: { name: string; version: string };
  /** Verifies, relays and confirms one authorization. Refusals are PaymentProblems; RPC trouble
   * is a plain Error (→ 503). Exactly-once is the token's job: a replay reverts. */
  settle(auth: Eip3009Authorization, expect: AuthorizationExpectation): Promise<{ txHash: Hex; payer: Hex }>;
  /** Sends `amount` back to `to` from the recipient/relayer account; returns the tx hash. */
  refund(to: Hex, amount: bigint): Promise<{ txHash: Hex }>;
  balanceOf(addr: Hex): Promise<bigint>;
}

export function createChainRail(cfg: ChainRailConfig): ChainRail {
  // viem's shared nonceManager tracks relayer nonces locally (an RPC's "pending" count can lag);
  // runSerially below keeps a failed send from leaving a nonce gap.
  const relayer = privateKeyToAccount(cfg.relayerPrivateKey, { nonceManager });
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
  const receiptTimeoutMs = cfg.receiptTimeoutMs ?? 60_000;

  /** Estimates first, so a call the token would refuse fails before it takes a nonce, then
   * broadcasts with 20 % gas headroom (state may shift between estimate and inclusion). */
  function sendSerially(estimate: () => Promise<bigint>, write: (gas: bigint) => Promise<Hex>): Promise<Hex> {
    return runSerially(`${cfg.chainId}:${relayer.address}`, async () => write(((await estimate()) * 12n) / 10n));
  }

  async function awaitReceipt(hash: Hex, what: string): Promise<TransactionReceipt> {
    try {
      return await reader.waitForTransactionReceipt({ hash, confirmations, timeout: receiptTimeoutMs });
    } catch (err) {
      // Not a PaymentProblem: the transaction may still be mined; whoever retries must look it up.
      throw new Error(`chain rail: no receipt for ${what} transaction ${hash}`, { cause: err });
    }
  }

  async function settle(auth: Eip3009Authorization, expect: AuthorizationExpectation) {
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
    const call = {
      address: asset,
      abi: USDC_ABI,
      functionName: 'transferWithAuthorization',
      // v normalised to 27/28: some signers emit 0/1, which the token's ecrecover refuses.
      args: [msg.from, msg.to, msg.value, msg.validAfter, msg.validBefore, msg.nonce, 27 + yParity, r, s],
    } as const;
    let txHash: Hex;
    try {
      txHash = await sendSerially(
        () => reader.estimateContractGas({ ...call, account: relayer }),
        (gas) => writer.writeContract({ ...call, gas }),
      );
    } catch (err) {
      throw classifyRelayError(err);
    }
    const receipt = await awaitReceipt(txHash, 'payment');
    if (receipt.status !== 'success') throw revertedReceiptProblem(txHash);
    assertTransferLogged(receipt, { from: msg.from, to: recipient, value: msg.value });
    return { txHash, payer: getAddress(msg.from) };
  }

  /** A success status alone does not prove *our* transfer happened (a wrong tokenAddress could
   * point at any contract that accepts the call), so require the token's own Transfer log. */
  function assertTransferLogged(receipt: TransactionReceipt, want: { from: Hex; to: Hex; value: bigint }): void {
    const transfers = parseEventLogs({ abi: USDC_ABI, eventName: 'Transfer', logs: receipt.logs });
    const isFound = transfers.some(
      (log) =>
        isAddressEqual(log.address, asset) && isAddressEqual(log.args.from, want.from) && isAddressEqual(log.args.to, want.to) && log.args.value === want.value,
    );
    if (!isFound) {
      throw new Error(`chain rail: transaction ${receipt.transactionHash} succeeded without the expected Transfer log; check tokenAddress`);
    }
  }

  async function refund(to: Hex, amount: bigint) {
    if (!isAddress(to) || amount <= 0n) throw new Error('chain rail: refund needs a valid address and a positive amount');
    const call = { address: asset, abi: USDC_ABI, functionName: 'transfer', args: [to, amount] } as const;
    const txHash = await callRpc('send refund', () =>
      sendSerially(
        () => reader.estimateContractGas({ ...call, account: relayer }),
        (gas) => writer.writeContract({ ...call, gas }),
      ),
    );
    const receipt = await awaitReceipt(txHash, 'refund');
    if (receipt.status !== 'success') throw new Error(`chain rail: refund transaction ${txHash} reverted`);
    return { txHash };
  }

  const balanceOf = (addr: Hex) =>
    callRpc('read balanceOf', () => reader.readContract({ address: asset, abi: USDC_ABI, functionName: 'balanceOf', args: [addr] }));

  return { network: `eip155:${cfg.chainId}`, asset, recipient, domain: { name: cfg.tokenName, version: cfg.tokenVersion }, settle, refund, balanceOf };
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
