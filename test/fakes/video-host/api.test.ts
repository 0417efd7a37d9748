// Captions, quota and injected faults, through the official YouTube client.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTA_EXCEEDED_MESSAGE, SCOPES, startVideoHostFake, type VideoHostFake } from './index.ts';
import { connect, type Connected, media } from './test-client.ts';

let fake: VideoHostFake;
let account: Connected;

const SRT = '1\n00:00:00,000 --> 00:00:02,500\nHello and welcome.\n\n2\n00:00:02,500 --> 00:00:05,000\nToday we cut video.\n';
const reasonOf = (err: unknown): string | undefined => (err as any)?.response?.data?.error?.errors?.[0]?.reason;

async function insertVideo(acc: Connected, f: VideoHostFake, title = 'A video'): Promise<string> {
  const res = await acc.yt.videos.insert(
    { part: ['snippet', 'status'], requestBody: { snippet: { title } }, media: { mimeType: 'video/mp4', body: Readable.from([media(2048)]) } },
    { rootUrl: `${f.url}/` },
  );
  return res.data.id ?? '';
}

function insertCaption(acc: Connected, f: VideoHostFake, videoId: string, name = 'English', text = SRT) {
  return acc.yt.captions.insert(
    { part: ['snippet'], requestBody: { snippet: { videoId, language: 'en', name, isDraft: false } }, media: { mimeType: 'application/x-subrip', body: text } },
    { rootUrl: `${f.url}/` },
  );
}

beforeAll(async () => {
  fake = await startVideoHostFake();
  account = await connect(fake);
});
afterAll(() => fake.stop());

describe('video host fake: captions', () => {
  it('inserts an SRT track, keeps its text, lists it, and refuses the same language and name twice', async () => {
    const videoId = await insertVideo(account, fake);
    const res = await insertCaption(account, fake, videoId);
    expect(res.data).toMatchObject({ kind: 'youtube#caption', snippet: { videoId, language: 'en', name: 'English', status: 'serving', isDraft: false } });
    expect(fake.captionsOf(videoId)[0]?.text).toBe(SRT);
    const list = await account.yt.captions.list({ part: ['snippet'], videoId });
    expect(list.data.items?.map((c) => c.id)).toEqual([res.data.id]);
    const twice = await insertCaption(account, fake, videoId).catch((e: unknown) => e);
    expect([(twice as any).response.status, reasonOf(twice)]).toEqual([409, 'captionExists']);
    const garbage = await insertCaption(account, fake, videoId, 'Broken', 'not a subtitle file');
    expect(garbage.data.snippet).toMatchObject({ status: 'failed', failureReason: 'unknownFormat' });
  });

  it("refuses captions on another channel's video and on a missing one", async () => {
    const other = await connect(fake, { user: fake.createUser({ title: 'Other' }) });
    const theirs = await insertVideo(other, fake);
    const err = await insertCaption(account, fake, theirs).catch((e: unknown) => e);
    expect([(err as any).response.status, reasonOf(err)]).toEqual([403, 'forbidden']);
    const missing = await insertCaption(account, fake, 'nope1234567').catch((e: unknown) => e);
    expect([(missing as any).response.status, reasonOf(missing)]).toEqual([404, 'videoNotFound']);
  });

  it('needs the youtube.force-ssl scope for captions', async () => {
    const uploadOnly = await connect(fake, { scopes: [SCOPES.upload] });
    const videoId = await insertVideo(uploadOnly, fake);
    const err = await insertCaption(uploadOnly, fake, videoId).catch((e: unknown) => e);
    expect([(err as any).response.status, reasonOf(err)]).toEqual([403, 'insufficientPermissions']);
  });
});

