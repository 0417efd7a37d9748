// Events as Stripe records them: every state change of interest becomes an `event` object
// holding a snapshot of the resource, listed newest first by GET /v1/events.
import { nowSec, type FakeContext } from './context.ts';
import { readInt, readString, rejectUnknown } from './params.ts';
import { newId, type StripeEvent } from './state.ts';
import { noSuch } from './errors.ts';

export function recordEvent(ctx: FakeContext, type: string, object: object, fromApiRequest = true): StripeEvent {
  const event: StripeEvent = {
    id: newId('evt'),
    object: 'event',
    api_version: ctx.settings.apiVersion,
    created: nowSec(ctx),
    data: { object: structuredClone(object) as Record<string, unknown> },
    livemode: false,
    pending_webhooks: ctx.state.webhookEndpoints.filter((e) => endpointWants(e.enabled_events, type)).length,
    // Events caused by a customer (paying on the hosted page) carry no API request, as on Stripe.
    request: fromApiRequest ? { id: ctx.req.id, idempotency_key: ctx.req.idempotencyKey } : { id: null, idempotency_key: null },
    type,
  };
  ctx.state.events.push(event);
  return event;
}

export const endpointWants = (enabled: string[], type: string): boolean => enabled.includes('*') || enabled.includes(type);

/** GET /v1/events: `type`, `limit` (default 10, max 100) and `starting_after` paging. */
export function listEvents(ctx: FakeContext) {
  rejectUnknown(ctx.req.body, ['type', 'limit', 'starting_after', 'ending_before', 'created', 'types', 'delivery_success']);
  const type = readString(ctx.req.body, 'type');
  const limit = Math.min(readInt(ctx.req.body, 'limit', { min: 1 }) ?? 10, 100);
  const after = readString(ctx.req.body, 'starting_after');
  let newestFirst = [...ctx.state.events].reverse();
  if (type) newestFirst = newestFirst.filter((e) => matchesType(type, e.type));
  if (after) {
    const index = newestFirst.findIndex((e) => e.id === after);
    if (index === -1) throw noSuch('event', after, 'starting_after', 400);
    newestFirst = newestFirst.slice(index + 1);
  }
  return { object: 'list', data: newestFirst.slice(0, limit), has_more: newestFirst.length > limit, url: '/v1/events' };
}

// Stripe accepts `type=checkout.session.*` wildcards.
const matchesType = (pattern: string, type: string): boolean => (pattern.endsWith('*') ? type.startsWith(pattern.slice(0, -1)) : pattern === type);

export function retrieveEvent(ctx: FakeContext): StripeEvent {
  const id = ctx.req.params['id'] as string;
  const event = ctx.state.events.find((e) => e.id === id);
  if (!event) throw noSuch('event', id, 'id');
  return event;
}
