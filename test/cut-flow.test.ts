import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { execa } from 'execa';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Challenge } from 'mppx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSrt } from '@cutroom/shared/transcript/srt';
import { jobs } from '../coordinator/src/db/schema.ts';
import { chainPayer } from './harness/chain-payer.ts';
import { concatWavs, librivoxUtterances } from './harness/media.ts';
import { probeStreams, streamOf } from './harness/probe.ts';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * The cut product line end to end on real parts, billing on: a transcribe parent paid by the
 * stock mppx client, then extract_clip and extract_vertical_clip created free, paid at /process
 * (402 → the same stock client) and cut by a render-agent from the parent's stored source in
 * MinIO (presigned GET: the agent holds no storage credentials). An expired parent costs nothing.
 */
describe('cuts over REST (extract_clip, extract_vertical_clip)', () => {
  let stack: Stack;
  let payer: ReturnType<typeof chainPayer>;
  let base: string;
  let token: string;
  let parentId: string;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-cuts-'));
  const video = join(work, 'talk.mp4');
  const CUT_PRICE = 200_000n; // 0.20 USDC

  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const balance = () => payer.balanceOf(payer.address);

  async function download(url: string, name: string): Promise<string> {
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const file = join(work, name);
    writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    return file;
  }

  /** POST /jobs for a derivative (free), then /process: 402 first, then the stock client pays it. */
  async function payAndProcess(body: Record<string, unknown>): Promise<string> {
    const created = await stack.api.call('POST', '/api/v1/jobs', { token, json: { source_job_id: parentId, ...body } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ payment_status: 'pending', price_cents: 50, source_job_id: parentId, next_endpoint: 'process' });
    expect(created.body.checkout_url).toBeUndefined();
    const id = created.body.job_id as string;
    const unpaid = await fetch(`${base}/api/v1/jobs/${id}/process`, { method: 'POST', headers: bearer(token) });
    expect(unpaid.status).toBe(402);
    const challenges = Challenge.fromResponseList(unpaid);
    expect(challenges.map((c) => c.method)).toEqual(['evm', 'stripe']);
    expect(challenges[0]!.request).toMatchObject({ amount: String(CUT_PRICE), externalId: id });
    const before = await balance();
    const paid = await payer.mppx.fetch(`${base}/api/v1/jobs/${id}/process`, { method: 'POST', headers: bearer(token) });
    expect(paid.status).toBe(200);
    expect(await paid.json()).toEqual({ job_id: id, status: 'processing' });
    expect(await balance()).toBe(before - CUT_PRICE);
    return id;
  }

  beforeAll(async () => {
    const speech = join(work, 'speech.wav');
    await concatWavs(
      librivoxUtterances().map((u) => u.file),
      speech,
    );
    // 1280x720 at 25 fps with keyframes 10 s apart: a keyframe-snapped cut would be visibly off.
    await execa('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25', '-i', speech, '-shortest'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '250', '-keyint_min', '250', '-sc_threshold', '0', '-pix_fmt', 'yuv420p', '-c:a', 'aac', video],
    ]);
    stack = await startStack({ billing: true, storage: 's3', agents: 1 });
    payer = chainPayer(stack.billing!);
    base = stack.coordinator.url;
    token = await stack.api.newSession();

    const created = await stack.api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'transcribe', filename: 'talk.mp4', content_type: 'video/mp4' } });
    parentId = created.body.job_id;
    const up = await payer.mppx.fetch(`${base}/api/v1/jobs/${parentId}/upload-url`, { headers: bearer(token) });
    const { upload_url } = (await up.json()) as { upload_url: string };
    expect((await fetch(upload_url, { method: 'PUT', headers: { 'content-type': 'video/mp4' }, body: readFileSync(video) })).ok).toBe(true);
    expect((await stack.api.call('POST', `/api/v1/jobs/${parentId}/complete-upload`, { token })).status).toBe(200);
    const parent = await stack.api.waitForJob(token, parentId);
    expect(parent.status, parent.error_message).toBe('completed');
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('extract_clip: two segments paid at /process, one mp4 of exactly their frames, with the transcript re-timed to it', async () => {
    const segments = [
      { start: 1.5, end: 4.5, label: 'first' },
      { start: 12.04, end: 15 },
    ];
    const id = await payAndProcess({ job_type: 'extract_clip', segments });
    const job = await stack.api.waitForJob(token, id);
    expect(job.status, job.error_message).toBe('completed');
    expect(job).toMatchObject({ payment_status: 'paid', source_job_id: parentId, encoder: 'libx264' });
    expect(Date.parse(job.expires_at) - Date.parse(job.completed_at)).toBe(24 * 3600_000);
    expect(job.outputs.map((o: any) => [o.role, o.content_type])).toEqual([
      ['clip', 'video/mp4'],
      ['transcript', 'application/x-subrip'],
    ]);
    const clip = await download(job.outputs[0].download_url, 'clip.mp4');
    const p = await probeStreams(clip);
    expect(streamOf(p, 'video')).toMatchObject({ codec_name: 'h264', width: 1280, height: 720, avg_frame_rate: '25/1' });
    expect(streamOf(p, 'audio')).toMatchObject({ codec_name: 'aac' });
    // 3 s + 2.96 s = 149 frames at 25 fps.
    expect(Number(streamOf(p, 'video')!.nb_frames)).toBe(149);
    expect(p.duration).toBeCloseTo(5.96, 1);
    // +faststart: the index (moov) comes before the media data (mdat).
    const head = readFileSync(clip)
      .subarray(0, 64 * 1024)
      .toString('latin1');
    expect(head.indexOf('moov')).toBeGreaterThan(-1);
    expect(head.indexOf('moov')).toBeLessThan(head.indexOf('mdat') === -1 ? Number.POSITIVE_INFINITY : head.indexOf('mdat'));

    const srtLink = await stack.api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download`, { token });
    const cues = parseSrt(await (await fetch(srtLink.body.download_url)).text());
    expect(cues.length).toBeGreaterThan(0);
    expect(Math.max(...cues.map((c) => c.end))).toBeLessThanOrEqual(5.96 + 0.001);
    const words = await stack.api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=words`, { token });
    expect(words.body.duration).toBeCloseTo(5.96, 2);
    const all = words.body.segments.flatMap((s: any) => s.words);
    expect(all.length).toBeGreaterThan(3);
    for (const w of all) expect(w.end).toBeLessThanOrEqual(5.96 + 0.001);
    // Every re-timed word is a word of the parent at the mapped time.
    const parentWords = (await stack.api.call('GET', `/api/v1/jobs/${parentId}/outputs/transcript/download?format=words`, { token })).body.segments.flatMap(
      (s: any) => s.words,
    );
    const toSource = (t: number) => (t < 3 ? 1.5 + t : 12.04 + (t - 3));
    for (const w of all) {
      const match = parentWords.find((pw: any) => pw.word === w.word && Math.abs(pw.start - toSource(w.start)) < 0.5);
      expect(match, `${w.word} at ${w.start}`).toBeDefined();
    }
    for (const format of ['txt', 'vtt', 'json']) {
      expect((await stack.api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=${format}`, { token })).status).toBe(200);
    }
  });

  it('extract_vertical_clip: 720x1280 H.264/AAC at -14 LUFS, with a subjects document that validates', async () => {
    const id = await payAndProcess({ job_type: 'extract_vertical_clip', start: 2, end: 8, profile: 'vidA-primary-720p' });
    const job = await stack.api.waitForJob(token, id);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.outputs.map((o: any) => o.role)).toEqual(['clip', 'subjects']);
    const clip = await download(job.outputs[0].download_url, 'vertical.mp4');
    const p = await probeStreams(clip);
    expect(streamOf(p, 'video')).toMatchObject({ codec_name: 'h264', width: 720, height: 1280 });
    expect(streamOf(p, 'video')!.sample_aspect_ratio ?? '1:1').toBe('1:1');
    expect(streamOf(p, 'audio')).toMatchObject({ codec_name: 'aac' });
    expect(Math.abs(p.duration - 6)).toBeLessThanOrEqual(0.1);
    const r = await execa('ffmpeg', ['-hide_banner', '-nostats', '-i', clip, '-map', '0:a', '-af', 'ebur128=peak=true', '-f', 'null', '-'], { reject: false });
    const integrated = Number(/I:\s+(-?[\d.]+) LUFS/.exec(r.stderr.slice(r.stderr.lastIndexOf('Summary')))?.[1]);
    expect(Math.abs(integrated + 14)).toBeLessThanOrEqual(0.5);

    const subjects = (await (await fetch(job.outputs[1].download_url)).json()) as any;
    const schema = (await (await fetch(`${base}/.well-known/cutroom-subjects-v1.schema.json`)).json()) as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(subjects), JSON.stringify(validate.errors)).toBe(true);
    expect(subjects).toMatchObject({ version: 1, strategy: 'center', clip: { start: 2, end: 8 }, crop: { width: 406, height: 720, scaled_only: false } });
    // center: the crop sits in the middle of the 1280-wide frame.
    expect(Math.abs(subjects.crop.path[0].x - (1280 - 406) / 2)).toBeLessThanOrEqual(1);
  });

  it('an expired parent costs nothing: /process answers 410 before any 402 or charge', async () => {
    const created = await stack.api.call('POST', '/api/v1/jobs', {
      token,
      json: { job_type: 'extract_clip', source_job_id: parentId, segments: [{ start: 0, end: 1 }] },
    });
    expect(created.status).toBe(201);
    await stack.coordinator.ctx.db
      .update(jobs)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(jobs.id, parentId));
    const before = await balance();
    const res = await payer.mppx.fetch(`${base}/api/v1/jobs/${created.body.job_id}/process`, { method: 'POST', headers: bearer(token) });
    expect(res.status).toBe(410);
    expect(((await res.json()) as { error: string }).error).toMatch(/expired at .* upload the recording again/);
    expect(await balance()).toBe(before);
    const again = await stack.api.call('POST', '/api/v1/jobs', {
      token,
      json: { job_type: 'extract_vertical_clip', source_job_id: parentId, start: 0, end: 2 },
    });
    expect(again.status).toBe(410);
  });
});
