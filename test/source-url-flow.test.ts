import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTopicTalk, openingOf, TOPIC_TEXTS } from './harness/media-gen/topic-talk.ts';
import { concatWavs, librivoxUtterances, makeVideo } from './harness/media.ts';
import { probeStreams } from './harness/probe.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Media by URL end to end on the real stack: a transcribe job created with a source_url of a local
 * HTTP server (reachable only because the agent is given the test allowance for 127.0.0.1, and the
 * coordinator allows http), started by process, fetched by the agent, transcribed, and its fetched
 * file kept as the job's source (a cut of it works without any upload); a URL of a web page fails
 * the job with the reason; an address the service never fetches is refused at creation; the same
 * over MCP in one tool call, with no HTTP outside MCP for submitting.
 */
describe('media by URL (source_url)', () => {
  let stack: Stack;
  let token: string;
  let server: http.Server;
  let base: string;
  const served: string[] = [];
  const work = mkdtempSync(join(tmpdir(), 'cutroom-source-url-'));
  const speech = join(work, 'speech.wav');
  const video = join(work, 'talk.mp4');
  const topicVideo = join(work, 'topics.mp4');

  beforeAll(async () => {
    await concatWavs(
      librivoxUtterances()
        .slice(0, 2)
        .map((u) => u.file),
      speech,
    );
    await makeVideo(speech, video);
    // Two topics of about 45 s each (as products-flow): find_clips has moments to offer.
    const talk = await makeTopicTalk(work, { topics: TOPIC_TEXTS.slice(0, 2).map((t) => openingOf(t, 8)), name: 'topics.wav' });
    await makeVideo(talk.wav, topicVideo, { fps: 10 });
    const wav = readFileSync(speech);
    const mp4 = readFileSync(video);
    const topics = readFileSync(topicVideo);
    server = http.createServer((req, res) => {
      served.push(req.url!);
      if (req.url === '/media/talk.wav') res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length }).end(wav);
      else if (req.url === '/media/talk.mp4') res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': mp4.length }).end(mp4);
      else if (req.url === '/share/talk') res.writeHead(302, { location: '/media/talk.mp4' }).end();
      else if (req.url === '/media/topics.mp4') res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': topics.length }).end(topics);
      else if (req.url === '/watch?v=talk')
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end('<!doctype html><html><head><title>talk</title></head><body><video src="/media/talk.wav"></video></body></html>');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stack = await startStack({
      storage: 'local',
      agents: 1,
      env: { SOURCE_URL_ALLOW_HTTP: 'true', SOURCE_URL_TEST_ALLOW_ADDRESSES: '127.0.0.1' },
      agentEnv: { SOURCE_URL_TEST_ALLOW_ADDRESSES: '127.0.0.1' },
    });
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  });

  const create = (json: Record<string, unknown>) => stack.api.call('POST', '/api/v1/jobs', { token, json });
  const finished = (id: string) => stack.api.waitForJob(token, id, (j) => ['completed', 'failed'].includes(j.status), 120_000);

  it('transcribes a file fetched from its URL (through a redirect), started by process, and keeps it as the source for cuts', async () => {
    const created = await create({ job_type: 'transcribe', source_url: `${base}/share/talk`, content_type: 'video/mp4' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ next_endpoint: 'process', payment_status: 'paid', price_cents: 100 });
    const id = created.body.job_id as string;
    // Nothing to upload: the upload calls say what to call instead.
    const upload = await stack.api.call('GET', `/api/v1/jobs/${id}/upload-url`, { token });
    expect([upload.status, upload.body.error]).toEqual([400, expect.stringMatching(/fetches its source_url.*process/)]);
    const started = await stack.api.call('POST', `/api/v1/jobs/${id}/process`, { token });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const job = await finished(id);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.original_filename).toBe('talk');
    expect(job.file_size).toBe(readFileSync(video).length);
    expect(served).toEqual(expect.arrayContaining(['/share/talk', '/media/talk.mp4']));
    const srt = await stack.api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=txt`, { token });
    expect(String(srt.body).split(/\s+/).length).toBeGreaterThan(10);
    // The fetched file is the job's source: a cut of it needs no upload and no second fetch.
    const fetches = served.length;
    const cut = await create({ job_type: 'extract_clip', source_job_id: id, segments: [{ start: 1, end: 3 }], include_transcript: false });
    expect(cut.status, JSON.stringify(cut.body)).toBe(201);
    expect((await stack.api.call('POST', `/api/v1/jobs/${cut.body.job_id}/process`, { token })).status).toBe(200);
    const cutJob = await finished(cut.body.job_id);
    expect(cutJob.status, cutJob.error_message).toBe('completed');
    const clip = await probeStreams(cutJob.outputs.find((o: { role: string }) => o.role === 'clip').download_url);
    expect(clip.duration).toBeGreaterThan(1.8);
    expect(clip.duration).toBeLessThan(2.3);
    expect(served.length).toBe(fetches);
  });

  it('fails the job, saying why, when the URL is a web page; refuses at creation what is never fetched', async () => {
    const page = await create({ job_type: 'summarize', source_url: `${base}/watch?v=talk`, content_type: 'video/mp4' });
    expect(page.status).toBe(201);
    expect((await stack.api.call('POST', `/api/v1/jobs/${page.body.job_id}/process`, { token })).status).toBe(200);
    const failed = await finished(page.body.job_id);
    expect(failed.status).toBe('failed');
    expect(failed.error_message).toBe('the file at the source_url is a web page, not audio or video: give the URL of the media file itself');

    for (const [url, why] of [
      ['http://169.254.169.254/latest/meta-data/', /link-local/],
      ['https://[::1]/a.wav', /loopback/],
      ['https://10.0.0.7/a.wav', /private/],
      ['ftp://media.example/a.wav', /ftp URLs are not fetched/],
      ['https://user:pw@media.example/a.wav', /user name or password/],
      ['not a url', /not an absolute URL/],
    ] as const) {
      const refused = await create({ job_type: 'transcribe', source_url: url, content_type: 'audio/wav' });
      expect(refused.status, url).toBe(400);
      expect(refused.body.error, url).toMatch(why);
    }
    const foreign = await create({ job_type: 'extract_clip', source_url: `${base}/media/talk.wav`, segments: [{ start: 0, end: 1 }] });
    expect([foreign.status, foreign.body.error]).toEqual([400, expect.stringContaining('source_url does not apply to job_type extract_clip')]);
  });

  it('takes a source_url over MCP in one tool call: no HTTP outside MCP to submit', async () => {
    const client = new Client({ name: 'cutroom-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    );
    try {
      const r = (await client.callTool({ name: 'transcribe', arguments: { source_url: `${base}/media/talk.wav`, content_type: 'audio/wav' } })) as {
        isError?: boolean;
        structuredContent?: Record<string, any>;
        content: { text: string }[];
      };
      expect(r.isError, r.content[0]?.text).toBeFalsy();
      expect(r.structuredContent).toMatchObject({ status: 'processing', payment_status: 'paid', next: expect.stringContaining('get_job_status') });
      expect(r.structuredContent).not.toHaveProperty('upload_url');
      const status = (await client.callTool({ name: 'get_job_status', arguments: { job_id: r.structuredContent!.job_id, wait_seconds: 120 } }, undefined, {
        timeout: 130_000,
      })) as {
        structuredContent: Record<string, any>;
      };
      expect(status.structuredContent.status, status.structuredContent.error_message).toBe('completed');
      expect(status.structuredContent.outputs.map((o: { role: string }) => o.role)).toEqual(['transcript']);
    } finally {
      await client.close();
    }
  });

  it('serves a scripted agent over MCP alone: find_clips from a source_url, then clips_vertical of its best candidate', async () => {
    // An agent host that speaks only MCP: no session made over REST, no upload, no HTTP but MCP until the finished files are downloaded.
    const agent = new Client({ name: 'scripted-agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${stack.coordinator.url}/mcp`)));
    type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: { text: string }[] };
    const call = async (name: string, args: Record<string, unknown>, timeout = 60_000) =>
      (await agent.callTool({ name, arguments: args }, undefined, { timeout })) as Result;
    try {
      expect(agent.getInstructions()).toMatch(/source_url/);
      const session = (await call('create_session', {})).structuredContent!.session_token as string;
      const found = await call('find_clips', { source_url: `${base}/media/topics.mp4`, content_type: 'video/mp4', target: 'short', session_token: session });
      expect(found.isError, found.content[0]?.text).toBeFalsy();
      const findJob = found.structuredContent!.job_id as string;
      const done = await call('get_job_status', { job_id: findJob, wait_seconds: 240, session_token: session }, 250_000);
      expect(done.structuredContent!.status, done.structuredContent!.error_message).toBe('completed');
      const clipsUrl = done.structuredContent!.outputs.find((o: { role: string }) => o.role === 'clips').download_url as string;
      const candidates = ((await (await fetch(clipsUrl)).json()) as { candidates: { id: string; start: number; end: number }[] }).candidates;
      expect(candidates.length).toBeGreaterThan(0);
      const best = candidates[0]!;
      const bundle = await call('clips_vertical', {
        source_job_id: findJob,
        clips: [{ candidate_id: best.id, profile: 'vidA-primary-720p' }],
        session_token: session,
      });
      expect(bundle.isError, bundle.content[0]?.text).toBeFalsy();
      const cut = await call('get_job_status', { job_id: bundle.structuredContent!.job_id, wait_seconds: 240, session_token: session }, 250_000);
      expect(cut.structuredContent!.status, cut.structuredContent!.error_message).toBe('completed');
      const clip = cut.structuredContent!.outputs.find((o: { role: string }) => o.role === 'clip_1');
      const probe = await probeStreams(clip.download_url);
      const v = probe.streams.find((st: { codec_type: string }) => st.codec_type === 'video') as { width: number; height: number };
      expect(v.width / v.height).toBeCloseTo(9 / 16, 2);
      expect(Math.abs(probe.duration - (best.end - best.start))).toBeLessThan(0.5);
    } finally {
      await agent.close();
    }
  }, 400_000);
});
