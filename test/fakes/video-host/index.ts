// A stateful fake of the video host: Google's OAuth 2.0 endpoints (consent, token with PKCE and
// refresh, revoke) and the YouTube Data API v3 calls a publisher makes (videos.insert by
// multipart or resumable upload, videos.list, captions.insert/list, channels.list), with the
// daily quota and injectable faults. The official clients work against it unchanged:
//   new OAuth2Client({clientId, clientSecret, redirectUri, endpoints: fake.oauthEndpoints})
//   youtube({version: 'v3', auth, rootUrl: fake.url + '/'})
// (media uploads take `{rootUrl}` per call too: googleapis-common builds the upload URL from the
// call's options only). routes.ts lists the endpoints, control.ts the test controls.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { createClock } from './clock.ts';
import type { FakeSettings, QuotaCosts } from './context.ts';
import * as control from './control.ts';
import { type ConsentOptions, isRegisteredRedirect } from './oauth/consent.ts';
import { initialQuota, rollQuota } from './quota.ts';
import { createRequestHandler } from './server.ts';
import { createState, type Caption, type Fault, type FakeState, type FakeUser, type QuotaState, type Video } from './state.ts';

export interface VideoHostFakeOptions {
  /** @default '127.0.0.1' */
  host?: string;
  /** @default 0 (a free port) */
  port?: number;
  /** @default `<random>.apps.googleusercontent.com` */
  clientId?: string;
  /** @default `GOCSPX-<random>` */
  clientSecret?: string;
  /** registered redirect URIs @default none, and then any http://127.0.0.1 or http://localhost URL is accepted too */
  redirectUris?: string[];
  /** base time source in epoch ms; advanceTime() adds to it @default Date.now */
  now?: () => number;
  /** refuse an authorization request without code_challenge (Google does not) @default true */
  requirePkce?: boolean;
  /** @default 3599 */
  accessTokenTtlSec?: number;
  /** refresh tokens expire (Google: 7 days for apps in "Testing") @default never */
  refreshTokenTtlMs?: number;
  /** units per Pacific day @default 10_000 */
  dailyQuota?: number;
  /** @default {videos.insert: 1600, captions.insert: 400, captions.list: 50, videos.list: 1, channels.list: 1} */
  costs?: Partial<QuotaCosts>;
  /** videos.insert calls per channel per Pacific day @default 100 */
  dailyUploadsPerChannel?: number;
  /** @default 7 days */
  uploadSessionTtlMs?: number;
  /** non-final chunks are kept in multiples of this @default 262_144 (256 KiB) */
  uploadGranularity?: number;
  /** @default 512 MiB */
  maxUploadBytes?: number;
  /** title of the first user (channel) @default 'Fake Creator' */
  userTitle?: string;
}

/** The coordinator's settings that point it at the fake (names the coordinator reads). */
export interface VideoHostEnv {
  VIDEO_HOST_CLIENT_ID: string;
  VIDEO_HOST_CLIENT_SECRET: string;
  VIDEO_HOST_AUTH_URL: string;
  VIDEO_HOST_TOKEN_URL: string;
  VIDEO_HOST_REVOKE_URL: string;
  VIDEO_HOST_API_BASE: string;
  VIDEO_HOST_WATCH_URL: string;
}

export interface VideoHostFake {
  /** http://host:port */
  url: string;
  clientId: string;
  clientSecret: string;
  /** registered redirect URIs (live: env() adds to it); without opts.redirectUris any loopback URL is accepted as well */
  redirectUris: string[];
  /** `endpoints` for google-auth-library's OAuth2Client */
  oauthEndpoints: { oauth2AuthBaseUrl: string; oauth2TokenUrl: string; oauth2RevokeUrl: string; tokenInfoUrl: string };
  /** live state, for assertions (do not mutate from tests) */
  state: FakeState;
  /** the user created at start: the account that consents by default */
  defaultUser: FakeUser;
  /** Settings for the coordinator; registers `redirectUrl` (its OAuth callback) as a redirect URI. */
  env(redirectUrl?: string): VideoHostEnv;
  /** Another account (a channel) that can consent. */
  createUser(input?: { title?: string }): FakeUser;
  /** The consent screen's answer to an auth URL: the redirect URL with `code` and `state`, or `error=access_denied`. */
  consent(authUrl: string, opts?: ConsentOptions): string;
  /** epoch ms on the fake's clock */
  now(): number;
  /** Moves the fake's clock: tokens, codes and upload sessions expire, quota days roll over. */
  advanceTime(ms: number): void;
  /** Today's quota (rolled over to the current Pacific day). */
  quota(): QuotaState;
  /** Spends the rest of today's quota. */
  exhaustQuota(): QuotaState;
  /** The next matching requests fail (see FaultInput). */
  injectFault(input?: control.FaultInput): Fault;
  clearFaults(): void;
  /** Revokes the grant behind a token, or every grant of a channel (or all): returns how many. */
  revokeGrants(which?: { token?: string; channelId?: string }): number;
  /** Videos of a channel (all channels when omitted): YouTube's `mine` listing, for assertions. */
  videosOf(channelId?: string): Video[];
  /** Caption tracks (with their text) of a video, or all. */
  captionsOf(videoId?: string): Caption[];
  /** The watch page URL of a video, as the coordinator composes it from VIDEO_HOST_WATCH_URL. */
  watchUrl(videoId: string): string;
  stop(): Promise<void>;
}

