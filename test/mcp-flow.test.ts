import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSrt } from '@cutroom/shared/transcript/srt';
import { MCP_TOOLS } from '../coordinator/src/mcp/catalog.ts';
import { concatWavs, librivoxUtterances, makeVideo } from './harness/media.ts';
import { probeStreams } from './harness/probe.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * MCP end to end with the official client (Client + StreamableHTTPClientTransport) on the real
 * stack, billing off (the zero-config default): tools/list, transcribe on real speech through
 * create → PUT → complete_upload → get_job_status (waiting, with progress notifications) →
 * get_transcript, then a cut of its result without a re-upload.
 */
describe('MCP with the official client', () => {
  let stack: Stack;
  let client: Client;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-mcp-'));
  const speech = join(work, 'speech.wav');
  const video = join(work, 'speech.mp4');

  const connect = async (headers: Record<string, string> = {}) => {
    const c = new Client({ name: 'cutroom-test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers } }));
    return c;
  };
  const call = async (name: string, args: Record<string, unknown>, c = client) => {
    const r = await c.callTool({ name, arguments: args });
    return r as { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };
  };

  beforeAll(async () => {
    await concatWavs(
      librivoxUtterances()
        .slice(0, 3)
        .map((u) => u.file),
      speech,
    );
    await makeVideo(speech, video);
    stack = await startStack({ storage: 'local', agents: 1 });
    client = await connect();
  });
  afterAll(async () => {
    await client?.close();
    await stack?.stop();
  });

  it('initializes statelessly and lists every tool of the catalog with its input schema', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'cutroom', version: '1.0.0' });
    expect(client.getInstructions()).toContain('find_clips');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS.map((t) => t.name).sort());
    for (const name of [
      'transcribe',
      'summarize',
      'find_clips',
      'extract_clip',
      'extract_vertical_clip',
      'complete_upload',
      'get_job_status',
      'mpp_smoke_test',
    ]) {
      expect(tools.map((t) => t.name)).toContain(name);
    }
    const extract = tools.find((t) => t.name === 'extract_vertical_clip')!;
    expect(extract.inputSchema.required).toEqual(expect.arrayContaining(['source_job_id', 'start', 'end']));
    expect(Object.keys(extract.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['profile', 'subject', 'subject_box', 'session_token']));
    expect(tools.find((t) => t.name === 'transcribe')!.description).toMatch(/find_clips/);
  });

  it('refuses bad arguments with a tool error, and an unknown tool with a JSON-RPC error', async () => {
    const bad = await call('transcribe', { filename: 'a.wav' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]!.text).toMatch(/invalid arguments for transcribe: content_type/);
    // content_type is an enum of the accepted media types over MCP: anything else is refused by the schema, naming the field.
    const wrongType = await call('transcribe', { filename: 'a.wav', content_type: 'application/zip' });
    expect(wrongType.isError).toBe(true);
    expect(wrongType.structuredContent).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(wrongType.content[0]!.text).toMatch(/content_type/);
    const foreign = await call('get_job_status', { job_id: '00000000-0000-4000-8000-000000000000', bogus: 1 });
    expect(foreign.isError).toBe(true);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toBeInstanceOf(McpError);
    // Another call without a session: refused with what to do, never a crash.
    const cut = await call('extract_clip', { source_job_id: '00000000-0000-4000-8000-000000000000', segments: [{ start: 0, end: 1 }] });
    expect(cut.isError).toBe(true);
    expect(cut.structuredContent).toMatchObject({ code: 'unauthenticated' });
    expect(cut.content[0]!.text).toMatch(/create_session/);
  });

  it('transcribes real speech end to end: create, PUT, complete_upload, wait with progress, transcript in every format; then cuts it', async () => {
    const created = await call('transcribe', { filename: 'reading.mp4', content_type: 'video/mp4' });
    expect(created.isError, created.content[0]?.text).toBeFalsy();
    const { job_id, upload_url, session_token } = created.structuredContent!;
    expect(session_token, 'a call without a session gets one (billing off)').toEqual(expect.any(String));
    expect(created.structuredContent).toMatchObject({ payment_status: 'paid', next: expect.stringMatching(/complete_upload/) });

    const put = await fetch(upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(video) });
    expect(put.ok).toBe(true);
    // From here the token travels as an argument (a host that cannot set headers).
    const done = await call('complete_upload', { job_id, session_token });
    expect(done.structuredContent).toMatchObject({ job_id, status: 'processing' });

    const progress: { progress: number; message?: string }[] = [];
    const status = (await client.callTool({ name: 'get_job_status', arguments: { job_id, session_token, wait_seconds: 240 } }, undefined, {
      onprogress: (p) => progress.push(p),
      timeout: 250_000,
      resetTimeoutOnProgress: true,
    })) as { structuredContent: Record<string, any> };
    expect(status.structuredContent.status, status.structuredContent.error_message).toBe('completed');
    expect(status.structuredContent.outputs.map((o: { role: string }) => o.role)).toEqual(['transcript']);
    expect(progress.length, 'progress notifications while waiting').toBeGreaterThan(1);
    for (let i = 1; i < progress.length; i++) expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
    expect(progress.map((p) => p.message).join(' ')).toMatch(/transcribing/);

    const srt = await call('get_transcript', { job_id, session_token });
    const cues = parseSrt(srt.content[0]!.text);
    expect(cues.length).toBeGreaterThan(0);
    const words = await call('get_transcript', { job_id, session_token, format: 'words' });
    const v2 = JSON.parse(words.structuredContent!.transcript);
    expect(v2.segments.flatMap((s: { words: unknown[] }) => s.words).length).toBeGreaterThan(10);
    const edit = await call('get_transcript', { job_id, session_token, format: 'edit' });
    expect(edit.content[0]!.text).toMatch(/^\[0001\] /);
    const badFormat = await call('get_transcript', { job_id, session_token, format: 'docx' });
    expect(badFormat.isError).toBe(true);

    // A cut of its result: no re-upload, the token now in the Authorization header.
    const authed = await connect({ authorization: `Bearer ${session_token}` });
    try {
      const cut = await call('extract_clip', { source_job_id: job_id, segments: [{ start: 1, end: 4.5 }] }, authed);
      expect(cut.isError, cut.content[0]?.text).toBeFalsy();
      expect(cut.structuredContent).toMatchObject({ source_job_id: job_id, status: 'processing', job_type: 'extract_clip' });
      const clip = await call('get_job_status', { job_id: cut.structuredContent!.job_id, wait_seconds: 120 }, authed);
      expect(clip.structuredContent!.status, clip.structuredContent!.error_message).toBe('completed');
      const links = await call('get_download_links', { job_id: cut.structuredContent!.job_id }, authed);
      const mp4 = links.structuredContent!.outputs.find((o: { role: string }) => o.role === 'clip');
      const info = await probeStreams(mp4.download_url);
      expect(info.duration).toBeGreaterThan(3.3);
      expect(info.duration).toBeLessThan(3.8);
      // The session's jobs, newest first, found again by list_jobs (and narrowed by its filters).
      const listed = await call('list_jobs', {}, authed);
      expect(listed.structuredContent!.jobs.map((j: { job_id: string }) => j.job_id)).toEqual([cut.structuredContent!.job_id, job_id]);
      expect(listed.structuredContent!.next_cursor).toBeNull();
      const cuts = await call('list_jobs', { source_job_id: job_id, status: 'completed' }, authed);
      expect(cuts.structuredContent!.jobs).toEqual([expect.objectContaining({ job_id: cut.structuredContent!.job_id, job_type: 'extract_clip' })]);
      const badCursor = await call('list_jobs', { cursor: 'nope' }, authed);
      expect(badCursor.isError).toBe(true);
      expect(badCursor.structuredContent).toMatchObject({ code: 'invalid_request', status: 400 });
      // Another session cannot read the job, and does not see it listed.
      const strangerToken = (await call('create_session', {})).structuredContent!.session_token;
      const stranger = await call('get_job_status', { job_id, session_token: strangerToken });
      expect(stranger.isError).toBe(true);
      expect(stranger.structuredContent).toMatchObject({ code: 'forbidden', status: 403 });
      expect((await call('list_jobs', { session_token: strangerToken })).structuredContent).toEqual({ jobs: [], next_cursor: null });
    } finally {
      await authed.close();
    }
  });
});
