import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT_ROUTES } from '@cutroom/proto';
import { agents } from '../coordinator/src/db/schema.ts';
import { waitFor } from './fixtures/index.ts';
import { librivoxUtterances } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * The public listener's hardening on real parts: agent routes on a listener of their own
 * (AGENT_LISTEN_PORT) with a real agent doing a job through it, the Postgres statement timeout,
 * rate limits with Retry-After over real HTTP, and security headers.
 */
describe('HTTP hardening (split agent listener, timeouts, rate limits)', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({
      storage: 'local',
      agents: 1,
      env: { AGENT_LISTEN_PORT: '0', DB_STATEMENT_TIMEOUT_MS: '2000', RATE_LIMIT_SESSIONS_PER_IP: '5', RATE_LIMIT_WINDOW_SECONDS: '60' },
    });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('serves agent routes only on the agent listener, where a real agent does a job', async () => {
    const { url, agentUrl } = stack.coordinator;
    expect(agentUrl).not.toBe(url);
    const auth = { authorization: `Bearer ${await stack.agentCredential('route-probe')}`, 'content-type': 'application/json' };
    for (const route of Object.values(AGENT_ROUTES)) {
      const r = await fetch(`${url}${route}`, { method: 'POST', headers: auth, body: '{}' });
      expect(r.status, route).toBe(404);
    }
    expect((await fetch(`${agentUrl}/api/v1/sessions`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${agentUrl}${AGENT_ROUTES.claim}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);

    // The agent was started with COORDINATOR_URL = the agent listener: it registers and transcribes.
    await waitFor(async () => (await stack.coordinator.ctx.db.select().from(agents)).length > 0, 60_000, { description: 'the agent to register' });
    const token = await stack.api.newSession();
    const u = librivoxUtterances()[0]!;
    const id = await stack.api.submitTranscribe(token, u.file, 'one.wav', 'audio/wav');
    const job = await stack.api.waitForJob(token, id, undefined, 150_000);
    expect(job.status, job.error_message).toBe('completed');
  }, 200_000);

  it('cancels a statement that runs past DB_STATEMENT_TIMEOUT_MS (SQLSTATE 57014)', async () => {
    const err = await stack.coordinator.ctx.db.execute(sql`select pg_sleep(5)`).then(
      () => null,
      (e: unknown) => e,
    );
    const codes: unknown[] = [];
    for (let e = err as { code?: unknown; cause?: unknown } | null, i = 0; e && i < 5; e = e.cause as typeof e, i++) codes.push(e.code);
    expect(codes).toContain('57014');
  });

  it('answers 429 with Retry-After past the session-creation limit, whatever X-Forwarded-For says', async () => {
    const post = (xff: string) => fetch(`${stack.coordinator.url}/api/v1/sessions`, { method: 'POST', headers: { 'x-forwarded-for': xff } });
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 8 && !limited; i++) {
      const r = await post(`203.0.113.${i}`);
      statuses.push(r.status);
      if (r.status === 429) limited = r;
    }
    expect(limited, `statuses ${statuses.join(',')}`).toBeDefined();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await limited!.json()) as { error: string }).error).toMatch(/too many requests/);
    expect(limited!.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('shows dependency states on the public /health without error text, and sends security headers', async () => {
    const r = await fetch(`${stack.coordinator.url}/health`);
    expect(await r.json()).toMatchObject({ status: 'ok', checks: { database: 'ok', nats: 'ok', storage: 'ok' } });
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
    const internal = await fetch(`${stack.coordinator.agentUrl}/health`);
    expect(internal.status).toBe(200);
  });
});
