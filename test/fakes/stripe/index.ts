// A stateful fake of the card processor's HTTP API (Stripe), for the official `stripe` client
// pointed at it with `{host, port, protocol: 'http'}`. It keeps Checkout Sessions,
// PaymentIntents, charges, refunds, Shared Payment Tokens and events in memory, answers with
// Stripe's shapes and errors, and signs webhook deliveries as Stripe does. See routes.ts for
// the endpoints and control.ts for the test-only /__fake routes.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import type { FakeSettings } from './context.ts';
import { injectFault, type FaultInput } from './control.ts';
import { createToken, renderToken, type TokenInput } from './resources/shared-payment-tokens.ts';
import { createRequestHandler } from './server.ts';
import { createState, type FakeState, type WebhookEndpoint } from './state.ts';
import { addWebhookEndpoint, type WebhookEndpointInput } from './webhooks.ts';

export interface StripeFakeOptions {
  /** the only API key accepted @default `sk_test_fake_<random>` */
  secretKey?: string;
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** endpoints registered from the start */
  webhookEndpoints?: WebhookEndpointInput[];
  /** time source in epoch ms, for `created`, token expiry and webhook timestamps @default Date.now */
  now?: () => number;
  /** per-delivery timeout @default 5000 */
  webhookTimeoutMs?: number;
  /** smallest amount a charge or checkout total may have (Stripe: 50 for USD) @default 50 */
  minimumChargeAmount?: number;
  /** `api_version` written on events @default '2026-10-28.endive' (what stripe-node 23 sends) */
  apiVersion?: string;
}

export interface StripeFake {
  /** http://host:port */
  url: string;
  host: string;
  port: number;
  secretKey: string;
  /** live state, for assertions (do not mutate from tests) */
  state: FakeState;
  addWebhookEndpoint(input: WebhookEndpointInput): WebhookEndpoint;
  /** A Shared Payment Token as an agent would grant it; returns the granted-token object. */
  createSharedPaymentToken(input?: Partial<TokenInput>): ReturnType<typeof renderToken>;
  /** The next matching /v1 requests fail (5xx by default, or a dropped connection). */
  injectFault(input?: FaultInput): void;
  stop(): Promise<void>;
}

export async function startStripeFake(opts: StripeFakeOptions = {}): Promise<StripeFake> {
  const host = opts.host ?? '127.0.0.1';
  const secretKey = opts.secretKey ?? `sk_test_fake_${randomBytes(12).toString('hex')}`;
  const state = createState();
  const settings: FakeSettings = {
    baseUrl: '', // set once the port is known
    now: opts.now ?? Date.now,
    minimumChargeAmount: opts.minimumChargeAmount ?? 50,
    webhookTimeoutMs: opts.webhookTimeoutMs ?? 5000,
    apiVersion: opts.apiVersion ?? '2026-10-28.endive',
  };
  const handle = createRequestHandler(state, settings, secretKey);
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('[stripe-fake] request failed:', err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { type: 'api_error', message: 'The Stripe fake failed to read the request.' } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host}:${port}`;
  settings.baseUrl = url;
  for (const endpoint of opts.webhookEndpoints ?? []) addWebhookEndpoint({ state }, endpoint);

  return {
    url,
    host,
    port,
    secretKey,
    state,
    addWebhookEndpoint: (input) => addWebhookEndpoint({ state }, input),
    createSharedPaymentToken: (input = {}) => renderToken({ settings }, createToken({ state, settings }, { maxAmount: null, ...input })),
    injectFault: (input = {}) => void injectFault({ state }, input),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections(); // keep-alive sockets of the stripe client would hold close() open
      }),
  };
}

export type { FakeState, WebhookEndpoint, StripeEvent, Delivery, SharedPaymentToken } from './state.ts';
export type { WebhookEndpointInput } from './webhooks.ts';
export type { FaultInput } from './control.ts';
export { signatureHeader, computeSignature } from './signature.ts';
