// videos.insert: the resumable protocol step by step (raw fetch: the client library does not
// expose it), interrupted and resumed, and the library's own multipart upload.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startVideoHostFake, type VideoHostFake } from './index.ts';
import { connect, type Connected, media, openSession, putRange } from './test-client.ts';

const KIB = 1024;
let fake: VideoHostFake;
let account: Connected;
let token: string;

beforeAll(async () => {
  fake = await startVideoHostFake();
  account = await connect(fake);
  token = account.oauth2.credentials.access_token ?? '';
});
afterAll(() => fake.stop());

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function session(total: number): Promise<string> {
  const res = await openSession(fake, token, total);
  expect(res.status).toBe(200);
  return res.headers.get('location') ?? '';
}

describe('video host fake: resumable videos.insert', () => {
  it('takes chunks, answers status queries, survives a reset mid-chunk and makes exactly one video', async () => {
    const file = media(1024 * KIB + 1000);
    const total = file.length;
    const uri = await session(total);
    expect(uri).toMatch(new RegExp(`^${fake.url}/upload/youtube/v3/videos\\?uploadType=resumable&upload_id=`));

    const first = await putRange(uri, total, 0, file.subarray(0, 512 * KIB));
    expect(first.status).toBe(308);
    expect(first.headers.get('range')).toBe(`bytes=0-${512 * KIB - 1}`);
    const query = await putRange(uri, total);
    expect([query.status, query.headers.get('range')]).toEqual([308, `bytes=0-${512 * KIB - 1}`]);

    // The connection dies after 300,000 bytes of the second chunk: the host keeps whole 256 KiB units.
    fake.injectFault({ route: 'upload.put', resetAfterBytes: 300_000 });
    await expect(putRange(uri, total, 512 * KIB, file.subarray(512 * KIB))).rejects.toThrow();
    const after = await putRange(uri, total);
    expect(after.headers.get('range')).toBe(`bytes=0-${768 * KIB - 1}`);

    const offset = Number(/-(\d+)$/.exec(after.headers.get('range') ?? '')?.[1]) + 1;
    const done = await putRange(uri, total, offset, file.subarray(offset));
    expect(done.status).toBe(201);
    const video = (await done.json()) as any;
    expect(video).toMatchObject({
      kind: 'youtube#video',
      snippet: { title: 'Chunked upload' },
      status: { privacyStatus: 'private', uploadStatus: 'uploaded' },
    });

    // Completing again (a client that lost the answer) returns the same video, never a second one.
    const again = await putRange(uri, total, offset, file.subarray(offset));
    expect(again.status).toBe(200);
    expect(((await again.json()) as any).id).toBe(video.id);
    const query2 = await putRange(uri, total);
    expect(query2.status).toBe(200);

    const uploadId = new URL(uri).searchParams.get('upload_id');
    const made = fake.videosOf(fake.defaultUser.id).filter((v) => v.uploadId === uploadId);
    expect(made).toHaveLength(1);
    expect(made[0]?.media).toMatchObject({ size: total, sha256: sha256(file), contentType: 'video/mp4' });
    const puts = fake.state.requests.filter((r) => r.route === 'upload.put' && r.uploadId === uploadId && r.chunkStart !== null);
    expect(puts.map((r) => [r.chunkStart, r.status, r.persisted])).toEqual([
      [0, 308, 512 * KIB],
      [512 * KIB, 0, 768 * KIB],
      [768 * KIB, 201, total],
      [768 * KIB, 200, total],
    ]);
    expect(puts[1]?.bytes).toBe(300_000);
  });

  it('refuses a chunk past the kept offset with the 503 text Google sends, changing nothing', async () => {
    const file = media(600 * KIB, 3);
    const uri = await session(file.length);
    await putRange(uri, file.length, 0, file.subarray(0, 256 * KIB));
    const gap = await putRange(uri, file.length, 512 * KIB, file.subarray(512 * KIB));
    expect(gap.status).toBe(503);
    expect(gap.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await gap.text()).toBe(
      `Invalid request.  According to the Content-Range header, the upload offset is ${512 * KIB} byte(s), which exceeds already uploaded size of ${256 * KIB} byte(s).`,
    );
    expect((await putRange(uri, file.length)).headers.get('range')).toBe(`bytes=0-${256 * KIB - 1}`);
  });

  it('keeps a chunk that is not a multiple of 256 KiB only up to the last boundary, and skips bytes it has', async () => {
    const file = media(700 * KIB, 5);
    const uri = await session(file.length);
    const odd = await putRange(uri, file.length, 0, file.subarray(0, 300 * KIB));
    expect(odd.headers.get('range')).toBe(`bytes=0-${256 * KIB - 1}`);
    // Re-sending from 0 (overlapping what the host has) is fine: known bytes are skipped.
    const rest = await putRange(uri, file.length, 0, file);
    expect(rest.status).toBe(201);
    const id = ((await rest.json()) as any).id as string;
    expect(fake.state.videos.get(id)?.media.sha256).toBe(sha256(file));
  });

  it('creates the video when the last chunk arrives even if the answer is lost', async () => {
    const file = media(100 * KIB, 9);
    const uri = await session(file.length);
    fake.injectFault({ route: 'upload.put', dropResponse: true });
    await expect(putRange(uri, file.length, 0, file)).rejects.toThrow();
    const status = await putRange(uri, file.length);
    expect(status.status).toBe(200);
    const video = (await status.json()) as any;
    expect(fake.videosOf().filter((v) => v.id === video.id)).toHaveLength(1);
  });

  it('forgets a session a week after it opened', async () => {
    const uri = await session(1000);
    fake.advanceTime(7 * 24 * 3600_000);
    const res = await putRange(uri, 1000, 0, media(1000));
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: { code: 404, errors: [{ reason: 'notFound' }] } });
    await account.oauth2.refreshAccessToken(); // a week on, the access token is long expired
    token = account.oauth2.credentials.access_token ?? '';
  });

  it('keeps an upload interrupted by the client going away, and reports it to a status query', async () => {
    const file = media(800 * KIB, 11);
    const uri = await session(file.length);
    const uploadId = new URL(uri).searchParams.get('upload_id');
    const abort = new AbortController();
    // The body stays open after 600 KiB (the rest never comes); the client then dies, as a killed process would.
    const body = new ReadableStream<Uint8Array>({ start: (controller) => controller.enqueue(new Uint8Array(file.subarray(0, 600 * KIB))) });
    const init = { method: 'PUT', headers: { 'content-range': `bytes 0-${file.length - 1}/${file.length}` }, body, signal: abort.signal, duplex: 'half' };
    const put = fetch(uri, init as RequestInit).catch((e: unknown) => e);
    const entry = () => fake.state.requests.find((r) => r.route === 'upload.put' && r.uploadId === uploadId);
    await vi.waitFor(() => expect(entry()?.bytes).toBe(600 * KIB));
    abort.abort();
    expect(await put).toBeInstanceOf(Error);
    await vi.waitFor(() => expect(entry()?.persisted).toBe(512 * KIB));
    expect((await putRange(uri, file.length)).headers.get('range')).toBe(`bytes=0-${512 * KIB - 1}`);
  });
});

