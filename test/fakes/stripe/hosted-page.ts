// The hosted checkout page a session's `url` points at: a minimal HTML page with a Pay button
// (a form POST back to the same URL), so browser tests can walk the redirect flow end to end.
// Paying completes the session with pm_card_visa, delivers checkout.session.completed, and
// redirects to success_url with {CHECKOUT_SESSION_ID} filled in, as Stripe does.
import type { FakeContext } from './context.ts';
import { FakeStripeError } from './errors.ts';
import { Reply } from './reply.ts';
import { completeCheckoutSession, getSession } from './resources/checkout-sessions.ts';
import { deliverEvent } from './webhooks.ts';

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const money = (cents: number, currency: string): string => `${(cents / 100).toFixed(2)} ${currency.toUpperCase()}`;

export function showCheckoutPage(ctx: FakeContext): Reply {
  const session = getSession(ctx);
  const items = ctx.state.lineItems.get(session.id) ?? [];
  const rows = items.map((i) => `<li>${escapeHtml(i.name)} × ${i.quantity}: ${money(i.unit_amount * i.quantity, i.currency)}</li>`).join('');
  const body =
    session.status === 'open'
      ? `<form method="post"><button id="pay" type="submit">Pay ${money(session.amount_total, session.currency)}</button></form>` +
        (session.cancel_url ? `<p><a id="cancel" href="${escapeHtml(session.cancel_url)}">Cancel</a></p>` : '')
      : `<p id="status">This session is ${session.status}.</p>`;
  return new Reply({
    status: 200,
    html: `<!doctype html><html><head><title>Fake checkout</title></head><body><h1>Fake checkout</h1><ul>${rows}</ul>${body}</body></html>`,
  });
}

export async function submitCheckoutPage(ctx: FakeContext): Promise<Reply> {
  const session = getSession(ctx);
  try {
    const { event } = completeCheckoutSession(ctx, session, 'pm_card_visa');
    await deliverEvent(ctx, event);
  } catch (err) {
    if (!(err instanceof FakeStripeError)) throw err;
    return new Reply({ status: err.status, html: `<!doctype html><p id="error">${escapeHtml(err.message)}</p>` });
  }
  if (!session.success_url) return new Reply({ status: 200, html: '<!doctype html><p id="status">Paid.</p>' });
  return new Reply({ status: 303, location: session.success_url.replaceAll('{CHECKOUT_SESSION_ID}', session.id) });
}
