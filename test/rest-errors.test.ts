import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIMITS } from '@cutroom/shared/limits';
import { startStack, type Stack } from './harness/stack.ts';

/** Bad input gets a clear 4xx with the spec's {error} body, never a 5xx. No agent is needed. */
describe('REST errors and limits', () => {
  let stack: Stack;
  let token: string;
  const transcribe = { job_type: 'transcribe', filename: 'talk.mp3', content_type: 'audio/mpeg' };

  beforeAll(async () => {
    stack = await startStack({ storage: 'local', agents: 0 });
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const expectError = (r: { status: number; body: any }, status: number, pattern: RegExp) => {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(typeof r.body.error).toBe('string');
    expect(r.body.error).toMatch(pattern);
  };

  it('authenticates sessions', async () => {
    const { call } = stack.api;
    expectError(await call('GET', '/api/v1/sessions/me'), 401, /missing session token/);
    expectError(await call('GET', '/api/v1/sessions/me', { token: 'crs_forged' }), 401, /invalid or expired/);
    const me = await call('GET', '/api/v1/sessions/me', { token });
    expect(me.status).toBe(200);
    expect(me.body.status).toBe('created');
    expectError(await call('POST', '/api/v1/jobs', { json: transcribe }), 401, /session token/);
  });

  it('validates every field of CreateJobRequest', async () => {
    const post = (json: unknown) => stack.api.call('POST', '/api/v1/jobs', { token, json });
    expectError(await post({ ...transcribe, job_type: 'dance' }), 400, /job_type/);
    expectError(await post({ ...transcribe, content_type: 'application/pdf' }), 400, /content_type application\/pdf is not accepted/);
    expectError(await post({ job_type: 'transcribe', content_type: 'audio/mpeg' }), 400, /filename is required/);
    expectError(await post({ job_type: 'transcribe', filename: 'a.mp3' }), 400, /content_type is required/);
    expectError(await post({ ...transcribe, filename: 'x'.repeat(LIMITS.filenameMaxChars + 1) }), 400, /filename/);
    expectError(await post({ ...transcribe, title: 't'.repeat(201) }), 400, /title/);
    expectError(await post({ ...transcribe, query: '' }), 400, /query/);
    expectError(await post({ ...transcribe, query: 'q'.repeat(501) }), 400, /query/);
    expectError(await post({ ...transcribe, subject_id: 's'.repeat(65) }), 400, /subject_id/);
    expectError(await post({ ...transcribe, source_job_id: 'not-a-uuid' }), 400, /source_job_id/);
    expectError(await post({ ...transcribe, start: -1 }), 400, /start/);
    expectError(await post({ ...transcribe, subject_box: { x: 0, y: 0, w: 0, h: 10 } }), 400, /subject_box\.w/);
    expectError(await post({ ...transcribe, segments: [] }), 400, /segments/);
    const seg = { start: 0, end: 1 };
    expectError(await post({ ...transcribe, segments: Array(51).fill(seg) }), 400, /segments/);
    expectError(await post({ ...transcribe, segments: [{ start: 5, end: 2 }] }), 400, /end must be greater than start/);
    expectError(await post({ ...transcribe, segments: [{ ...seg, label: 'l'.repeat(201) }] }), 400, /label/);
    expectError(await post({ ...transcribe, profile: 'vidC' }), 400, /profile/);
    expectError(await post({ ...transcribe, colour: 'red' }), 400, /colour/);
    expectError(await post({ ...transcribe, segments: [seg] }), 400, /segments does not apply to job_type transcribe/);
    expectError(
      await post({ job_type: 'summarize', filename: 'a.mp3', content_type: 'audio/mpeg', query: 'bees' }),
      400,
      /query does not apply to job_type summarize: .*find_clips/,
    );
    // This stack has no video host configured: publish_video is refused first, naming the settings.
    expectError(
      await post({ job_type: 'publish_video', source_job_id: crypto.randomUUID() }),
      400,
      /publishing is not configured on this server.*VIDEO_HOST_CLIENT_ID/,
    );
    expectError(await post({ job_type: 'extract_clip', source_job_id: crypto.randomUUID(), segments: [seg] }), 404, /source_job_id .* not found/);
    expectError(await post({ job_type: 'extract_vertical_clip', source_job_id: crypto.randomUUID(), segments: [seg] }), 400, /a vertical clip is one segment/);
    const bad = await fetch(`${stack.coordinator.url}/api/v1/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"job_type":',
    });
    expect(bad.status).toBe(400);
    expect(typeof ((await bad.json()) as { error: unknown }).error).toBe('string');
  });

  it('guards job ownership, existence and the upload sequence', async () => {
    const { call } = stack.api;
    const created = await call('POST', '/api/v1/jobs', { token, json: transcribe });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ job_type: 'transcribe', payment_status: 'paid', price_cents: 50, next_endpoint: 'upload-url' });
    const id = created.body.job_id;
    const video = await call('POST', '/api/v1/jobs', { token, json: { ...transcribe, content_type: 'video/mp4', filename: 'a.mp4' } });
    expect(video.body.price_cents).toBe(100);

    const other = await stack.api.newSession();
    expectError(await call('GET', `/api/v1/jobs/${id}`, { token: other }), 403, /another session/);
    expectError(await call('GET', `/api/v1/jobs/${id}/upload-url`, { token: other }), 403, /another session/);
    expectError(await call('POST', `/api/v1/jobs/${id}/process`, { token: other }), 403, /another session/);
    // Cross-session download and delete are 403 as well, never a 404 that hides nothing or a success.
    expectError(await call('GET', `/api/v1/jobs/${id}/outputs/transcript/download`, { token: other }), 403, /another session/);
    expectError(await call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=words`, { token: other }), 403, /another session/);
    expectError(await call('DELETE', `/api/v1/jobs/${id}/source`, { token: other }), 403, /another session/);
    expectError(await call('DELETE', `/api/v1/jobs/${id}/outputs/transcript`, { token: other }), 403, /another session/);
    expectError(await call('GET', `/api/v1/jobs/${crypto.randomUUID()}`, { token }), 404, /not found/);
    expectError(await call('GET', '/api/v1/jobs/not-a-uuid', { token }), 400, /id/);

    expectError(await call('POST', `/api/v1/jobs/${id}/complete-upload`, { token }), 400, /file not found in storage/);
    expectError(await call('POST', `/api/v1/jobs/${id}/process`, { token }), 400, /upload-based.*complete-upload/);
    expectError(await call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=docx`, { token }), 400, /invalid format/);
    expectError(await call('GET', `/api/v1/jobs/${id}/outputs/transcript/download`, { token }), 404, /no output transcript/);
    expectError(await call('DELETE', `/api/v1/jobs/${id}/source`, { token }), 404, /no stored source/);

    const up = await call('GET', `/api/v1/jobs/${id}/upload-url`, { token });
    expect(up.status).toBe(200);
    // The presigned URL is bound to the declared content type.
    const wrongType = await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: 'x' });
    expect(wrongType.status).toBe(400);
    const tampered = await fetch(up.body.upload_url.replace(/sig=[^&]+/, 'sig=AAAA'), { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: 'x' });
    expect(tampered.status).toBe(403);
    const empty = await fetch(up.body.upload_url, { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: '' });
    expect(empty.status).toBeLessThan(300);
    expectError(await call('POST', `/api/v1/jobs/${id}/complete-upload`, { token }), 400, /empty/);
  });

  it('honours Idempotency-Key on POST /jobs', async () => {
    const post = (key: string, body: unknown) =>
      fetch(`${stack.coordinator.url}/api/v1/jobs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify(body),
      });
    const key = `k-${crypto.randomUUID()}`;
    const first = await post(key, transcribe);
    const again = await post(key, transcribe);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const [a, b] = (await Promise.all([first.json(), again.json()])) as { job_id: string }[];
    expect(b!.job_id).toBe(a!.job_id);
    const changed = await post(key, { ...transcribe, filename: 'other.mp3' });
    expect(changed.status).toBe(422);
    // A refused request is an answer too: replayed, not re-run.
    const badKey = `k-${crypto.randomUUID()}`;
    expect((await post(badKey, { job_type: 'nope' })).status).toBe(400);
    expect((await post(badKey, { job_type: 'nope' })).headers.get('idempotent-replayed')).toBe('true');
  });

  it('two anonymous callers with one Idempotency-Key get two sessions', async () => {
    const post = () => fetch(`${stack.coordinator.url}/api/v1/sessions`, { method: 'POST', headers: { 'idempotency-key': 'same-key-for-everyone' } });
    const [a, b] = [await post(), await post()];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers.get('idempotent-replayed')).toBeNull();
    const [sa, sb] = (await Promise.all([a.json(), b.json()])) as { session_token: string; session_id: string }[];
    expect(sb!.session_token).not.toBe(sa!.session_token);
    expect(sb!.session_id).not.toBe(sa!.session_id);
  });

  it('serves the OpenAPI document generated from the route schemas', async () => {
    for (const path of ['/openapi.json', '/.well-known/openapi.json']) {
      const doc = (await stack.api.call('GET', path)).body;
      expect(doc.openapi).toBe('3.1.0');
      expect(Object.keys(doc.paths)).toEqual(
        expect.arrayContaining([
          '/api/v1/sessions',
          '/api/v1/sessions/me',
          '/api/v1/jobs',
          '/api/v1/jobs/{id}',
          '/api/v1/jobs/{id}/upload-url',
          '/api/v1/jobs/{id}/complete-upload',
          '/api/v1/jobs/{id}/outputs/{role}/download',
          '/api/v1/jobs/{id}/source',
        ]),
      );
      expect(Object.keys(doc.paths).some((p) => p.startsWith('/internal'))).toBe(false);
      const body = doc.paths['/api/v1/jobs'].post.requestBody.content['application/json'].schema;
      expect(body.properties.segments.maxItems).toBe(50);
      expect(body.properties.query.maxLength).toBe(500);
    }
    const health = await stack.api.call('GET', '/health');
    expect(health.body).toMatchObject({ status: 'ok', checks: { database: 'ok', nats: 'ok', storage: 'ok' } });
  });
});
