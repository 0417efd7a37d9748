import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimJob } from '../agents/claim.ts';
import { MCP_TOOLS } from '../mcp/catalog.ts';
import { completeUploadCall, createSessionCall } from '../service/index.ts';
import { jobRow } from '../testing/engine-ctx.ts';
import { mp4Bytes } from '@cutroom/shared/testing/media-bytes';
import { startTestApp } from '../testing/test-app.ts';

/** find_clips' `target` from the request to the agent's assignment, over REST on the engine (PGlite, manual clock). */
let t: Awaited<ReturnType<typeof startTestApp>>;
beforeAll(async () => {
  t = await startTestApp();
}, 60_000);
afterAll(() => t.close());

async function session() {
  const s = await createSessionCall(t.ctx);
  return {
    token: s.session_token,
    creds: { bearer: s.session_token, authorization: `Bearer ${s.session_token}`, paymentSignature: undefined, resourceUrl: 'http://test/' },
  };
}

const post = (token: string, payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/v1/jobs', headers: { authorization: `Bearer ${token}` }, payload });

/** Created over REST, uploaded and claimed: the assignment an agent gets. */
async function assignmentOf(payload: Record<string, unknown>) {
  const { token, creds } = await session();
  const res = await post(token, { job_type: 'find_clips', filename: 'talk.mp4', content_type: 'video/mp4', ...payload });
  expect(res.statusCode, res.body).toBe(201);
  const id = res.json().job_id as string;
  await t.ctx.blobs.put(`jobs/${id}/upload`, mp4Bytes(), 'video/mp4');
  await completeUploadCall(t.ctx, creds, id);
  const claimed = await claimJob(t.ctx, { v: 1, job_id: id, agent_id: 'agent-1' });
  if (!claimed.claimed) throw new Error(`not claimed: ${claimed.reason}`);
  return { row: await jobRow(t.ctx, id), assignment: claimed.assignment };
}

describe('find_clips target', () => {
  it('is stored and sent to the agent when asked for, and left out when not (the default)', async () => {
    const short = await assignmentOf({ target: 'short' });
    expect(short.row.params).toMatchObject({ query: null, target: 'short' });
    expect(short.assignment).toMatchObject({ job_type: 'find_clips', params: { query: null, target: 'short' } });
    const plain = await assignmentOf({ query: 'bees' });
    expect(plain.row.params).not.toHaveProperty('target');
    expect(plain.assignment.params).toEqual({ language: null, model: expect.any(String), query: 'bees' });
  });

  it('refuses an unknown target with 400 {error} naming the field, and a target on a type that takes none', async () => {
    const { token } = await session();
    const huge = await post(token, { job_type: 'find_clips', filename: 'talk.mp4', content_type: 'video/mp4', target: 'huge' });
    expect(huge.statusCode).toBe(400);
    expect(Object.keys(huge.json())).toContain('error');
    expect(huge.json().error).toMatch(/target/);
    const summarize = await post(token, { job_type: 'summarize', filename: 'talk.mp4', content_type: 'video/mp4', target: 'short' });
    expect(summarize.statusCode).toBe(400);
    expect(summarize.json().error).toMatch(/target does not apply to job_type summarize/);
  });

  it('is offered by the MCP tool find_clips, as the same enum', () => {
    const tool = MCP_TOOLS.find((x) => x.name === 'find_clips')!;
    expect(tool.description).toMatch(/short 15-60 s/);
    expect(tool.input.safeParse({ filename: 'a.mp4', content_type: 'video/mp4', target: 'medium' }).success).toBe(true);
    expect(tool.input.safeParse({ filename: 'a.mp4', content_type: 'video/mp4', target: 'huge' }).success).toBe(false);
  });
});
