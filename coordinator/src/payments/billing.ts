import { privateKeyToAccount } from 'viem/accounts';
import type { CoordinatorConfig } from '../config.ts';
import type { Db } from '../db/database.ts';
import type { Clock } from '../lib/clock.ts';
import { createCardRail, type CardRail } from './rails/card-rail.ts';
import { createChainRail, type ChainRail } from './rails/chain-rail.ts';
import { pgRelayerTurns } from './rails/relayer-turns.ts';

/** The payment side of one coordinator: null rails are not configured. */
export interface Billing {
  enabled: boolean;
  realm: string;
  challengeSecret: string;
  challengeTtlSeconds: number;
  chain: (ChainRail & { chainId: number }) | null;
  card: CardRail | null;
  /** Card network profile for the MPP `stripe` method; null → only hosted checkout for cards. */
  cardNetworkId: string | null;
}

/** `db`: the relayer's turns and nonces are shared through it by every coordinator on that database (relayer-turns.ts). */
export function createBilling(config: CoordinatorConfig, clock: Clock, db?: Db): Billing {
  const realm = config.PAYMENT_REALM ?? new URL(config.publicBaseUrl).host;
  const chain =
    config.CHAIN_RPC_URL && config.CHAIN_TOKEN_ADDRESS && config.CHAIN_RELAYER_KEY
      ? (() => {
          const rail = createChainRail({
            rpcUrl: config.CHAIN_RPC_URL,
            chainId: config.CHAIN_ID,
            tokenAddress: config.CHAIN_TOKEN_ADDRESS as `0x${string}`,
            tokenName: config.CHAIN_TOKEN_NAME,
            tokenVersion: config.CHAIN_TOKEN_VERSION,
            recipient: (config.CHAIN_RECIPIENT as `0x${string}` | undefined) ?? relayerAddress(config.CHAIN_RELAYER_KEY as `0x${string}`),
            relayerPrivateKey: config.CHAIN_RELAYER_KEY as `0x${string}`,
            clock,
            ...(db && { turns: (address: `0x${string}`) => pgRelayerTurns(db, { chainId: config.CHAIN_ID, address }) }),
          });
          return Object.assign(rail, { chainId: config.CHAIN_ID });
        })()
      : null;
  const card =
    config.CARD_SECRET_KEY && config.CARD_WEBHOOK_SECRET
      ? createCardRail({
          secretKey: config.CARD_SECRET_KEY,
          webhookSecret: config.CARD_WEBHOOK_SECRET,
          clock,
          api: config.CARD_API_BASE ? apiOf(config.CARD_API_BASE) : undefined,
          successUrl: config.CHECKOUT_SUCCESS_URL ?? `${config.publicBaseUrl}/api/v1/checkout/complete?session_id={CHECKOUT_SESSION_ID}`,
          cancelUrl: config.CHECKOUT_CANCEL_URL ?? `${config.publicBaseUrl}/api/v1/checkout/cancelled`,
        })
      : null;
  return {
    enabled: config.billingEnabled,
    realm,
    challengeSecret: config.PAYMENT_CHALLENGE_SECRET ?? '',
    challengeTtlSeconds: config.PAYMENT_CHALLENGE_TTL_SECONDS,
    chain,
    card,
    cardNetworkId: config.CARD_NETWORK_ID ?? null,
  };
}

/** The relayer receives payments too: it must control the funds it refunds from. */
function relayerAddress(key: `0x${string}`): `0x${string}` {
  return privateKeyToAccount(key).address;
}

function apiOf(base: string): { host: string; port: number; protocol: 'http' | 'https' } {
  const u = new URL(base);
  const protocol = u.protocol === 'http:' ? 'http' : 'https';
  return { host: u.hostname, port: Number(u.port || (protocol === 'http' ? 80 : 443)), protocol };
}
