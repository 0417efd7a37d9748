// Webhook delivery: a signed POST of the event to every endpoint that wants its type. Stripe
// sends the event pretty-printed (two-space JSON); we do too, so a receiver that verifies a
// re-serialized body instead of the raw bytes fails here as it would in production.
// Stripe delivers asynchronously and retries for days; the fake delivers when asked (the pay
// control route, session expiry, or an explicit redelivery) and reports each attempt.
import { endpointWants } from './events.ts';
import { nowSec, type FakeContext } from './context.ts';
import { signatureHeader } from './signature.ts';
import { newId, type Delivery, type StripeEvent, type WebhookEndpoint } from './state.ts';

export async function deliverEvent(ctx: FakeContext, event: StripeEvent, opts: { timestampSec?: number } = {}): Promise<Delivery[]> {
  const targets = ctx.state.webhookEndpoints.filter((e) => endpointWants(e.enabled_events, event.type));
  const payload = JSON.stringify(event, null, 2);
  return Promise.all(targets.map((endpoint) => deliverOne(ctx, endpoint, event.id, payload, opts.timestampSec ?? nowSec(ctx))));
}

async function deliverOne(ctx: FakeContext, endpoint: WebhookEndpoint, eventId: string, payload: string, t: number): Promise<Delivery> {
  const signature = signatureHeader(payload, endpoint.secret, t);
  const delivery: Delivery = {
    event_id: eventId,
    endpoint_id: endpoint.id,
    url: endpoint.url,
    status: null,
    ok: false,
    error: null,
    signature,
    at: ctx.settings.now(),
  };
  try {
    const res = await fetch(endpoint.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json; charset=utf-8',
        'stripe-signature': signature,
        'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      },
      body: payload,
      signal: AbortSignal.timeout(ctx.settings.webhookTimeoutMs),
    });
    await res.arrayBuffer(); // drain, so the connection is released
    delivery.status = res.status;
    delivery.ok = res.status >= 200 && res.status < 300; // Stripe counts any 2xx as delivered
  } catch (err) {
    delivery.error = err instanceof Error ? err.message : String(err);
  }
  ctx.state.deliveries.push(delivery);
  return delivery;
}

export interface WebhookEndpointInput {
  url: string;
  /** @default a fresh `whsec_…` */
  secret?: string;
  /** @default ['*'] */
  enabled_events?: string[];
}

export function addWebhookEndpoint(ctx: Pick<FakeContext, 'state'>, input: WebhookEndpointInput): WebhookEndpoint {
  const endpoint: WebhookEndpoint = {
    id: newId('we'),
    url: input.url,
    secret: input.secret ?? newId('whsec', 32),
    enabled_events: input.enabled_events ?? ['*'],
  };
  ctx.state.webhookEndpoints.push(endpoint);
  return endpoint;
}
