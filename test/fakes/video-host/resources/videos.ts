// videos.insert in one request (uploadType=multipart, what the client library sends when given
// a requestBody and media; uploadType=media, media alone) and videos.list. The resumable
// protocol is uploads.ts; both end in createVideo(), the only place a video is born.
import { authenticate } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { header, jsonBody, listParam } from '../context.ts';
import { badRequest, forbidden, GoogleApiError, notFound, requiredParam } from '../errors.ts';
import { boundaryOf, MultipartError, parseMultipart } from '../multipart.ts';
import { charge, checkUploadLimit, countUpload } from '../quota.ts';
import { Reply } from '../reply.ts';
import type { Video } from '../state.ts';
import { newEtag } from '../state.ts';
import { checkParts, checkVideoMediaType, createVideo, parseVideoMetadata, renderVideo, VIDEO_PARTS } from './video-resource.ts';
import { openResumableSession } from './uploads.ts';

/** The metadata and media of a one-request upload (multipart or media). */
export function splitUpload(ctx: FakeContext, uploadType: string | null): { metadata: unknown; media: Buffer; contentType: string } {
  const contentType = header(ctx, 'content-type') ?? 'application/octet-stream';
  if (uploadType === 'media') return { metadata: {}, media: ctx.req.body, contentType };
  const boundary = boundaryOf(contentType);
  if (uploadType !== 'multipart' || !boundary) throw badRequest('badRequest', `Invalid upload request: uploadType=${uploadType ?? '(missing)'}`, 'global');
  try {
    const [meta, media] = parseMultipart(ctx.req.body, boundary);
    if (!meta || !media) throw new MultipartError('A multipart upload takes a metadata part and a media part.');
    return { metadata: jsonBody(meta.body), media: media.body, contentType: media.headers['content-type'] ?? 'application/octet-stream' };
  } catch (err) {
    if (err instanceof MultipartError) throw badRequest('badContent', err.message, 'global');
    throw err;
  }
}

/** POST /upload/youtube/v3/videos */
export function insertVideo(ctx: FakeContext) {
  const caller = authenticate(ctx, 'videos.insert');
  const user = caller.user;
  const parts = listParam(ctx.req.url, 'part');
  checkParts(parts, VIDEO_PARTS);
  const uploadType = ctx.req.url.searchParams.get('uploadType');
  if (uploadType === 'resumable') return openResumableSession(ctx, caller, parts);
  const upload = splitUpload(ctx, uploadType);
  const metadata = parseVideoMetadata(upload.metadata);
  checkVideoMediaType(upload.contentType);
  if (upload.media.length === 0) throw badRequest('mediaBodyRequired', 'The request does not include the video content.', 'youtube.video');
  checkUploadLimit(ctx, user.id);
  charge(ctx, 'videos.insert');
  countUpload(ctx, user.id);
  const video = createVideo(ctx, {
    channelId: user.id,
    metadata,
    media: upload.media,
    contentType: upload.contentType,
    uploadType: uploadType as 'multipart' | 'media',
    uploadId: null,
  });
  return renderVideo(ctx.state, ctx.settings, video, parts, true);
}

/** POST /youtube/v3/videos|captions: media sent to the metadata URL, as Google refuses it. */
export function wrongUploadUrl(ctx: FakeContext) {
  const target = `${ctx.settings.baseUrl}/upload${ctx.req.url.pathname}${ctx.req.url.search}`;
  throw new GoogleApiError({ status: 400, reason: 'wrongUrlForUpload', message: `Uploads must be sent to the upload URL. Re-send this request to ${target}` });
}

/** GET /youtube/v3/videos?part=…&id=… : another channel's private videos are not listed. */
export function listVideos(ctx: FakeContext) {
  const { user } = authenticate(ctx, 'videos.list');
  const parts = listParam(ctx.req.url, 'part');
  checkParts(parts, VIDEO_PARTS);
  const ids = listParam(ctx.req.url, 'id');
  if (ids.length === 0) {
    throw badRequest('missingRequiredParameter', 'No filter selected. Expected one of: myRating, id, chart', 'youtube.parameter');
  }
  charge(ctx, 'videos.list');
  const items = ids
    .map((id) => ctx.state.videos.get(id))
    .filter((v): v is Video => v !== undefined && (v.channelId === user.id || v.privacyStatus !== 'private'))
    .map((v) => renderVideo(ctx.state, ctx.settings, v, parts));
  return { kind: 'youtube#videoListResponse', etag: newEtag(), items, pageInfo: { totalResults: items.length, resultsPerPage: items.length } };
}

/** DELETE /youtube/v3/videos?id=… : the owner deletes a video (204, no body); its caption tracks go with it. */
export function deleteVideo(ctx: FakeContext): Reply {
  const { user } = authenticate(ctx, 'videos.delete');
  const id = ctx.req.url.searchParams.get('id');
  if (!id) throw requiredParam('id');
  const video = ctx.state.videos.get(id);
  if (!video) throw notFound('videoNotFound', 'The video that you are trying to delete cannot be found.');
  if (video.channelId !== user.id) throw forbidden('forbidden', 'The video that you are trying to delete cannot be deleted.');
  charge(ctx, 'videos.delete');
  ctx.state.videos.delete(id);
  for (const [captionId, c] of ctx.state.captions) if (c.videoId === id) ctx.state.captions.delete(captionId);
  return new Reply({ status: 204 });
}

const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** GET /watch?v=… : the page VIDEO_HOST_WATCH_URL points people at (private videos say so). */
export function watchPage(ctx: FakeContext): Reply {
  const video = ctx.state.videos.get(ctx.req.url.searchParams.get('v') ?? '');
  if (!video) return new Reply({ status: 404, html: '<!doctype html><p id="error">Video unavailable</p>' });
  const body = video.privacyStatus === 'private' ? '<p id="status">Private video</p>' : `<h1 id="title">${escapeHtml(video.title)}</h1>`;
  return new Reply({ status: 200, html: `<!doctype html><html><head><title>${escapeHtml(video.title)}</title></head><body>${body}</body></html>` });
}
