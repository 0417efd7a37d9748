/**
 * Local payment counterparts for trying billing by hand: anvil with the EIP-3009 test token
 * (a payer funded with 100 USDC) and the stateful card-processor fake. Prints the environment
 * to start cutroom with; stays up until Ctrl-C.
 *   bash scripts/run-node.sh scripts/dev-payments.ts [coordinator-base-url]
 */
import { startAnvil } from '../test/fixtures/anvil.ts';
import { deployTestUsdc, mintUsdc } from '../test/fixtures/test-usdc.ts';
import { startStripeFake } from '../test/fakes/stripe/index.ts';

const base = process.argv[2] ?? 'http://127.0.0.1:8080';
const [anvil, stripe] = await Promise.all([startAnvil(), startStripeFake()]);
const [owner, relayer, payer] = anvil.accounts;
const { address: token } = await deployTestUsdc(anvil.rpcUrl, owner!.privateKey);
await mintUsdc(anvil.rpcUrl, owner!.privateKey, token, payer!.address, 100_000_000n);
const webhookSecret = 'whsec_dev_cutroom_0123456789';
stripe.addWebhookEndpoint({ url: `${base}/api/v1/webhooks/card`, secret: webhookSecret });
const env = {
  PAYMENT_CHALLENGE_SECRET: 'dev-challenge-secret-0123456789abcdef',
  CHAIN_RPC_URL: anvil.rpcUrl,
  CHAIN_ID: String(anvil.chainId),
  CHAIN_TOKEN_ADDRESS: token,
  CHAIN_RELAYER_KEY: relayer!.privateKey,
  CARD_SECRET_KEY: stripe.secretKey,
  CARD_WEBHOOK_SECRET: webhookSecret,
  CARD_API_BASE: stripe.url,
  CARD_NETWORK_ID: 'profile_dev',
};
console.log(
  Object.entries(env)
    .map(([k, v]) => `export ${k}=${v}`)
    .join('\n'),
);
console.log(`# payer: ${payer!.address} (key ${payer!.privateKey}), 100 test USDC`);
console.log(`# pay a hosted checkout: curl -X POST ${stripe.url}/__fake/checkout/sessions/<cs_id>/pay`);
await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
await Promise.all([anvil.stop(), stripe.stop()]);