describe('video host fake: quota', () => {
  it('charges each method and refuses past the daily limit with quotaExceeded until Pacific midnight', async () => {
    const small = await startVideoHostFake({ dailyQuota: 2000 });
    try {
      const acc = await connect(small);
      const videoId = await insertVideo(acc, small);
      await insertCaption(acc, small, videoId);
      expect(small.quota()).toMatchObject({ used: 2000, limit: 2000, byMethod: { 'videos.insert': 1600, 'captions.insert': 400 } });
      const err = await acc.yt.videos.list({ part: ['id'], id: [videoId] }).catch((e: unknown) => e);
      expect((err as any).response.status).toBe(403);
      expect((err as any).response.data.error).toMatchObject({
        code: 403,
        message: QUOTA_EXCEEDED_MESSAGE,
        errors: [{ reason: 'quotaExceeded', domain: 'youtube.quota' }],
      });
      // Pacific midnight: the counters start over.
      const { resetsAt, day } = small.quota();
      small.advanceTime(resetsAt - small.now());
      expect(small.quota()).toMatchObject({ used: 0 });
      expect(small.quota().day).not.toBe(day);
      await acc.oauth2.refreshAccessToken();
      const listed = await acc.yt.videos.list({ part: ['id'], id: [videoId] });
      expect(listed.data.items).toHaveLength(1);
      expect(small.quota().used).toBe(1);
    } finally {
      await small.stop();
    }
  });

  it('exhausts the quota on demand, and limits uploads per channel per day', async () => {
    const limited = await startVideoHostFake({ dailyUploadsPerChannel: 1 });
    try {
      const acc = await connect(limited);
      await insertVideo(acc, limited);
      const second = await insertVideo(acc, limited).catch((e: unknown) => e);
      expect([(second as any).response.status, reasonOf(second)]).toEqual([400, 'uploadLimitExceeded']);
      limited.exhaustQuota();
      const err = await acc.yt.channels.list({ part: ['id'], mine: true }).catch((e: unknown) => e);
      expect(reasonOf(err)).toBe('quotaExceeded');
    } finally {
      await limited.stop();
    }
  });
});

describe('video host fake: faults', () => {
  it('fails the next calls of a route with 5xx backendError; the client retries a GET by itself', async () => {
    const videoId = await insertVideo(account, fake);
    fake.injectFault({ route: 'captions.insert', status: 500 });
    const err = await insertCaption(account, fake, videoId).catch((e: unknown) => e);
    expect((err as any).response.data.error).toMatchObject({ code: 500, errors: [{ reason: 'backendError' }], status: 'INTERNAL' });
    expect(fake.captionsOf(videoId)).toHaveLength(0);

    fake.injectFault({ route: 'videos.list', status: 503 });
    const list = await account.yt.videos.list({ part: ['id'], id: [videoId] });
    expect(list.data.items).toHaveLength(1);
    const calls = fake.state.requests.filter((r) => r.route === 'videos.list').slice(-2);
    expect(calls.map((r) => [r.status, r.fault])).toEqual([
      [503, true],
      [200, false],
    ]);
  });

  it('answers rate limits as 429 or 403 rateLimitExceeded, and resets connections', async () => {
    // POSTs: gaxios retries only idempotent methods by default, so each fault reaches the caller.
    fake.injectFault({ route: 'videos.insert', status: 403 });
    const limited = await insertVideo(account, fake).catch((e: unknown) => e);
    expect([(limited as any).response.status, reasonOf(limited)]).toEqual([403, 'rateLimitExceeded']);
    fake.injectFault({ route: 'videos.insert', status: 429 });
    const throttled = await insertVideo(account, fake).catch((e: unknown) => e);
    expect((throttled as any).response.data.error).toMatchObject({ code: 429, status: 'RESOURCE_EXHAUSTED', errors: [{ reason: 'rateLimitExceeded' }] });
    fake.injectFault({ route: 'videos.insert', reset: true });
    await expect(insertVideo(account, fake)).rejects.toThrow();
    expect(
      fake.state.requests
        .filter((r) => r.route === 'videos.insert')
        .map((r) => r.status)
        .slice(-3),
    ).toEqual([403, 429, 0]);
  });
});
