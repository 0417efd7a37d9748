import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionCall } from '../../service/index.ts';
import { startTestApp } from '../../testing/test-app.ts';

/** GET /jobs over HTTP: the query string parsed and refused as the spec's errors, the list declared in /openapi.json. */
let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t.close());

describe('GET /api/v1/jobs', () => {
  it('lists the bearer’s jobs a page at a time, newest first', async () => {
    const token = (await createSessionCall(t.ctx)).session_token;
    const headers = { authorization: `Bearer ${token}` };
    const ids: string[] = [];
    for (const name of ['a.mp3', 'b.mp3', 'c.mp4']) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/jobs',
        headers,
        payload: { job_type: 'transcribe', filename: name, content_type: name.endsWith('mp4') ? 'video/mp4' : 'audio/mpeg' },
      });
      expect(res.statusCode, res.body).toBe(201);
      ids.push(res.json().job_id);
    }
    const first = await t.app.inject({ url: '/api/v1/jobs?limit=2', headers });
    expect(first.statusCode, first.body).toBe(200);
    const page1 = first.json();
    expect(page1.jobs).toHaveLength(2);
    expect(page1.next_cursor).toEqual(expect.any(String));
    const page2 = (await t.app.inject({ url: `/api/v1/jobs?limit=2&cursor=${page1.next_cursor}`, headers })).json();
    expect(page2.next_cursor).toBeNull();
    expect([...page1.jobs, ...page2.jobs].map((j: { job_id: string }) => j.job_id).sort()).toEqual([...ids].sort());
    const filtered = (await t.app.inject({ url: '/api/v1/jobs?job_type=transcribe&status=uploading&created_after=2000-01-01T00:00:00Z', headers })).json();
    expect(filtered.jobs).toHaveLength(3);
    expect(filtered.jobs[0]).toMatchObject({ job_type: 'transcribe', status: 'uploading', session_id: expect.any(String) });
    expect(filtered.jobs[0]).not.toHaveProperty('outputs');
  });

  it('answers bad filters and cursors with 400 {error}, and no session with 401', async () => {
    const token = (await createSessionCall(t.ctx)).session_token;
    const headers = { authorization: `Bearer ${token}` };
    for (const q of ['limit=0', 'limit=101', 'limit=ten', 'status=done', 'job_type=nope', 'source_job_id=123', 'created_after=yesterday', 'cursor=%21%21']) {
      const res = await t.app.inject({ url: `/api/v1/jobs?${q}`, headers });
      expect(res.statusCode, q).toBe(400);
      expect(res.json().error, q).toEqual(expect.any(String));
    }
    const anon = await t.app.inject({ url: '/api/v1/jobs' });
    expect(anon.statusCode).toBe(401);
    expect(anon.json().error).toEqual(expect.any(String));
  });

  it('is declared in /openapi.json with its filters and the page shape', async () => {
    const op = (await t.app.inject({ url: '/openapi.json' })).json().paths['/api/v1/jobs'].get;
    expect(op.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
      ['bundle_job_id', 'created_after', 'created_before', 'cursor', 'job_type', 'limit', 'source_job_id', 'status'].sort(),
    );
    const page = op.responses['200'].content['application/json'].schema;
    expect(Object.keys(page.properties).sort()).toEqual(['jobs', 'next_cursor']);
    expect(op.responses['400']).toBeDefined();
    expect(op.responses['401']).toBeDefined();
  });
});
