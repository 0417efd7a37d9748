import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSessionCall } from '../../service/index.ts';
import { startTestApp } from '../../testing/test-app.ts';

/** POST /jobs lists four job types it never creates: the OpenAPI document says why, and the 400 says where instead. */
let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t.close());

const WHERE: Record<string, RegExp> = {
  clips_vertical: /POST \/jobs\/\{parent_job_id\}\/derivatives/,
  clips_horizontal: /MCP tool/,
  clips_from_video: /MCP tool/,
  clips_youtube: /MCP tool/,
};

describe('POST /jobs and the types it does not create', () => {
  it('answers each with 400 {error} naming where it is created, and the document says the same', async () => {
    const token = (await createSessionCall(t.ctx)).session_token;
    for (const [type, where] of Object.entries(WHERE)) {
      const res = await t.app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { authorization: `Bearer ${token}` }, payload: { job_type: type } });
      expect(res.statusCode, type).toBe(400);
      expect(res.json().error, type).toMatch(where);
    }
    const op = (await t.app.inject({ url: '/openapi.json' })).json().paths['/api/v1/jobs'].post;
    const jobType = op.requestBody.content['application/json'].schema.properties.job_type;
    expect(jobType.enum).toEqual(expect.arrayContaining(Object.keys(WHERE)));
    for (const type of Object.keys(WHERE)) expect(jobType.description).toContain(`\`${type}\``);
    expect(jobType.description).toMatch(/clips_vertical.*created at POST \/jobs\/\{parent_job_id\}\/derivatives/);
    expect(op.description).toMatch(/clips_vertical is created at POST \/jobs\/\{parent_job_id\}\/derivatives/);
  });
});
