// Test-only control routes under /__fake (JSON in, JSON out, no API key): what a paying
// customer, an agent granting a token, a flaky network or the Stripe dashboard would do.
import type { FakeContext } from './context.ts';
import { FakeStripeError, invalidParam, noSuch } from './errors.ts';
import { completeCheckoutSession, getSession } from './resources/checkout-sessions.ts';
import type { Fault } from './state.ts';
import { addWebhookEndpoint, deliverEvent } from './webhooks.ts';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** POST /__fake/checkout/sessions/:id/pay `{payment_method?: 'pm_card_visa'}` */
export async function payCheckoutSession(ctx: FakeContext) {
  const session = getSession(ctx);
  const { intent, event } = completeCheckoutSession(ctx, session, str(ctx.req.json['payment_method']) ?? 'pm_card_visa');
  const deliveries = await deliverEvent(ctx, event);
  return { session, payment_intent: intent, event_id: event.id, deliveries };
}

/** POST /__fake/webhook_endpoints `{url, secret?, enabled_events?}` → `{id, url, secret, enabled_events}` */
export function createWebhookEndpoint(ctx: FakeContext) {
  const url = str(ctx.req.json['url']);
  if (!url) throw invalidParam('url is required', 'parameter_missing', 'url');
  const events = ctx.req.json['enabled_events'];
  return addWebhookEndpoint(ctx, {
    url,
    ...(str(ctx.req.json['secret']) && { secret: str(ctx.req.json['secret']) as string }),
    ...(Array.isArray(events) && { enabled_events: events.map(String) }),
  });
}

/** DELETE /__fake/webhook_endpoints/:id */
export function deleteWebhookEndpoint(ctx: FakeContext) {
  const id = ctx.req.params['id'] as string;
  const index = ctx.state.webhookEndpoints.findIndex((e) => e.id === id);
  if (index === -1) throw noSuch('webhook_endpoint', id, 'id');
  ctx.state.webhookEndpoints.splice(index, 1);
  return { id, deleted: true };
}

/** POST /__fake/events/:id/deliver `{timestamp?}`: Stripe's "resend", optionally signed at another time. */
export async function redeliverEvent(ctx: FakeContext) {
  const id = ctx.req.params['id'] as string;
  const event = ctx.state.events.find((e) => e.id === id);
  if (!event) throw noSuch('event', id, 'id');
  const t = ctx.req.json['timestamp'];
  return { deliveries: await deliverEvent(ctx, event, typeof t === 'number' ? { timestampSec: t } : {}) };
}

export interface FaultInput {
  /** HTTP status to answer @default 500 */
  status?: number;
  /** destroy the connection instead (a network failure) @default false */
  drop?: boolean;
  /** how many matching requests fail @default 1 */
  count?: number;
  /** only requests whose path starts with this @default '/v1/' */
  path_prefix?: string;
  /** only this method @default any */
  method?: string;
}

/** POST /__fake/faults: the next matching /v1 requests fail before reaching any handler. */
export function injectFault(ctx: Pick<FakeContext, 'state'>, input: FaultInput): Fault {
  const status = input.status ?? 500;
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw new FakeStripeError({ status: 400, type: 'invalid_request_error', message: 'status must be a 4xx or 5xx code' });
  }
  const fault: Fault = {
    status,
    drop: input.drop ?? false,
    remaining: input.count ?? 1,
    pathPrefix: input.path_prefix ?? '/v1/',
    method: input.method?.toUpperCase() ?? null,
  };
  ctx.state.faults.push(fault);
  return fault;
}

/** Takes one use of the first fault matching this request, if any. */
export function takeFault(ctx: Pick<FakeContext, 'state'>, method: string, path: string): Fault | null {
  const fault = ctx.state.faults.find((f) => f.remaining > 0 && path.startsWith(f.pathPrefix) && (f.method === null || f.method === method));
  if (!fault) return null;
  fault.remaining -= 1;
  if (fault.remaining === 0) ctx.state.faults.splice(ctx.state.faults.indexOf(fault), 1);
  return fault;
}