describe('video host fake: multipart videos.insert through the client library', () => {
  it('uploads with youtube.videos.insert and lists the video with videos.list', async () => {
    const file = media(300 * KIB, 13);
    const rootUrl = `${fake.url}/`;
    const res = await account.yt.videos.insert(
      {
        part: ['snippet', 'status'],
        requestBody: { snippet: { title: 'From the library', description: 'multipart' }, status: { privacyStatus: 'unlisted' } },
        media: { mimeType: 'video/mp4', body: Readable.from([file]) },
      },
      { rootUrl }, // googleapis-common builds the upload URL from the call's options only
    );
    expect(res.status).toBe(200);
    expect(res.data).toMatchObject({
      kind: 'youtube#video',
      snippet: { title: 'From the library', channelId: fake.defaultUser.id },
      status: { privacyStatus: 'unlisted' },
    });
    const stored = fake.state.videos.get(res.data.id ?? '');
    expect(stored).toMatchObject({ uploadType: 'multipart', media: { size: file.length, sha256: sha256(file) } });
    const listed = await account.yt.videos.list({ part: ['snippet', 'status'], id: [res.data.id ?? ''] });
    expect(listed.data.items?.[0]).toMatchObject({ id: res.data.id, status: { uploadStatus: 'processed' } });
  });

  it('refuses a title over 100 characters and media sent to the metadata URL', async () => {
    const err = await account.yt.videos
      .insert(
        { part: ['snippet'], requestBody: { snippet: { title: 'x'.repeat(101) } }, media: { mimeType: 'video/mp4', body: Readable.from([media(10)]) } },
        { rootUrl: `${fake.url}/` },
      )
      .catch((e: unknown) => e);
    expect((err as any).response.data.error.errors[0].reason).toBe('invalidTitle');
    const wrong = await fetch(`${fake.url}/youtube/v3/videos?part=snippet&uploadType=multipart`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(((await wrong.json()) as any).error.message).toMatch(/^Uploads must be sent to the upload URL/);
  });
});
