import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { and, eq } from 'drizzle-orm';
import { execa } from 'execa';
import { Challenge } from 'mppx';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobs } from '../coordinator/src/db/schema.ts';
import { cutClip, SEGMENTS_PER_PASS, snapSegments } from '@cutroom/render-agent/executors/cut';
import { chainPayer } from './harness/chain-payer.ts';
import { audioSamples, MARKER_PERIOD, makeFrameCounterVideo, markerOnsets, readFrameNumbers, SAMPLE_RATE } from './harness/media-gen/frame-counter.ts';
import { makeTopicTalk } from './harness/media-gen/topic-talk.ts';
import { probeStreams, streamOf } from './harness/probe.ts';
import { startStack, type Stack } from './harness/stack.ts';

/** Two short topics in two voices: about 40 s of speech, eight sentences, so the edit has lines to delete and move. */
const TOPICS = [
  {
    name: 'lighthouses',
    voice: 'en-us',
    text:
      'Lighthouses guided sailors along dangerous coasts for centuries. ' +
      'The keeper climbed the tower every evening to light the lamp. ' +
      'A rotating lens made the beam sweep across the water. ' +
      'Today most lighthouses run automatically without any keeper at all.',
  },
  {
    name: 'tea',
    voice: 'en-gb',
    text:
      'Green tea and black tea come from the very same plant. ' +
      'The difference lies in how long the leaves are left to oxidise. ' +
      'Black tea leaves are rolled and exposed to the air for hours. ' +
      'Green tea leaves are heated quickly to stop that process.',
  },
];

const FPS = 25;
const EDIT_PRICE = 1_000_000n; // 1.00 USDC

interface Word {
  start: number;
  end: number;
  word: string;
}

/**
 * edit_from_transcript end to end on real parts, billing on: a transcribe parent (espeak-ng speech
 * over a test pattern, transcribed by Whisper), its transcript downloaded as `format=edit`, lines
 * deleted and moved and words deleted, the edit created free and paid at /process by the stock
 * mppx client, cut by a render-agent; and an invalid edit refused with its failing lines before
 * any payment.
 */
