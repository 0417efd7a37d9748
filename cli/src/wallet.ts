import type { Api } from './api-client.ts';
import type { Settings } from './config.ts';
import { CliError, EXIT } from './errors.ts';

export interface ChainPayment {
  /** "0.20 USDC" */
  display: string;
  /** The amount in the token's base units (6 decimals for USDC). */
  atomic: bigint;
  decimals: number;
  payer: string;
  /** The `Payment …` Authorization value (signed locally; nothing is sent until the call is repeated with it). */
  credential(): Promise<string>;
}

interface EvmRequest {
  amount: string;
  currency: string;
  methodDetails?: { chainId?: number; decimals?: number };
}

/** The token's EIP-712 domain fallback: USDC's own ("USD Coin", version 2), as on Base. */
const DEFAULT_DOMAIN = { name: 'USD Coin', version: '2' };

/** "0.2" USDC with 6 decimals → 200000n; null when unreadable. */
export function toAtomic(amount: string, decimals: number): bigint | null {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m || (m[2]?.length ?? 0) > decimals) return null;
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt((m[2] ?? '').padEnd(decimals, '0') || '0');
}

/** 200000n with 6 decimals → "0.20" (at least two decimals). */
export function fromAtomic(units: bigint, decimals: number): string {
  const s = units.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s
    .slice(s.length - decimals)
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${whole}.${frac}`;
}

/**
 * The price the 402 asks, for a message: "0.20 USDC (chain) or 0.50 USD (card)"; null when the
 * challenges cannot be read.
 */
export async function describeOffer(res: Response): Promise<string | null> {
  challengeModule ??= await import('mppx');
  const parts: string[] = [];
  for (const ch of challengesOf(res)) {
    const req = ch.request as { amount?: string; currency?: string; methodDetails?: { decimals?: number } };
    if (!req.amount) continue;
    if (ch.method === 'evm') parts.push(`${fromAtomic(BigInt(req.amount), req.methodDetails?.decimals ?? 6)} USDC (chain)`);
    else if (ch.method === 'stripe') parts.push(`${fromAtomic(BigInt(req.amount), 2)} ${(req.currency ?? 'usd').toUpperCase()} (card)`);
  }
  return parts.length ? parts.join(' or ') : null;
}

type ParsedChallenge = { method: string; request: unknown };
let challengeModule: typeof import('mppx') | undefined;

function challengesOf(res: Response): ParsedChallenge[] {
  try {
    return challengeModule ? (challengeModule.Challenge.fromResponseList(res) as ParsedChallenge[]) : [];
  } catch {
    return [];
  }
}

/**
 * Prepares paying a 402 on the chain rail with the stock mppx client (`evm` method, EIP-3009
 * authorization signed by the local key), as test/harness/chain-payer.ts does. Null when the
 * response offers no `evm` challenge. The token's EIP-712 domain is not on the MPP wire; it is
 * taken from CUTROOM_TOKEN_NAME / CUTROOM_TOKEN_VERSION, else from the 402's x402 offer
 * (`accepts[].extra`), else from /.well-known/mpp.json (`rails[].eip712`), else USDC's own.
 */
export async function chainPayment(api: Api, settings: Settings, res: Response): Promise<ChainPayment | null> {
  // Loaded on first payment only: mppx and viem are large and a free job never needs them.
  challengeModule ??= await import('mppx');
  const [{ Mppx, evm }, { privateKeyToAccount }] = await Promise.all([import('mppx/client'), import('viem/accounts')]);
  const evmChallenge = challengesOf(res).find((c) => c.method === 'evm');
  if (!evmChallenge) return null;
  const request = evmChallenge.request as EvmRequest;
  const decimals = request.methodDetails?.decimals ?? 6;
  const amount = BigInt(request.amount);
  const max = toAtomic(settings.maxPayment, decimals) ?? 0n;
  const display = `${fromAtomic(amount, decimals)} USDC`;
  if (amount > max) {
    throw new CliError(
      EXIT.payment,
      `the service asks ${display}, more than CUTROOM_MAX_PAYMENT (${settings.maxPayment} USDC)`,
      'raise CUTROOM_MAX_PAYMENT to pay it',
    );
  }
  const domain = await tokenDomain(api, settings, res, request.currency);
  const account = privateKeyToAccount(settings.walletKey!);
  const mppx = Mppx.create({ methods: [evm({ account, authorization: domain, maxAtomicAmount: String(max) })], polyfill: false });
  return {
    display,
    atomic: amount,
    decimals,
    payer: account.address,
    async credential() {
      try {
        return await mppx.createCredential(res);
      } catch (err) {
        throw new CliError(EXIT.payment, `could not sign the payment: ${(err as Error).message.split('\n')[0]}`);
      }
    },
  };
}

async function tokenDomain(api: Api, settings: Settings, res: Response, currency: string): Promise<{ name: string; version: string }> {
  const env = settings.tokenDomain;
  if (env.name && env.version) return { name: env.name, version: env.version };
  const learned = fromX402Offer(res.headers.get('payment-required'), currency) ?? (await fromMppDocument(api, currency));
  return { name: env.name ?? learned?.name ?? DEFAULT_DOMAIN.name, version: env.version ?? learned?.version ?? DEFAULT_DOMAIN.version };
}

/** The token domain in an x402 v2 PAYMENT-REQUIRED offer (base64 JSON; `extra` of the entry for this asset) (pure). */
export function fromX402Offer(header: string | null, currency: string): { name: string; version: string } | null {
  if (!header) return null;
  try {
    const offer = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as {
      accepts?: { asset?: string; extra?: { name?: unknown; version?: unknown } }[];
    };
    const extra = offer.accepts?.find((a) => a.asset?.toLowerCase() === currency.toLowerCase())?.extra;
    return typeof extra?.name === 'string' && typeof extra.version === 'string' ? { name: extra.name, version: extra.version } : null;
  } catch {
    return null;
  }
}

async function fromMppDocument(api: Api, currency: string): Promise<{ name: string; version: string } | null> {
  try {
    const res = await api.send('GET', '/.well-known/mpp.json', { bearer: false });
    if (!res.ok) return null;
    const doc = (await res.json()) as { rails?: { method?: string; asset?: string; eip712?: { name?: unknown; version?: unknown } }[] };
    const d = doc.rails?.find((r) => r.method === 'evm' && r.asset?.toLowerCase() === currency.toLowerCase())?.eip712;
    return typeof d?.name === 'string' && typeof d.version === 'string' ? { name: d.name, version: d.version } : null;
  } catch {
    return null;
  }
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', '[::1]', 'localhost']);

/** Whether the CLI may pay a service at this URL: https, or plain http on this machine only (a credential sent in the clear can be taken and spent). */
export function isPayableUrl(url: string): boolean {
  const u = new URL(url);
  return u.protocol === 'https:' || (u.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname));
}

/** Whether one more payment of `asked` fits the job's cap after `alreadySigned` (base units; `maxPerJob` in display units). */
export function fitsJobCap(alreadySigned: bigint, asked: bigint, decimals: number, maxPerJob: string): boolean {
  return alreadySigned + asked <= (toAtomic(maxPerJob, decimals) ?? 0n);
}
