// Shared Payment Tokens (SharedPaymentGrantedToken): an agent's limited grant of a customer's
// card to this account. Stripe's test helper creates one (POST /v1/test_helpers/shared_payment/
// granted_tokens with usage_limits); the fake also offers a JSON control route for tests. A
// token pays while it is active: not revoked, not expired, and with the amount still unused
// under max_amount ("consumed" once used up; a released hold gives its share back).
import { nowSec, type FakeContext } from '../context.ts';
import { invalidParam, noSuch } from '../errors.ts';
import { readInt, readObject, rejectUnknown, requireInt, requireString } from '../params.ts';
import { newId, type SharedPaymentToken } from '../state.ts';
import { TEST_PAYMENT_METHODS } from './authorize.ts';

export interface TokenInput {
  /** null = no amount cap (control route only; Stripe requires max_amount) */
  maxAmount: number | null;
  /** lowercase ISO code @default 'usd' */
  currency?: string;
  /** unix seconds, null = no expiry */
  expiresAt?: number | null;
  /** test card behind the token @default 'pm_card_visa' */
  paymentMethod?: string;
}

export function createToken(ctx: Pick<FakeContext, 'state' | 'settings'>, input: TokenInput): SharedPaymentToken {
  const paymentMethod = input.paymentMethod ?? 'pm_card_visa';
  if (!(paymentMethod in TEST_PAYMENT_METHODS)) throw noSuch('PaymentMethod', paymentMethod, 'payment_method', 400);
  const token: SharedPaymentToken = {
    id: newId('spt'),
    created: nowSec(ctx),
    currency: (input.currency ?? 'usd').toLowerCase(),
    maxAmount: input.maxAmount,
    expiresAt: input.expiresAt ?? null,
    revokedAt: null,
    paymentMethod,
    amountUsed: 0,
  };
  ctx.state.sharedPaymentTokens.set(token.id, token);
  return token;
}

/** The SharedPaymentGrantedToken object as the API shows it. */
export function renderToken(ctx: Pick<FakeContext, 'settings'>, t: SharedPaymentToken) {
  const now = nowSec(ctx);
  const [reason, at] =
    t.revokedAt !== null
      ? ['revoked', t.revokedAt]
      : t.expiresAt !== null && t.expiresAt <= now
        ? ['expired', t.expiresAt]
        : t.maxAmount !== null && t.amountUsed >= t.maxAmount
          ? ['consumed', null]
          : [null, null];
  return {
    id: t.id,
    object: 'shared_payment.granted_token',
    created: t.created,
    deactivated_at: at,
    deactivated_reason: reason,
    livemode: false,
    usage_limits: { currency: t.currency, max_amount: t.maxAmount, expires_at: t.expiresAt },
  };
}

function getToken(ctx: FakeContext): SharedPaymentToken {
  const id = ctx.req.params['id'] as string;
  const token = ctx.state.sharedPaymentTokens.get(id);
  if (!token) throw noSuch('shared_payment.granted_token', id, 'id');
  return token;
}

/** POST /v1/test_helpers/shared_payment/granted_tokens (form-encoded, like Stripe's helper). */
export function createTokenFromForm(ctx: FakeContext) {
  const p = ctx.req.body;
  rejectUnknown(p, ['payment_method', 'usage_limits', 'customer', 'shared_metadata', 'seller_details', 'expand']);
  const limits = readObject(p, 'usage_limits');
  if (!limits) throw invalidParam('Missing required param: usage_limits.', 'parameter_missing', 'usage_limits');
  rejectUnknown(limits, ['currency', 'max_amount', 'expires_at'], 'usage_limits');
  return renderToken(
    ctx,
    createToken(ctx, {
      paymentMethod: requireString(p, 'payment_method'),
      currency: requireString(limits, 'currency', 'usage_limits[currency]'),
      maxAmount: requireInt(limits, 'max_amount', { min: 1, name: 'usage_limits[max_amount]' }),
      expiresAt: readInt(limits, 'expires_at', { name: 'usage_limits[expires_at]' }) ?? null,
    }),
  );
}

/** POST /__fake/shared_payment_tokens with JSON `{amount_limit?, currency?, expires_at?, payment_method?}`. */
export function createTokenFromJson(ctx: FakeContext) {
  const j = ctx.req.json;
  const limit = j['amount_limit'];
  if (limit !== undefined && limit !== null && !(Number.isSafeInteger(limit) && (limit as number) > 0)) {
    throw invalidParam('amount_limit must be a positive integer (smallest currency unit) or null.', 'parameter_invalid_integer', 'amount_limit');
  }
  return renderToken(
    ctx,
    createToken(ctx, {
      maxAmount: (limit as number | null | undefined) ?? null,
      ...(typeof j['currency'] === 'string' && { currency: j['currency'] }),
      ...(typeof j['expires_at'] === 'number' && { expiresAt: j['expires_at'] }),
      ...(typeof j['payment_method'] === 'string' && { paymentMethod: j['payment_method'] }),
    }),
  );
}

export function retrieveToken(ctx: FakeContext) {
  rejectUnknown(ctx.req.body, ['expand']);
  return renderToken(ctx, getToken(ctx));
}

export function revokeToken(ctx: FakeContext) {
  const token = getToken(ctx);
  token.revokedAt ??= nowSec(ctx);
  return renderToken(ctx, token);
}
