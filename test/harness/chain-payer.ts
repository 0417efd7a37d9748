// A payer on the stack's chain, using only stock clients: mppx's client (`evm` method) and
// @x402/core's x402HTTPClient with @x402/evm's exact scheme. Signing is local (viem account);
// settlement is the service's job, checked here on the real anvil chain.
import { x402Client, x402HTTPClient } from '@x402/core/client';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { Receipt } from 'mppx';
import { evm, Mppx } from 'mppx/client';
import { createPublicClient, erc20Abi, http, parseEventLogs, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { TEST_USDC_DOMAIN } from '../fixtures/index.ts';
import type { BillingFixture } from './stack.ts';

export function chainPayer(billing: BillingFixture) {
  const account = privateKeyToAccount(billing.payer.privateKey);
  const chain = createPublicClient({ transport: http(billing.anvil.rpcUrl) });
  // The token's EIP-712 domain is not on the MPP wire: a stock client is configured with it.
  const mppx = Mppx.create({ methods: [evm({ account, authorization: TEST_USDC_DOMAIN })], polyfill: false });
  /** Every credential the stock fetch wrapper sent, newest last (for replay cases). */
  const sent: string[] = [];
  mppx.onCredentialCreated(({ credential }) => {
    sent.push(credential);
  });
  // x402's client pays only assets it knows by default (mainnet USDC…); the test token is opted in.
  const x402 = new x402HTTPClient(
    registerExactEvmScheme(new x402Client(), { signer: account }).setSpendControls({
      allowedAssets: [{ network: `eip155:${billing.anvil.chainId}`, asset: billing.token, maxAmountPerPayment: '1000000' }],
    }),
  );

  return {
    address: account.address,
    mppx,
    sent,
    /** Test USDC balance (6-decimal base units). */
    balanceOf: (who: Hex) => chain.readContract({ address: billing.token, abi: erc20Abi, functionName: 'balanceOf', args: [who] }),
    /** Transfer events of the token in a mined transaction (throws if it is unknown). */
    async transfersIn(txHash: Hex) {
      const receipt = await chain.getTransactionReceipt({ hash: txHash });
      return parseEventLogs({ abi: erc20Abi, eventName: 'Transfer', logs: receipt.logs })
        .filter((l) => l.address.toLowerCase() === billing.token.toLowerCase())
        .map((l) => l.args);
    },
    /** The stock x402 v2 client's PAYMENT-SIGNATURE for the PAYMENT-REQUIRED of a 402 (read before its body is). */
    async signX402(res: Response): Promise<string> {
      if (res.status !== 402) throw new Error(`expected a 402, got ${res.status}`);
      const required = x402.getPaymentRequiredResponse((n) => res.headers.get(n), await res.json());
      const payload = await x402.createPaymentPayload(required);
      return x402.encodePaymentSignatureHeader(payload)['PAYMENT-SIGNATURE']!;
    },
    /** The stock x402 v2 round trip: read PAYMENT-REQUIRED off a 402, sign, retry with PAYMENT-SIGNATURE. */
    async payX402(url: string, init: RequestInit = {}) {
      const first = await fetch(url, init);
      if (first.status !== 402) throw new Error(`expected 402 from ${url}, got ${first.status}`);
      const header = await this.signX402(first);
      const headers = new Headers(init.headers);
      headers.set('PAYMENT-SIGNATURE', header);
      const res = await fetch(url, { ...init, headers });
      const settle = res.ok ? x402.getPaymentSettleResponse((n) => res.headers.get(n)) : null;
      return { res, settle, header };
    },
  };
}

/** Decodes a `Payment-Receipt` header with mppx's own parser. */
export const decodeReceipt = (header: string | null) => Receipt.deserialize(header ?? '');