describe('edit_from_transcript over REST', () => {
  let stack: Stack;
  let payer: ReturnType<typeof chainPayer>;
  let base: string;
  let token: string;
  let parentId: string;
  let editText: string;
  let parentWords: Word[];
  const work = mkdtempSync(join(tmpdir(), 'cutroom-edit-'));
  const video = join(work, 'talk.mp4');
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  const balance = () => payer.balanceOf(payer.address);
  const editJobsOfParent = () =>
    stack.coordinator.ctx.db
      .select({ id: jobs.id })
      .from(jobs)
      .where(and(eq(jobs.sourceJobId, parentId), eq(jobs.jobType, 'edit_from_transcript')));

  beforeAll(async () => {
    const talk = await makeTopicTalk(work, { topics: TOPICS, pauseSeconds: 0.5 });
    await execa('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=size=320x240:rate=${FPS}`, '-i', talk.wav, '-shortest'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-g', '50', '-pix_fmt', 'yuv420p', '-c:a', 'aac', video],
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
    const parent = await stack.api.waitForJob(token, parentId, undefined, 420_000);
    expect(parent.status, parent.error_message).toBe('completed');

    const edit = await stack.api.call('GET', `/api/v1/jobs/${parentId}/outputs/transcript/download?format=edit`, { token });
    expect(edit.status).toBe(200);
    expect(edit.headers.get('content-type')).toMatch(/^text\/plain/);
    editText = edit.body as string;
    const words = await stack.api.call('GET', `/api/v1/jobs/${parentId}/outputs/transcript/download?format=words`, { token });
    parentWords = (words.body.segments as { words: Word[] }[]).flatMap((s) => s.words).filter((w) => w.word.trim() !== '');
  }, 600_000);
  afterAll(async () => {
    await stack?.stop();
  });

  /** The edit's lines as label + tokens, each token with its index in the parent's (non-blank) word list. */
  function editLines(): { label: string; words: number[] }[] {
    let next = 0;
    return editText
      .trimEnd()
      .split('\n')
      .map((line) => {
        const [label, ...tokens] = line.split(' ');
        const words = tokens.map((t) => {
          expect(parentWords[next]!.word.trim()).toBe(t);
          return next++;
        });
        return { label: label!, words };
      });
  }

  it('deleted lines and words and a moved line: a video as long as the kept words and their transcript re-timed to it', async () => {
    const lines = editLines();
    expect(lines.length).toBeGreaterThanOrEqual(6);
    // Delete lines 2 and 4, move the last line to the front, and delete one word inside line 3
    // (a word and neighbours of at least 0.15 s: a cut point falls inside no word shorter than
    // two frames, so the frame grid cannot move a word across it).
    const long = (i: number) => parentWords[i]!.end - parentWords[i]!.start >= 0.15;
    const third = lines[2]!;
    const cutAt = third.words.findIndex((w, k) => k > 0 && k < third.words.length - 1 && long(w - 1) && long(w) && long(w + 1));
    expect(cutAt, 'line 3 has a long word between long neighbours').toBeGreaterThan(0);
    const edited = [lines.at(-1)!, lines[0]!, { ...third, words: third.words.filter((_, k) => k !== cutAt) }, ...lines.slice(4, -1)];
    const text = `${edited.map((l) => [l.label, ...l.words.map((w) => parentWords[w]!.word.trim())].join(' ')).join('\n')}\n`;
    const kept = edited.flatMap((l) => l.words);

    const created = await stack.api.call('POST', '/api/v1/jobs', { token, json: { job_type: 'edit_from_transcript', source_job_id: parentId, edit: text } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ payment_status: 'pending', price_cents: 100, source_job_id: parentId, next_endpoint: 'process' });
    const id = created.body.job_id as string;
    const unpaid = await fetch(`${base}/api/v1/jobs/${id}/process`, { method: 'POST', headers: bearer(token) });
    expect(unpaid.status).toBe(402);
    expect(Challenge.fromResponseList(unpaid)[0]!.request).toMatchObject({ amount: String(EDIT_PRICE), externalId: id });
    const before = await balance();
    const paid = await payer.mppx.fetch(`${base}/api/v1/jobs/${id}/process`, { method: 'POST', headers: bearer(token) });
    expect(paid.status).toBe(200);
    expect(await balance()).toBe(before - EDIT_PRICE);

    const job = await stack.api.waitForJob(token, id, undefined, 300_000);
    expect(job.status, job.error_message).toBe('completed');
    expect(job.outputs.map((o: any) => [o.role, o.content_type])).toEqual([
      ['clip', 'video/mp4'],
      ['transcript', 'application/x-subrip'],
    ]);
    const clip = join(work, 'edit.mp4');
    writeFileSync(clip, Buffer.from(await (await fetch(job.outputs[0].download_url)).arrayBuffer()));
    const p = await probeStreams(clip);
    const v = streamOf(p, 'video')!;
    expect(v).toMatchObject({ codec_name: 'h264', width: 320, height: 240 });
    const videoSeconds = Number(v.nb_frames) / FPS;

    // The kept words' duration: each run of source-neighbouring kept words from its first word's
    // start to its last word's end. The service adds at most 0.1 s of pad on each side of a run
    // and at most 0.05 s where it merges two runs, and the frame grid moves each cut's ends by
    // less than a frame: so the video is within runs × (0.25 s + 1 frame) above, and runs × 1
    // frame below (plus 0.1 s for Whisper's last word ending with the media).
    const runs: [number, number][] = [];
    for (const w of kept) {
      const run = runs.at(-1);
      if (run && w === run[1] + 1) run[1] = w;
      else runs.push([w, w]);
    }
    const spoken = runs.reduce((sum, [a, b]) => sum + parentWords[b]!.end - parentWords[a]!.start, 0);
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(videoSeconds).toBeGreaterThanOrEqual(spoken - runs.length / FPS - 0.1);
    expect(videoSeconds).toBeLessThanOrEqual(spoken + runs.length * (0.25 + 1 / FPS));

    const words = await stack.api.call('GET', `/api/v1/jobs/${id}/outputs/transcript/download?format=words`, { token });
    expect(words.body.duration).toBeCloseTo(videoSeconds, 2);
    const retimed = (words.body.segments as { words: Word[] }[]).flatMap((s) => s.words);
    expect(retimed.map((w) => w.word.trim())).toEqual(kept.map((i) => parentWords[i]!.word.trim()));
    retimed.forEach((w, i) => {
      expect(w.start).toBeLessThanOrEqual(w.end);
      if (i > 0) expect(w.start).toBeGreaterThanOrEqual(retimed[i - 1]!.start);
      expect(w.end).toBeLessThanOrEqual(videoSeconds + 0.001);
    });
    // The SRT (and every other format) comes from the same re-timed words.
    const srt = await (await fetch(job.outputs[1].download_url)).text();
    expect(srt).toContain(parentWords[kept[0]!]!.word.trim());
  });

  it('an invalid edit is refused with every failing line before any payment: no 402, no job, nothing charged', async () => {
    const lines = editText.trimEnd().split('\n');
    const [label, first, ...rest] = lines[1]!.split(' ');
    const changed = [label, `${first}x`, ...rest].join(' ');
    const text = [lines[0], changed, lines[2], lines[0], `${lines[3]} extra`].join('\n');
    const before = await balance();
    const jobsBefore = (await editJobsOfParent()).length;
    const res = await payer.mppx.fetch(`${base}/api/v1/jobs`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify({ job_type: 'edit_from_transcript', source_job_id: parentId, edit: text }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; problems: { line: number; text: string; reason: string }[] };
    expect(body.error).toMatch(/^the edit cannot be applied: 3 lines \(2, 4, 5\)/);
    expect(body.problems.map((q) => [q.line, q.text])).toEqual([
      [2, changed],
      [4, lines[0]],
      [5, `${lines[3]} extra`],
    ]);
    expect(body.problems[0]!.reason).toMatch(/is not a word of sentence/);
    expect(body.problems[1]!.reason).toMatch(/already appears on line 1/);
    expect(await balance()).toBe(before);
    expect(await editJobsOfParent()).toHaveLength(jobsBefore);

    // Over 256 KB of text: a 400 with {error}; over the 1 MiB body limit: a 413 with {error}. Never a 5xx.
    const big = await stack.api.call('POST', '/api/v1/jobs', {
      token,
      json: { job_type: 'edit_from_transcript', source_job_id: parentId, edit: `${editText}${' '.repeat(300 * 1024)}` },
    });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatch(/edit/);
    const huge = await stack.api.call('POST', '/api/v1/jobs', {
      token,
      json: { job_type: 'edit_from_transcript', source_job_id: parentId, edit: 'x'.repeat(1100 * 1024) },
    });
    expect(huge.status).toBe(413);
    expect(typeof huge.body.error).toBe('string');
  });
});

/**
 * An edit may cut up to 300 times; one ffmpeg pass opens at most SEGMENTS_PER_PASS of them, so a
 * longer cut is encoded in parts and joined (render-agent/src/executors/cut.ts). The parts must
 * join invisibly: every output frame is the source frame the cut list names, and the audio stays
 * on the video's clock across the joins (the source's time markers land where its frames do).
 */
describe('a cut of more segments than one pass opens, on real ffmpeg', () => {
  const work = mkdtempSync(join(tmpdir(), 'cutroom-edit-parts-'));
  const source = join(work, 'counter.mp4');
  beforeAll(async () => {
    await makeFrameCounterVideo(source, { seconds: 60, fps: '25', width: 160, height: 96, gop: 50 });
  });

  it('130 one-word cuts out of order: three parts, every frame exact, audio in sync at every marker', async () => {
    const n = 130;
    expect(n).toBeGreaterThan(2 * SEGMENTS_PER_PASS);
    // Cuts of 0.2-0.32 s scattered over the source in a shuffled order (37 is prime to 130).
    const segments = snapSegments(
      Array.from({ length: n }, (_, i) => {
        const k = (i * 37) % n;
        return { start: 0.3 + k * 0.45, end: 0.5 + k * 0.45 + (i % 4) * 0.04 };
      }),
      25,
      60,
    );
    const output = join(work, 'parts.mp4');
    await cutClip({
      ...{ ffmpegPath: 'ffmpeg', input: source, output, segments, fps: 25, fpsRational: '25/1', hasAudio: true, encoder: 'libx264' },
      signal: new AbortController().signal,
    });
    const expected = segments.flatMap((s) => Array.from({ length: s.frames }, (_, k) => s.startFrame + k));
    expect(await readFrameNumbers(output)).toEqual(expected);

    const audioSeconds = (await audioSamples(output)).length / SAMPLE_RATE;
    expect(Math.abs(audioSeconds - expected.length / 25)).toBeLessThan(0.03);
    // Each source marker inside a cut (0.12 s or more after its start, so the onset detector's
    // 0.1 s quiet window lies in the same cut) is heard where that source time is shown.
    const onsets = markerOnsets(await audioSamples(output, 1));
    let at = 0;
    let checked = 0;
    for (const s of segments) {
      for (let m = Math.ceil(s.start / MARKER_PERIOD) * MARKER_PERIOD; m < s.end - 0.01; m += MARKER_PERIOD) {
        if (m - s.start < 0.12) continue;
        const want = at + (m - s.start);
        const nearest = onsets.reduce((best, o) => (Math.abs(o - want) < Math.abs(best - want) ? o : best), Number.POSITIVE_INFINITY);
        expect(Math.abs(nearest - want), `marker at source ${m} s, output ${want.toFixed(3)} s`).toBeLessThan(0.002);
        checked++;
      }
      at += s.frames / 25;
    }
    expect(checked).toBeGreaterThan(20);
  });
});
