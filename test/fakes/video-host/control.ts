// Test controls: what a user, the network or the host's operators would do. Each is an
// in-process function (VideoHostFake's methods) and, for a fake in another process, a JSON route
// under /__fake (see routes.ts). Faults fail the next matching requests before any handler runs.
import { decideConsent, type ConsentOptions } from './oauth/consent.ts';
import type { FakeContext } from './context.ts';
import { grantOfToken } from './oauth/token.ts';
import { rollQuota } from './quota.ts';
import type { Caption, Fault, FakeState, FakeUser, QuotaState, Video } from './state.ts';
import { newChannelId, randomId } from './state.ts';

type Ctx = Pick<FakeContext, 'state' | 'settings'>;

export interface FaultInput {
  /** route names (routes.ts: 'videos.insert', 'upload.put', 'captions.insert', 'oauth.token', …) @default every non-control route */
  route?: string | string[];
  /** only this HTTP method @default any */
  method?: string;
  /** how many matching requests fail @default 1 */
  count?: number;
  /** HTTP status answered with Google's error JSON @default 503 */
  status?: number;
  /** errors[0].reason @default rateLimitExceeded for 403/429, authError for 401, backendError otherwise */
  reason?: string;
  /** destroy the connection before reading the request: nothing reaches the host */
  reset?: boolean;
  /**
   * Read this many body bytes, then destroy the connection: an upload PUT keeps what arrived (down
   * to a 256 KiB boundary). A body that ends first is served, and its answer is dropped instead.
   */
  resetAfterBytes?: number;
  /** serve the request, then destroy the connection instead of answering (a lost response) */
  dropResponse?: boolean;
  /** a slow host: the request is served normally, this many ms after its body arrived (no error answer) */
  delayMs?: number;
}

function defaultReason(status: number): string {
  if (status === 403 || status === 429) return 'rateLimitExceeded';
  if (status === 401) return 'authError';
  return 'backendError';
}

export function injectFault(ctx: Pick<Ctx, 'state'>, input: FaultInput): Fault {
  const status = input.status ?? 503;
  if (!Number.isInteger(status) || status < 400 || status > 599) throw new RangeError('fault status must be a 4xx or 5xx code');
  const after = input.resetAfterBytes;
  if (after !== undefined && (!Number.isSafeInteger(after) || after < 0)) throw new RangeError('resetAfterBytes must be a non-negative integer');
  const fault: Fault = {
    id: randomId(8),
    routes: input.route === undefined ? [] : [input.route].flat(),
    method: input.method?.toUpperCase() ?? null,
    remaining: input.count ?? 1,
    status,
    reason: input.reason ?? defaultReason(status),
    reset: input.reset ?? false,
    resetAfterBytes: after ?? null,
    dropResponse: input.dropResponse ?? false,
    delayMs: input.delayMs ?? null,
  };
  ctx.state.faults.push(fault);
  return fault;
}

/** Takes one use of the first fault matching this request, if any. */
export function takeFault(state: FakeState, route: string, method: string): Fault | null {
  const fault = state.faults.find((f) => f.remaining > 0 && (f.routes.length === 0 || f.routes.includes(route)) && (f.method === null || f.method === method));
  if (!fault) return null;
  fault.remaining -= 1;
  if (fault.remaining === 0) state.faults.splice(state.faults.indexOf(fault), 1);
  return fault;
}

export function createUser(ctx: Pick<Ctx, 'state' | 'settings'>, input: { title?: string } = {}): FakeUser {
  const user: FakeUser = { id: newChannelId(), title: input.title ?? `Channel ${ctx.state.users.size + 1}`, createdAt: ctx.settings.clock.now() };
  ctx.state.users.set(user.id, user);
  return user;
}

/** The consent screen's decision for an auth URL the service produced: the redirect URL back to it. */
export function consent(ctx: Ctx, authUrl: string, opts: ConsentOptions = {}): string {
  return decideConsent(ctx, new URL(authUrl).searchParams, opts);
}

