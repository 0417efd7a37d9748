// The route table: Stripe API routes (/v1, API key, form encoding, idempotency), test-only
// control routes (/__fake, JSON) and the hosted checkout page (/c/pay).
import type { FakeContext } from './context.ts';
import * as control from './control.ts';
import { listEvents, retrieveEvent } from './events.ts';
import { showCheckoutPage, submitCheckoutPage } from './hosted-page.ts';
import * as checkout from './resources/checkout-sessions.ts';
import * as intents from './resources/payment-intents.ts';
import * as refunds from './resources/refunds.ts';
import * as tokens from './resources/shared-payment-tokens.ts';

export type RouteKind = 'api' | 'control' | 'page';

export interface RouteDef {
  method: 'GET' | 'POST' | 'DELETE';
  /** segments starting with ':' are parameters */
  path: string;
  kind: RouteKind;
  handler(ctx: FakeContext): unknown;
}

const api = (method: RouteDef['method'], path: string, handler: RouteDef['handler']): RouteDef => ({ method, path, kind: 'api', handler });
const ctl = (method: RouteDef['method'], path: string, handler: RouteDef['handler']): RouteDef => ({ method, path, kind: 'control', handler });

export const ROUTES: RouteDef[] = [
  api('POST', '/v1/checkout/sessions', checkout.createCheckoutSession),
  api('GET', '/v1/checkout/sessions/:id', checkout.retrieveCheckoutSession),
  api('POST', '/v1/checkout/sessions/:id/expire', checkout.expireCheckoutSession),
  api('POST', '/v1/payment_intents', intents.createPaymentIntent),
  api('GET', '/v1/payment_intents/:id', intents.retrievePaymentIntent),
  api('POST', '/v1/payment_intents/:id/confirm', intents.confirmPaymentIntent),
  api('POST', '/v1/payment_intents/:id/capture', intents.capturePaymentIntent),
  api('POST', '/v1/payment_intents/:id/cancel', intents.cancelPaymentIntent),
  api('POST', '/v1/refunds', refunds.createRefund),
  api('GET', '/v1/refunds/:id', refunds.retrieveRefund),
  api('GET', '/v1/charges/:id', refunds.retrieveCharge),
  api('GET', '/v1/events', listEvents),
  api('GET', '/v1/events/:id', retrieveEvent),
  api('POST', '/v1/test_helpers/shared_payment/granted_tokens', tokens.createTokenFromForm),
  api('POST', '/v1/test_helpers/shared_payment/granted_tokens/:id/revoke', tokens.revokeToken),
  api('GET', '/v1/shared_payment/granted_tokens/:id', tokens.retrieveToken),

  ctl('POST', '/__fake/checkout/sessions/:id/pay', control.payCheckoutSession),
  ctl('POST', '/__fake/webhook_endpoints', control.createWebhookEndpoint),
  ctl('DELETE', '/__fake/webhook_endpoints/:id', control.deleteWebhookEndpoint),
  ctl('POST', '/__fake/shared_payment_tokens', tokens.createTokenFromJson),
  ctl('POST', '/__fake/shared_payment_tokens/:id/revoke', tokens.revokeToken),
  ctl('POST', '/__fake/events/:id/deliver', control.redeliverEvent),
  ctl('POST', '/__fake/faults', (ctx) => control.injectFault(ctx, ctx.req.json)),
  ctl('GET', '/__fake/deliveries', (ctx) => ctx.state.deliveries),

  { method: 'GET', path: '/c/pay/:id', kind: 'page', handler: showCheckoutPage },
  { method: 'POST', path: '/c/pay/:id', kind: 'page', handler: submitCheckoutPage },
];

export function matchRoute(method: string, pathname: string): { route: RouteDef; params: Record<string, string> } | null {
  const parts = pathname.split('/');
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    const isMatch = pattern.every((seg, i) => {
      const part = parts[i] as string;
      if (seg.startsWith(':')) {
        params[seg.slice(1)] = decodeURIComponent(part);
        return part !== '';
      }
      return seg === part;
    });
    if (isMatch) return { route, params };
  }
  return null;
}
