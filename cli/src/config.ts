import { homedir } from 'node:os';
import { join } from 'node:path';
import { usageError } from './errors.ts';

export const DEFAULT_URL = 'http://127.0.0.1:8080';

export type ProgressMode = 'bars' | 'plain' | 'none';

/** Everything the environment (and --url) configures. */
export interface Settings {
  baseUrl: string;
  configDir: string;
  walletKey: `0x${string}` | undefined;
  /** The token's EIP-712 domain when set in the environment (else learned from the service). */
  tokenDomain: { name: string | undefined; version: string | undefined };
  /** Most USDC (display units, "5") paid automatically for one call. */
  maxPayment: string;
  /** Most USDC paid automatically for one job, all its calls together (CUTROOM_MAX_PAYMENT_PER_JOB, default CUTROOM_MAX_PAYMENT). */
  maxPaymentPerJob: string;
  payTimeoutMs: number;
  progress: ProgressMode;
  /** `poll` skips the event stream (CUTROOM_EVENTS=poll; also the fallback when the stream fails). */
  events: 'sse' | 'poll';
}

/** Reads the settings; a bad value is a usage error (exit 2). `tty`: whether bars can be drawn. */
export function loadSettings(env: NodeJS.ProcessEnv, urlFlag: string | undefined, tty: boolean): Settings {
  const baseUrl = normalizeUrl(urlFlag ?? env.CUTROOM_URL ?? DEFAULT_URL);
  const configDir = env.CUTROOM_CONFIG_DIR || join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'cutroom');
  const key = env.CUTROOM_WALLET_KEY?.trim();
  // Never echo the key: a typo would print a secret into a terminal log.
  if (key && !/^0x[0-9a-fA-F]{64}$/.test(key))
    throw usageError('CUTROOM_WALLET_KEY must be a 0x-prefixed 32-byte hex private key', 'unset it to pay by hosted checkout');
  const maxPayment = env.CUTROOM_MAX_PAYMENT?.trim() || '5';
  if (!/^\d+(\.\d{1,6})?$/.test(maxPayment)) throw usageError(`CUTROOM_MAX_PAYMENT must be an amount of USDC like 5 or 0.50, got "${maxPayment}"`);
  const maxPaymentPerJob = env.CUTROOM_MAX_PAYMENT_PER_JOB?.trim() || maxPayment;
  if (!/^\d+(\.\d{1,6})?$/.test(maxPaymentPerJob))
    throw usageError(`CUTROOM_MAX_PAYMENT_PER_JOB must be an amount of USDC like 5 or 0.50, got "${maxPaymentPerJob}"`);
  const payTimeout = Number(env.CUTROOM_PAY_TIMEOUT ?? 900);
  if (!Number.isFinite(payTimeout) || payTimeout <= 0) throw usageError(`CUTROOM_PAY_TIMEOUT must be seconds > 0, got "${env.CUTROOM_PAY_TIMEOUT}"`);
  const progress = env.CUTROOM_PROGRESS ?? (tty ? 'bars' : 'plain');
  if (progress !== 'bars' && progress !== 'plain' && progress !== 'none') throw usageError(`CUTROOM_PROGRESS must be bars, plain or none, got "${progress}"`);
  return {
    baseUrl,
    configDir,
    walletKey: key ? (key as `0x${string}`) : undefined,
    tokenDomain: { name: env.CUTROOM_TOKEN_NAME || undefined, version: env.CUTROOM_TOKEN_VERSION || undefined },
    maxPayment,
    maxPaymentPerJob,
    payTimeoutMs: payTimeout * 1000,
    progress,
    events: env.CUTROOM_EVENTS === 'poll' ? 'poll' : 'sse',
  };
}

/** "http://host:8080/" → "http://host:8080"; anything but an http(s) URL is a usage error. */
export function normalizeUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw usageError(`not a URL: "${raw}" (CUTROOM_URL or --url)`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw usageError(`the service URL must be http or https, got "${raw}"`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}
