// The resumable upload protocol of Google's upload front end, for videos.insert:
//   POST …/videos?uploadType=resumable  (metadata; X-Upload-Content-Length/-Type)
//        → 200, Location: the session URI (upload_id); quota and the upload limit are spent here.
//   PUT <session>  Content-Range: bytes a-b/total + the chunk
//        → 308 Resume Incomplete, Range: bytes=0-<last kept> (no Range when nothing is kept),
//          or 201 Created with the video once the last byte is in (200 with the same video on any
//          later PUT: completing is idempotent, one session makes exactly one video).
//   PUT <session>  Content-Range: bytes */total, empty body → the same answers: a status query.
// Rules taken from Google's upload server (GCS/Drive documentation and observed answers):
// - non-final chunks are kept in multiples of 256 KiB: a chunk of another size is cut down to
//   the last 256 KiB boundary and the Range says so (Drive keeps 2,359,296 of 2,500,000 bytes);
// - a chunk that starts before the kept offset has its known bytes skipped (a retried chunk);
// - a chunk that starts after it is refused with 503 text/plain "Invalid request.  According to
//   the Content-Range header, the upload offset is X byte(s), which exceeds already uploaded size
//   of Y byte(s)." and nothing changes: the client must query and resume from the Range;
// - a request cut off mid-body (client killed, network reset) keeps what arrived, down to the
//   last 256 KiB boundary, the same rule as a short chunk: deterministic for tests;
// - the session URI is the credential for PUTs (GCS documents this), so an expired access token
//   does not stop an upload in progress; sessions expire a week after they were opened (404).
import type { Caller } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { header, jsonBody } from '../context.ts';
import { badRequest, GoogleApiError } from '../errors.ts';
import { charge, checkUploadLimit, countUpload } from '../quota.ts';
import { Reply } from '../reply.ts';
import type { UploadSession } from '../state.ts';
import { randomId } from '../state.ts';
import { checkVideoMediaType, createVideo, parseVideoMetadata, renderVideo } from './video-resource.ts';

/** Opens a session for videos.insert?uploadType=resumable (called from insertVideo after auth and part checks). */
export function openResumableSession(ctx: FakeContext, caller: Caller, parts: string[]): Reply {
  const channelId = caller.user.id;
  const metadata = parseVideoMetadata(jsonBody(ctx.req.body));
  const contentType = header(ctx, 'x-upload-content-type') ?? 'application/octet-stream';
  checkVideoMediaType(contentType);
  const lengthHeader = header(ctx, 'x-upload-content-length');
  const total = lengthHeader === null ? null : Number(lengthHeader);
  if (total !== null && (!Number.isSafeInteger(total) || total <= 0))
    throw badRequest('badRequest', `Invalid X-Upload-Content-Length: ${lengthHeader}`, 'global');
  if (total !== null && total > ctx.settings.maxUploadBytes) throw badRequest('badRequest', 'The video is larger than this fake keeps in memory.', 'global');
  checkUploadLimit(ctx, channelId);
  charge(ctx, 'videos.insert');
  countUpload(ctx, channelId);
  const now = ctx.settings.clock.now();
  const session: UploadSession = {
    id: `AGRyd${randomId(90)}`,
    channelId,
    grantId: caller.grant.id,
    parts,
    metadata,
    contentType,
    total,
    data: Buffer.alloc(0),
    createdAt: now,
    expiresAt: now + ctx.settings.uploadSessionTtlMs,
    videoId: null,
  };
  ctx.state.uploads.set(session.id, session);
  ctx.req.log.uploadId = session.id;
  const location = `${ctx.settings.baseUrl}/upload/youtube/v3/videos?uploadType=resumable&upload_id=${session.id}&part=${parts.join(',')}`;
  return new Reply({ status: 200, headers: { location, 'x-guploader-uploadid': session.id } });
}

interface ContentRange {
  /** null: a status query (a range of `*`) */
  first: number | null;
  last: number | null;
  total: number | null;
}

function parseContentRange(value: string | null, body: Buffer, complete: boolean): ContentRange {
  // No Content-Range: the body is the whole media, or (empty) a status query.
  if (value === null) {
    if (!complete) return { first: 0, last: null, total: null };
    return body.length === 0 ? { first: null, last: null, total: null } : { first: 0, last: body.length - 1, total: body.length };
  }
  const m = /^bytes (?:\*|(\d+)-(\d+))\/(\*|\d+)$/.exec(value.trim());
  if (!m) throw plainText(400, 'Failed to parse Content-Range header.');
  const total = m[3] === '*' ? null : Number(m[3]);
  if (m[1] === undefined) return { first: null, last: null, total };
  const first = Number(m[1]);
  const last = Number(m[2]);
  if (last < first || (total !== null && last >= total)) throw plainText(400, 'Failed to parse Content-Range header.');
  return { first, last, total };
}

