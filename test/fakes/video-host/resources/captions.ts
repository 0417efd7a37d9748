// captions.insert (a multipart upload: the caption resource, then the track) and captions.list,
// with the errors YouTube's reference names: videoNotFound (404), forbidden (403, not the
// caller's video), captionExists (409, same language and name on the video), contentRequired,
// nameTooLong and invalidMetadata (400). The track text is kept for tests; a track that parses
// as neither SRT nor WebVTT is stored as `failed` with failureReason `unknownFormat`, as YouTube
// reports a track it could not process.
import { authenticate } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { listParam } from '../context.ts';
import { badRequest, forbidden, GoogleApiError, notFound, requiredParam } from '../errors.ts';
import { charge } from '../quota.ts';
import type { Caption, FakeUser, Video } from '../state.ts';
import { newEtag, randomId } from '../state.ts';
import { checkParts } from './video-resource.ts';
import { splitUpload } from './videos.ts';

const CAPTION_PARTS = new Set(['id', 'snippet']);
const SRT_CUE = /^\s*\d+\s*\r?\n\s*\d{1,2}:\d{2}:\d{2}[,.]\d{3}\s*-->\s*\d{1,2}:\d{2}:\d{2}[,.]\d{3}/m;

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);

function ownedVideo(ctx: FakeContext, user: FakeUser, videoId: string, action: string): Video {
  const video = ctx.state.videos.get(videoId);
  if (!video) throw notFound('videoNotFound', 'The video identified by the videoId parameter could not be found.');
  if (video.channelId !== user.id) throw forbidden('forbidden', `The permissions associated with the request are not sufficient to ${action}.`);
  return video;
}

export function renderCaption(caption: Caption, parts: string[]) {
  return {
    kind: 'youtube#caption',
    etag: caption.etag,
    id: caption.id,
    ...(parts.includes('snippet') && {
      snippet: {
        videoId: caption.videoId,
        lastUpdated: new Date(caption.lastUpdated).toISOString(),
        trackKind: 'standard',
        language: caption.language,
        name: caption.name,
        audioTrackType: 'unknown',
        isCC: false,
        isLarge: false,
        isEasyReader: false,
        isDraft: caption.isDraft,
        isAutoSynced: false,
        status: caption.status,
        ...(caption.status === 'failed' && { failureReason: 'unknownFormat' }),
      },
    }),
  };
}

/** POST /upload/youtube/v3/captions?part=snippet&uploadType=multipart */
export function insertCaption(ctx: FakeContext) {
  const { user } = authenticate(ctx, 'captions.insert');
  const parts = listParam(ctx.req.url, 'part');
  checkParts(parts, CAPTION_PARTS);
  const upload = splitUpload(ctx, ctx.req.url.searchParams.get('uploadType'));
  const meta = upload.metadata as { snippet?: Record<string, unknown> };
  const snippet = meta.snippet ?? {};
  const videoId = str(snippet['videoId']);
  const language = str(snippet['language']);
  if (!videoId || !language)
    throw badRequest('invalidMetadata', 'The request contains invalid metadata values, which prevent the track from being created.', 'youtube.caption');
  const name = typeof snippet['name'] === 'string' ? snippet['name'] : '';
  if (name.length > 150) throw badRequest('nameTooLong', 'The snippet.name specified in the request is too long.', 'youtube.caption');
  const video = ownedVideo(ctx, user, videoId, 'upload the caption track');
  if (upload.media.length === 0) throw badRequest('contentRequired', 'The caption track does not contain any content.', 'youtube.caption');
  const duplicate = [...ctx.state.captions.values()].some((c) => c.videoId === video.id && c.language === language && c.name === name);
  if (duplicate) {
    throw new GoogleApiError({
      status: 409,
      reason: 'captionExists',
      message: 'The specified video already has a caption track with the given snippet.language and snippet.name.',
      domain: 'youtube.caption',
    });
  }
  charge(ctx, 'captions.insert');
  const text = upload.media.toString('utf8');
  const caption: Caption = {
    id: `AUieDa${randomId(38)}`,
    videoId: video.id,
    channelId: user.id,
    language,
    name,
    isDraft: snippet['isDraft'] === true,
    etag: newEtag(),
    lastUpdated: ctx.settings.clock.now(),
    text,
    contentType: upload.contentType,
    status: SRT_CUE.test(text) || /^\uFEFF?WEBVTT/.test(text) ? 'serving' : 'failed',
  };
  ctx.state.captions.set(caption.id, caption);
  return renderCaption(caption, parts);
}

/** GET /youtube/v3/captions?part=snippet&videoId=… */
export function listCaptions(ctx: FakeContext) {
  const { user } = authenticate(ctx, 'captions.list');
  const parts = listParam(ctx.req.url, 'part');
  checkParts(parts, CAPTION_PARTS);
  const videoId = ctx.req.url.searchParams.get('videoId');
  if (!videoId) throw requiredParam('videoId');
  const video = ownedVideo(ctx, user, videoId, 'retrieve the caption tracks');
  charge(ctx, 'captions.list');
  const ids = listParam(ctx.req.url, 'id');
  const items = [...ctx.state.captions.values()]
    .filter((c) => c.videoId === video.id && (ids.length === 0 || ids.includes(c.id)))
    .map((c) => renderCaption(c, parts));
  return { kind: 'youtube#captionListResponse', etag: newEtag(), items };
}
