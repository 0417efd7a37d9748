import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSchemathesis, seedFuzzData, type FuzzSeed } from './harness/fuzz.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * schemathesis against the coordinator's own /openapi.json, on real parts (Postgres, JetStream,
 * local blob store, one agent for the seed job), billing off: no 5xx, and every status, body and
 * content type answered is the one the document declares. A short, seeded run (about 20 s);
 * `npm run fuzz` is the long one. The bearer token and the seed data (a completed job, a fresh one,
 * another session's) take the generated calls past 401/403/404 into the handlers.
 */
describe('API fuzzing (schemathesis, /openapi.json)', () => {
  let stack: Stack;
  let seed: FuzzSeed;

  beforeAll(async () => {
    stack = await startStack({ storage: 'local', agents: 1 });
    seed = await seedFuzzData(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('refuses NUL and invalid text with 400 {error} before it reaches Postgres', async () => {
    const { url } = stack.coordinator;
    const get = async (path: string) => {
      const res = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${seed.token}` } });
      return { status: res.status, body: (await res.json()) as { error?: unknown } };
    };
    // The tracker's case: it used to reach Postgres and answer 500.
    for (const path of [
      '/api/v1/checkout/complete?session_id=%00abc',
      '/api/v1/checkout/complete?session_id=%FF',
      '/api/v1/checkout/complete?session_id=%zz',
    ]) {
      const r = await get(path);
      expect(r.status, path).toBe(400);
      expect(r.body.error, path).toMatch(/query parameter "session_id"/);
    }
    expect((await get(`/api/v1/jobs/${seed.jobIds[0]}/outputs/transcript%00/download`)).status).toBe(400);
    expect((await get(`/api/v1/jobs/${'1'.repeat(150)}`)).status).toBe(400); // was fastify's 414

    // A refused body is not stored under its Idempotency-Key: the same key then works.
    const post = (body: string) =>
      fetch(`${url}/api/v1/jobs`, {
        method: 'POST',
        body,
        headers: { authorization: `Bearer ${seed.token}`, 'content-type': 'application/json', 'idempotency-key': 'fuzz-nul-1' },
      });
    const bad = await post('{"job_type":"transcribe","filename":"a\\u0000.mp3","content_type":"audio/mpeg"}');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/request body field "filename" contains a NUL/);
    expect((await post('{"job_type":"transcribe","filename":"a.mp3","content_type":"audio/mpeg"}')).status).toBe(201);
  });

  it('finds no 5xx and no undeclared status, body or content type', async () => {
    const r = await runSchemathesis(stack.coordinator.url, seed, { maxExamples: 50, seed: 20251123, timeoutMs: 150_000 });
    console.log(`api-fuzz: ${r.cases ?? '?'} schemathesis cases in ${r.seconds.toFixed(1)} s (exit ${r.exitCode})\n  ${r.command}`);
    expect(r.exitCode, `schemathesis found problems (exit ${r.exitCode}):\n${r.output}`).toBe(0);
  }, 180_000);
});
