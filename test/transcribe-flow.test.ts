import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parseSrt } from '@cutroom/shared/transcript/srt';
import { undecodableMp4 } from './harness/bad-media.ts';
import { concatWavs, librivoxUtterances, makeVideo } from './harness/media.ts';
import { startStack, type Stack } from './harness/stack.ts';
import { wordErrorRate } from './harness/wer.ts';

/**
 * The REST flow end to end on real parts (Postgres, JetStream, MinIO, ffmpeg, faster-whisper
 * tiny.en) with real speech, checked against the LibriVox reference transcripts.
 */
describe('transcribe over REST', () => {
  let stack: Stack;
  let token: string;
  const work = mkdtempSync(join(tmpdir(), 'cutroom-flow-'));
  const utterances = librivoxUtterances();
  const speech = join(work, 'speech.wav');
  const video = join(work, 'speech.mp4');
  const reference = utterances.map((u) => u.reference).join(' ');

  beforeAll(async () => {
    await concatWavs(
      utterances.map((u) => u.file),
      speech,
    );
    await makeVideo(speech, video);
    stack = await startStack({ storage: 's3', agents: 1 });
    token = await stack.api.newSession();
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('transcribes real speech within the word error rate tiny.en reaches, in every format', async () => {
    const { api } = stack;
    const id = await api.submitTranscribe(token, speech, 'austen reading.wav', 'audio/wav');
    const job = await api.waitForJob(token, id);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.payment_status).toBe('paid');
    expect(job.duration_seconds).toBeGreaterThan(20);
    expect(job.file_size).toBeGreaterThan(100_000);
    expect(Date.parse(job.expires_at) - Date.parse(job.completed_at)).toBe(24 * 3600_000);
    expect(job.outputs).toHaveLength(1);
    expect(job.outputs[0]).toMatchObject({ role: 'transcript', content_type: 'application/x-subrip' });

    // srt: a presigned URL whose content parses and covers the speech.
    const srtLink = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=srt`, { token });
    expect(srtLink.status).toBe(200);
    const srtRes = await fetch(srtLink.body.download_url);
    expect(srtRes.headers.get('content-disposition')).toContain('attachment');
    const cues = parseSrt(await srtRes.text());
    expect(cues.length).toBeGreaterThan(2);
    expect(wordErrorRate(reference, cues.map((c) => c.text).join(' '))).toBeLessThan(0.2);
    const noFormat = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download`, { token });
    expect(noFormat.body.output_id).toBe(job.outputs[0].output_id);

    const txt = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=txt`, { token });
    expect(txt.headers.get('content-type')).toContain('text/plain');
    const wer = wordErrorRate(reference, txt.body);
    expect(wer).toBeLessThan(0.2);

    const vtt = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=vtt`, { token });
    expect(vtt.headers.get('content-type')).toContain('text/vtt');
    expect(vtt.body.startsWith('WEBVTT')).toBe(true);

    // edit: one [NNNN] line per sentence, words as in the transcript.
    const edit = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=edit`, { token });
    expect(edit.headers.get('content-type')).toContain('text/plain');
    const editLines = edit.body.trimEnd().split('\n');
    expect(editLines.length).toBeGreaterThan(2);
    for (const [i, line] of editLines.entries()) expect(line.startsWith(`[${String(i + 1).padStart(4, '0')}] `)).toBe(true);
    expect(wordErrorRate(reference, editLines.map((l: string) => l.slice(7)).join(' '))).toBeLessThan(0.2);

    const v1 = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=json`, { token });
    expect(v1.body.version).toBe(1);
    expect(v1.body.segments[0].words).toBeUndefined();

    // words: validates against the JSON Schema the service publishes, and word times are sane.
    const words = await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=words`, { token });
    const schema = (await (await fetch(`${stack.coordinator.url}/.well-known/cutroom-transcript-v2.schema.json`)).json()) as object;
    const validate = new Ajv2020({ strict: false }).compile(schema);
    expect(validate(words.body), JSON.stringify(validate.errors)).toBe(true);
    const allWords = words.body.segments.flatMap((s: any) => s.words);
    expect(allWords.length).toBeGreaterThan(50);
    for (let i = 1; i < allWords.length; i++) expect(allWords[i].start).toBeGreaterThanOrEqual(allWords[i - 1].start);
    expect(allWords.at(-1).end).toBeLessThanOrEqual(job.duration_seconds + 0.5);
    expect(validate({ version: 2, language: 'en', duration: 1, segments: [{ id: 0, start: 0, end: 1, text: 'x' }] })).toBe(false);
  });

  it('transcribes the sound track of a video upload', async () => {
    const id = await stack.api.submitTranscribe(token, video, 'clip.mp4', 'video/mp4');
    const job = await stack.api.waitForJob(token, id);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.content_type).toBe('video/mp4');
    const txt = await stack.api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=txt`, { token });
    expect(wordErrorRate(reference, txt.body)).toBeLessThan(0.25);
  });

  it('fails a corrupt upload with a clear message and refunds it', async () => {
    // An MP4 signature, then nothing that decodes: it passes complete-upload's check and fails at the agent's probe.
    const bogus = join(work, 'bogus.mp4');
    writeFileSync(bogus, undecodableMp4(200_000));
    const id = await stack.api.submitTranscribe(token, bogus, 'bogus.mp4', 'video/mp4');
    const job = await stack.api.waitForJob(token, id);
    expect(job.status).toBe('failed');
    expect(job.payment_status).toBe('refunded');
    expect(job.error_message).toMatch(/not .*(audio|video|media)/i);
    expect(job.outputs).toEqual([]);
    const dl = await stack.api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=txt`, { token });
    expect(dl.status).toBe(404);
  });

  it('refuses a video uploaded as audio (it would pay the audio price) and refunds it', async () => {
    const id = await stack.api.submitTranscribe(token, video, 'sneaky.m4a', 'audio/mp4');
    const job = await stack.api.waitForJob(token, id);
    expect(job.status).toBe('failed');
    expect(job.payment_status).toBe('refunded');
    expect(job.error_message).toMatch(/is a video.*create a new job/);
    expect(job.outputs).toEqual([]);
  });

  it('deletes outputs and source on request, then the job reads as deleted', async () => {
    const { api } = stack;
    const id = await api.submitTranscribe(token, utterances[1]!.file, 'short.wav', 'audio/wav');
    expect((await api.waitForJob(token, id)).status).toBe('completed');
    expect((await api.call('DELETE', `/api/v1/jobs/${id}/outputs/transcript`, { token })).body).toEqual({ deleted: true });
    expect((await api.call('DELETE', `/api/v1/jobs/${id}/outputs/transcript`, { token })).status).toBe(404);
    expect((await api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=txt`, { token })).status).toBe(404);
    expect((await api.call('DELETE', `/api/v1/jobs/${id}/source`, { token })).body).toEqual({ deleted: true });
    expect((await api.call('DELETE', `/api/v1/jobs/${id}/source`, { token })).status).toBe(404);
    const job = (await api.call('GET', `/api/v1/jobs/${id}`, { token })).body;
    expect(job.status).toBe('deleted');
    expect(await stack.coordinator.ctx.blobs.head(`jobs/${id}/source`)).toBeNull();
  });
});