class PlainTextError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

const plainText = (status: number, message: string) => new PlainTextError(status, message);

function liveSession(ctx: FakeContext): UploadSession {
  const id = ctx.req.url.searchParams.get('upload_id') ?? '';
  const session = ctx.state.uploads.get(id);
  if (!session || session.expiresAt <= ctx.settings.clock.now()) {
    throw new GoogleApiError({ status: 404, reason: 'notFound', message: 'The upload session does not exist or has expired; start a new one.' });
  }
  ctx.req.log.uploadId = session.id;
  return session;
}

/** Appends a chunk at `first`; keeps whole 256 KiB units unless this completes the media. */
function appendChunk(ctx: FakeContext, session: UploadSession, first: number, bytes: Buffer): void {
  const kept = session.data.length;
  if (first > kept) {
    throw plainText(
      503,
      `Invalid request.  According to the Content-Range header, the upload offset is ${first} byte(s), which exceeds already uploaded size of ${kept} byte(s).`,
    );
  }
  const fresh = bytes.subarray(Math.min(bytes.length, kept - first));
  const data = fresh.length > 0 ? Buffer.concat([session.data, fresh]) : session.data;
  if (session.total !== null && data.length > session.total) throw plainText(400, 'The upload has more bytes than its declared length.');
  if (data.length > ctx.settings.maxUploadBytes) throw plainText(400, 'The video is larger than this fake keeps in memory.');
  const complete = session.total !== null && data.length === session.total;
  const unit = ctx.settings.uploadGranularity;
  session.data = complete ? data : data.subarray(0, Math.floor(data.length / unit) * unit);
}

function progress(session: UploadSession): Reply {
  const n = session.data.length;
  return new Reply({ status: 308, headers: { 'x-guploader-uploadid': session.id, ...(n > 0 && { range: `bytes=0-${n - 1}` }) } });
}

function finish(ctx: FakeContext, session: UploadSession): Reply {
  let status = 200;
  if (session.videoId === null) {
    const video = createVideo(ctx, {
      channelId: session.channelId,
      metadata: session.metadata,
      media: session.data,
      contentType: session.contentType,
      uploadType: 'resumable',
      uploadId: session.id,
    });
    session.videoId = video.id;
    session.data = Buffer.alloc(0); // the media now lives in the video record (hash and size)
    status = 201;
  }
  const video = ctx.state.videos.get(session.videoId);
  if (!video) throw new Error(`video ${session.videoId} of session ${session.id} is gone`);
  return new Reply({ status, json: renderVideo(ctx.state, ctx.settings, video, session.parts, status === 201) });
}

/** PUT /upload/youtube/v3/videos?upload_id=… : a chunk or a status query; also called for a cut-off body. */
export function putChunk(ctx: FakeContext): Reply {
  try {
    const session = liveSession(ctx);
    const rangeHeader = header(ctx, 'content-range');
    ctx.req.log.contentRange = rangeHeader;
    const range = parseContentRange(rangeHeader, ctx.req.body, ctx.req.complete);
    ctx.req.log.chunkStart = range.first;
    if (session.videoId !== null) {
      ctx.req.log.persisted = session.total;
      return ctx.req.complete ? finish(ctx, session) : new Reply({ status: 0, none: true });
    }
    if (range.total !== null) {
      if (session.total !== null && range.total !== session.total)
        throw plainText(400, `The total ${range.total} differs from the session's ${session.total} bytes.`);
      session.total = range.total;
    }
    if (range.first !== null) {
      if (ctx.req.complete && range.last !== null && ctx.req.body.length !== range.last - range.first + 1) {
        throw plainText(400, 'The request body length does not match the Content-Range header.');
      }
      appendChunk(ctx, session, range.first, ctx.req.body);
    }
    ctx.req.log.persisted = session.data.length;
    if (!ctx.req.complete) return new Reply({ status: 0, none: true });
    return session.total !== null && session.data.length === session.total ? finish(ctx, session) : progress(session);
  } catch (err) {
    if (err instanceof PlainTextError) return new Reply({ status: err.status, text: err.message });
    throw err;
  }
}
