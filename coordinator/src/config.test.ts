import { describe, expect, it } from 'vitest';
import { loadCoordinatorConfig } from './config.ts';

const secret = 'x'.repeat(32);
const chain = { CHAIN_RPC_URL: 'http://127.0.0.1:8545', CHAIN_TOKEN_ADDRESS: `0x${'a'.repeat(40)}`, CHAIN_RELAYER_KEY: `0x${'1'.repeat(64)}` };

describe('coordinator config', () => {
  it('runs the embedded default with billing off and no settings at all', () => {
    const c = loadCoordinatorConfig({});
    expect(c.PORT).toBe(8080);
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:8080');
    expect(c.billingEnabled).toBe(false);
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('treats empty strings as unset and derives the public URL from HOST and PORT', () => {
    const c = loadCoordinatorConfig({ DATABASE_URL: '', PORT: '9000', HOST: '0.0.0.0' });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:9000');
  });

  it('takes a NATS cluster as a list of URLs and its stream copies as 1, 3 or 5', () => {
    const c = loadCoordinatorConfig({ NATS_URL: 'nats://n1:4222,nats://n2:4222, nats://n3:4222', NATS_STREAM_REPLICAS: '3' });
    expect(c.NATS_URL).toBe('nats://n1:4222,nats://n2:4222, nats://n3:4222');
    expect(c.NATS_STREAM_REPLICAS).toBe(3);
    expect(loadCoordinatorConfig({ NATS_URL: '' }).NATS_URL).toBeUndefined();
    expect(() => loadCoordinatorConfig({ NATS_URL: 'nats://n1:4222,not a url' })).toThrow(/NATS_URL/);
    expect(() => loadCoordinatorConfig({ NATS_STREAM_REPLICAS: '2' })).toThrow(/NATS_STREAM_REPLICAS/);
  });

  it('names every invalid option', () => {
    expect(() => loadCoordinatorConfig({ PORT: 'eighty', LEASE_MS: '5' })).toThrow(/PORT[\s\S]*LEASE_MS/);
  });

  it('turns billing on only with a complete rail and a challenge secret', () => {
    expect(loadCoordinatorConfig({ ...chain, PAYMENT_CHALLENGE_SECRET: secret }).billingEnabled).toBe(true);
    expect(loadCoordinatorConfig({ CARD_SECRET_KEY: 'sk_test_1', CARD_WEBHOOK_SECRET: 'whsec_1', PAYMENT_CHALLENGE_SECRET: secret }).billingEnabled).toBe(true);
    expect(() => loadCoordinatorConfig({ ...chain })).toThrow(/PAYMENT_CHALLENGE_SECRET/);
    expect(() => loadCoordinatorConfig({ CHAIN_RPC_URL: chain.CHAIN_RPC_URL, PAYMENT_CHALLENGE_SECRET: secret })).toThrow(/chain rail needs/);
    expect(() => loadCoordinatorConfig({ CARD_SECRET_KEY: 'sk_test_1', PAYMENT_CHALLENGE_SECRET: secret })).toThrow(/card rail needs/);
  });

  it('trusts no proxy by default; TRUST_PROXY takes true, a hop count or addresses', () => {
    expect(loadCoordinatorConfig({}).TRUST_PROXY).toBe(false);
    expect(loadCoordinatorConfig({ TRUST_PROXY: '' }).TRUST_PROXY).toBe(false);
    expect(loadCoordinatorConfig({ TRUST_PROXY: 'true' }).TRUST_PROXY).toBe(true);
    expect(loadCoordinatorConfig({ TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadCoordinatorConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).TRUST_PROXY).toEqual(['10.0.0.0/8', '127.0.0.1']);
  });

  it('has production defaults for timeouts, idempotency and rate limits', () => {
    const c = loadCoordinatorConfig({});
    expect(c).toMatchObject({
      HTTP_CONNECTION_TIMEOUT_MS: 120_000,
      HTTP_REQUEST_TIMEOUT_MS: 300_000,
      DB_STATEMENT_TIMEOUT_MS: 30_000,
      IDEMPOTENCY_TTL_HOURS: 24,
      IDEMPOTENCY_LOCK_SECONDS: 120,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      RATE_LIMIT_SESSIONS_PER_IP: 30,
      RATE_LIMIT_PER_SESSION: 60,
      RATE_LIMIT_PER_IP: 300,
    });
    expect(c.AGENT_LISTEN_PORT).toBeUndefined();
  });

  it('keeps the URL-signing secret apart from the admin token, and the agent listener apart from PORT', () => {
    const token = 'a'.repeat(30);
    expect(() => loadCoordinatorConfig({ ADMIN_TOKEN: token, URL_SIGNING_SECRET: token })).toThrow(/URL_SIGNING_SECRET must not be the ADMIN_TOKEN/);
    expect(loadCoordinatorConfig({ ADMIN_TOKEN: token, URL_SIGNING_SECRET: 'b'.repeat(20) }).URL_SIGNING_SECRET).toBe('b'.repeat(20));
    expect(() => loadCoordinatorConfig({ PORT: '8080', AGENT_LISTEN_PORT: '8080' })).toThrow(/AGENT_LISTEN_PORT must differ/);
    expect(loadCoordinatorConfig({ AGENT_LISTEN_PORT: '9090' })).toMatchObject({ AGENT_LISTEN_PORT: 9090, AGENT_LISTEN_HOST: '127.0.0.1' });
    expect(loadCoordinatorConfig({ AGENT_LISTEN_PORT: '' }).AGENT_LISTEN_PORT).toBeUndefined();
  });

  it('turns publishing on only with both client settings; Google endpoints and the callback by default', () => {
    expect(loadCoordinatorConfig({}).videoHost).toBeNull();
    expect(() => loadCoordinatorConfig({ VIDEO_HOST_CLIENT_ID: 'id' })).toThrow(/VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET together/);
    const client = { VIDEO_HOST_CLIENT_ID: 'id', VIDEO_HOST_CLIENT_SECRET: 'secret' };
    expect(loadCoordinatorConfig({ ...client, PUBLIC_BASE_URL: 'https://cut.example/', VIDEO_HOST_AUTH_URL: '', VIDEO_HOST_SCOPES: ' ' }).videoHost).toEqual({
      clientId: 'id',
      clientSecret: 'secret',
      authUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      revokeUrl: 'https://oauth2.googleapis.com/revoke',
      apiBase: 'https://www.googleapis.com',
      watchUrl: 'https://www.youtube.com/watch?v=',
      redirectUrl: 'https://cut.example/api/v1/connections/video-host/callback',
      startUrl: 'https://cut.example/api/v1/connections/video-host/start',
      revokePageUrl: 'https://cut.example/api/v1/connections/video-host/revoke',
      consentCookiePath: '/api/v1/connections/video-host',
      scopes: ['https://www.googleapis.com/auth/youtube.upload', 'https://www.googleapis.com/auth/youtube.force-ssl'],
    });
    expect(
      loadCoordinatorConfig({ ...client, VIDEO_HOST_API_BASE: 'http://127.0.0.1:9/', VIDEO_HOST_REDIRECT_URL: 'http://127.0.0.1:8080/oauth/cb' }).videoHost,
    ).toMatchObject({
      apiBase: 'http://127.0.0.1:9',
      redirectUrl: 'http://127.0.0.1:8080/oauth/cb',
      // The consent cookie must reach both the start page and that callback.
      consentCookiePath: '/',
    });
    expect(loadCoordinatorConfig({ ...client, PUBLIC_BASE_URL: 'https://cut.example/tools/' }).videoHost).toMatchObject({
      startUrl: 'https://cut.example/tools/api/v1/connections/video-host/start',
      consentCookiePath: '/tools/api/v1/connections/video-host',
    });
    // A callback on another origin would never receive the cookie the start page set.
    expect(() => loadCoordinatorConfig({ ...client, VIDEO_HOST_REDIRECT_URL: 'http://127.0.0.1:1/cb' })).toThrow(
      /VIDEO_HOST_REDIRECT_URL .* must be on PUBLIC_BASE_URL's origin \(http:\/\/127.0.0.1:8080\)/,
    );
    // Replicas on one Postgres must share the key: a generated one would differ per DATA_DIR.
    expect(() => loadCoordinatorConfig({ ...client, DATABASE_URL: 'postgres://db/cutroom' })).toThrow(/TOKEN_ENCRYPTION_KEY .* is required/);
    const key = Buffer.alloc(32, 7).toString('base64');
    expect(loadCoordinatorConfig({ ...client, DATABASE_URL: 'postgres://db/cutroom', TOKEN_ENCRYPTION_KEY: key }).videoHost).not.toBeNull();
  });
});