const DEFAULT_COSTS: QuotaCosts = {
  'videos.insert': 1600,
  'captions.insert': 400,
  'captions.list': 50,
  'videos.list': 1,
  'videos.delete': 50,
  'channels.list': 1,
};

export async function startVideoHostFake(opts: VideoHostFakeOptions = {}): Promise<VideoHostFake> {
  const host = opts.host ?? '127.0.0.1';
  const clock = createClock(opts.now);
  const settings: FakeSettings = {
    baseUrl: '', // set once the port is known
    clock,
    clientId: opts.clientId ?? `${randomBytes(6).readUIntBE(0, 6)}-${randomBytes(16).toString('hex')}.apps.googleusercontent.com`,
    clientSecret: opts.clientSecret ?? `GOCSPX-${randomBytes(21).toString('base64url')}`,
    redirectUris: [...(opts.redirectUris ?? [])],
    allowLoopbackRedirects: opts.redirectUris === undefined,
    requirePkce: opts.requirePkce ?? true,
    accessTokenTtlSec: opts.accessTokenTtlSec ?? 3599,
    refreshTokenTtlMs: opts.refreshTokenTtlMs ?? null,
    codeTtlMs: 10 * 60_000,
    uploadSessionTtlMs: opts.uploadSessionTtlMs ?? 7 * 24 * 3_600_000,
    uploadGranularity: opts.uploadGranularity ?? 256 * 1024,
    maxUploadBytes: opts.maxUploadBytes ?? 512 * 1024 * 1024,
    dailyQuota: opts.dailyQuota ?? 10_000,
    costs: { ...DEFAULT_COSTS, ...opts.costs },
    dailyUploadsPerChannel: opts.dailyUploadsPerChannel ?? 100,
  };
  const state = createState(initialQuota(settings));
  const ctx = { state, settings };
  const defaultUser = control.createUser(ctx, { title: opts.userTitle ?? 'Fake Creator' });
  const handle = createRequestHandler(state, settings);
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error('[video-host-fake] request failed:', err);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 500, message: 'The video host fake failed to read the request.' } }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => resolve());
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  settings.baseUrl = url;

  return {
    url,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    redirectUris: settings.redirectUris,
    oauthEndpoints: {
      oauth2AuthBaseUrl: `${url}/o/oauth2/v2/auth`,
      oauth2TokenUrl: `${url}/token`,
      oauth2RevokeUrl: `${url}/revoke`,
      tokenInfoUrl: `${url}/tokeninfo`,
    },
    state,
    defaultUser,
    env(redirectUrl) {
      if (redirectUrl && !isRegisteredRedirect(settings, redirectUrl)) settings.redirectUris.push(redirectUrl);
      return {
        VIDEO_HOST_CLIENT_ID: settings.clientId,
        VIDEO_HOST_CLIENT_SECRET: settings.clientSecret,
        VIDEO_HOST_AUTH_URL: `${url}/o/oauth2/v2/auth`,
        VIDEO_HOST_TOKEN_URL: `${url}/token`,
        VIDEO_HOST_REVOKE_URL: `${url}/revoke`,
        VIDEO_HOST_API_BASE: url,
        VIDEO_HOST_WATCH_URL: `${url}/watch?v=`,
      };
    },
    createUser: (input = {}) => control.createUser(ctx, input),
    consent: (authUrl, consentOpts = {}) => control.consent(ctx, authUrl, consentOpts),
    now: () => clock.now(),
    advanceTime(ms) {
      clock.advance(ms);
      rollQuota(state, settings);
    },
    quota: () => rollQuota(state, settings),
    exhaustQuota: () => control.exhaustQuota(ctx),
    injectFault: (input = {}) => control.injectFault(ctx, input),
    clearFaults: () => void state.faults.splice(0),
    revokeGrants: (which = {}) => control.revokeGrants(ctx, which),
    videosOf: (channelId) => control.videosOf(state, channelId),
    captionsOf: (videoId) => control.captionsOf(state, videoId),
    watchUrl: (videoId) => `${url}/watch?v=${encodeURIComponent(videoId)}`,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections(); // keep-alive sockets of the clients would hold close() open
      }),
  };
}

export type { FakeState, FakeUser, Video, Caption, UploadSession, Grant, QuotaState, Fault, RequestLogEntry } from './state.ts';
export type { FaultInput } from './control.ts';
export type { ConsentOptions } from './oauth/consent.ts';
export type { QuotaCosts } from './context.ts';
export { SCOPES } from './auth.ts';
export { QUOTA_EXCEEDED_MESSAGE } from './quota.ts';