/**
 * Revokes grants as the user would from their account's security page: the grant behind a token,
 * or every grant of a channel (all channels when neither is given). Returns how many ended.
 */
export function revokeGrants(ctx: Ctx, which: { token?: string; channelId?: string } = {}): number {
  const grants = which.token ? [grantOfToken(ctx, which.token)].filter((g) => g !== undefined) : [...ctx.state.grants.values()];
  let revoked = 0;
  for (const grant of grants) {
    if (grant.revokedAt !== null || (which.channelId && grant.userId !== which.channelId)) continue;
    grant.revokedAt = ctx.settings.clock.now();
    revoked += 1;
  }
  return revoked;
}

/** Spends the rest of today's quota: every costed call is refused until the Pacific midnight. */
export function exhaustQuota(ctx: Ctx): QuotaState {
  const quota = rollQuota(ctx.state, ctx.settings);
  quota.used = quota.limit;
  return quota;
}

export const videosOf = (state: FakeState, channelId?: string): Video[] =>
  [...state.videos.values()].filter((v) => channelId === undefined || v.channelId === channelId);

export const captionsOf = (state: FakeState, videoId?: string): Caption[] =>
  [...state.captions.values()].filter((c) => videoId === undefined || c.videoId === videoId);

// ---- JSON routes under /__fake ------------------------------------------------------------

const json = (ctx: FakeContext): Record<string, unknown> => {
  const text = ctx.req.body.toString('utf8').trim();
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
};
const opt = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

export const controlRoutes = {
  /** POST /__fake/consent {auth_url, user?, deny?, scopes?} → {redirect_url} */
  consent: (ctx: FakeContext) => {
    const body = json(ctx);
    const user = opt(body['user']);
    const scopes = Array.isArray(body['scopes']) ? body['scopes'].map(String) : undefined;
    return { redirect_url: consent(ctx, String(body['auth_url'] ?? ''), { deny: body['deny'] === true, ...(user && { user }), ...(scopes && { scopes }) }) };
  },
  /** POST /__fake/users {title?} → the user (channel) */
  createUser: (ctx: FakeContext) => {
    const title = opt(json(ctx)['title']);
    return createUser(ctx, title ? { title } : {});
  },
  /** POST /__fake/faults FaultInput → the fault */
  injectFault: (ctx: FakeContext) => injectFault(ctx, json(ctx) as FaultInput),
  /** POST /__fake/time {advance_ms} → {now} */
  advanceTime: (ctx: FakeContext) => {
    ctx.settings.clock.advance(Number(json(ctx)['advance_ms'] ?? 0));
    return { now: ctx.settings.clock.now(), quota: rollQuota(ctx.state, ctx.settings) };
  },
  /** GET /__fake/quota */
  quota: (ctx: FakeContext) => rollQuota(ctx.state, ctx.settings),
  /** POST /__fake/quota/exhaust */
  exhaustQuota: (ctx: FakeContext) => exhaustQuota(ctx),
  /** POST /__fake/grants/revoke {token?, channel_id?} → {revoked} */
  revokeGrants: (ctx: FakeContext) => {
    const body = json(ctx);
    const token = opt(body['token']);
    const channelId = opt(body['channel_id']);
    return { revoked: revokeGrants(ctx, { ...(token && { token }), ...(channelId && { channelId }) }) };
  },
  /** GET /__fake/videos?channel_id= (media as size and sha256) */
  videos: (ctx: FakeContext) => videosOf(ctx.state, ctx.req.url.searchParams.get('channel_id') ?? undefined),
  /** GET /__fake/captions?video_id= (with the track text) */
  captions: (ctx: FakeContext) => captionsOf(ctx.state, ctx.req.url.searchParams.get('video_id') ?? undefined),
  /** GET /__fake/uploads: sessions with the bytes kept so far */
  uploads: (ctx: FakeContext) => [...ctx.state.uploads.values()].map(({ data, ...rest }) => ({ ...rest, received: rest.videoId ? rest.total : data.length })),
  /** GET /__fake/requests */
  requests: (ctx: FakeContext) => ctx.state.requests,
};
