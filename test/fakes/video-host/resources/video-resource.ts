// The video resource: validating what videos.insert sends and rendering what it answers.
// Limits are YouTube's: a title is at most 100 characters, a description at most 5000 bytes,
// neither may contain `<` or `>`; privacyStatus is public, private or unlisted (public when
// absent); parts not listed in `part` are left out of the answer, `kind`, `etag`, `id` stay.
import { createHash } from 'node:crypto';
import type { FakeContext, FakeSettings } from '../context.ts';
import { badRequest } from '../errors.ts';
import type { FakeState, PrivacyStatus, Video, VideoMetadata } from '../state.ts';
import { newEtag, newVideoId } from '../state.ts';

export const VIDEO_PARTS = new Set([
  'id',
  'snippet',
  'status',
  'contentDetails',
  'fileDetails',
  'liveStreamingDetails',
  'localizations',
  'player',
  'processingDetails',
  'recordingDetails',
  'statistics',
  'suggestions',
  'topicDetails',
  'paidProductPlacementDetails',
]);

export function checkParts(parts: string[], known: Set<string>): void {
  if (parts.length === 0) throw badRequest('required', 'Required parameter: part', 'global', 'part');
  const unknown = parts.find((p) => !known.has(p));
  if (unknown) throw badRequest('unknownPart', `'${unknown}'`, 'youtube.part', 'part');
}

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** Parses and validates the video resource of a videos.insert body. */
export function parseVideoMetadata(json: unknown): VideoMetadata {
  const snippet = obj(obj(json)['snippet']);
  const status = obj(obj(json)['status']);
  const title = snippet['title'] === undefined ? 'unknown' : snippet['title'];
  if (typeof title !== 'string' || title.trim() === '' || title.length > 100 || /[<>]/.test(title)) {
    throw badRequest('invalidTitle', 'The request metadata specifies an invalid or empty video title.', 'youtube.video');
  }
  const description = snippet['description'] ?? '';
  if (typeof description !== 'string' || Buffer.byteLength(description) > 5000 || /[<>]/.test(description)) {
    throw badRequest('invalidDescription', 'The request metadata specifies an invalid video description.', 'youtube.video');
  }
  const tags = snippet['tags'] ?? [];
  if (!Array.isArray(tags) || tags.some((t) => typeof t !== 'string') || tags.join(',').length > 500) {
    throw badRequest('invalidTags', 'The request metadata specifies invalid video keywords.', 'youtube.video');
  }
  const privacy = status['privacyStatus'] ?? 'public';
  if (privacy !== 'public' && privacy !== 'private' && privacy !== 'unlisted') {
    throw badRequest('invalidVideoMetadata', 'The request metadata is invalid.', 'youtube.video');
  }
  const categoryId = snippet['categoryId'] ?? '22';
  if (typeof categoryId !== 'string' || !/^\d+$/.test(categoryId)) {
    throw badRequest('invalidCategoryId', 'The snippet.categoryId property specifies an invalid category ID.', 'youtube.video');
  }
  const kids = status['selfDeclaredMadeForKids'];
  const language = snippet['defaultLanguage'];
  return {
    title,
    description,
    tags: tags as string[],
    categoryId,
    privacyStatus: privacy as PrivacyStatus,
    selfDeclaredMadeForKids: typeof kids === 'boolean' ? kids : null,
    defaultLanguage: typeof language === 'string' ? language : null,
  };
}

/** The wire resource, limited to the requested parts. `fresh`: the insert response (not processed yet). */
export function renderVideo(state: FakeState, settings: FakeSettings, video: Video, parts: string[], fresh = false) {
  const channel = state.users.get(video.channelId);
  const thumb = (name: string, width: number, height: number) => ({ url: `${settings.baseUrl}/vi/${video.id}/${name}.jpg`, width, height });
  return {
    kind: 'youtube#video',
    etag: video.etag,
    id: video.id,
    ...(parts.includes('snippet') && {
      snippet: {
        publishedAt: new Date(video.publishedAt).toISOString(),
        channelId: video.channelId,
        title: video.title,
        description: video.description,
        thumbnails: { default: thumb('default', 120, 90), medium: thumb('mqdefault', 320, 180), high: thumb('hqdefault', 480, 360) },
        channelTitle: channel?.title ?? '',
        ...(video.tags.length > 0 && { tags: video.tags }),
        categoryId: video.categoryId,
        liveBroadcastContent: 'none',
        ...(video.defaultLanguage && { defaultLanguage: video.defaultLanguage }),
        localized: { title: video.title, description: video.description },
      },
    }),
    ...(parts.includes('status') && {
      status: {
        uploadStatus: fresh ? 'uploaded' : 'processed',
        privacyStatus: video.privacyStatus,
        license: 'youtube',
        embeddable: true,
        publicStatsViewable: true,
        ...(video.selfDeclaredMadeForKids !== null && { madeForKids: video.selfDeclaredMadeForKids, selfDeclaredMadeForKids: video.selfDeclaredMadeForKids }),
      },
    }),
    ...(parts.includes('player') && {
      player: { embedHtml: `<iframe width="480" height="270" src="${settings.baseUrl}/embed/${video.id}" frameborder="0"></iframe>` },
    }),
  };
}

const VIDEO_MEDIA = /^(video\/[\w.+-]+|application\/octet-stream)$/i;

export function checkVideoMediaType(contentType: string): void {
  const type = contentType.split(';')[0]?.trim() ?? '';
  if (!VIDEO_MEDIA.test(type)) {
    throw badRequest('badContent', `Media type '${type}' is not supported. Valid media types: [video/*, application/octet-stream]`, 'global');
  }
}

export function createVideo(
  ctx: Pick<FakeContext, 'state' | 'settings'>,
  input: { channelId: string; metadata: VideoMetadata; media: Buffer; contentType: string; uploadType: Video['uploadType']; uploadId: string | null },
): Video {
  const video: Video = {
    ...input.metadata,
    id: newVideoId(),
    channelId: input.channelId,
    publishedAt: ctx.settings.clock.now(),
    etag: newEtag(),
    media: { size: input.media.length, sha256: createHash('sha256').update(input.media).digest('hex'), contentType: input.contentType },
    uploadType: input.uploadType,
    uploadId: input.uploadId,
  };
  ctx.state.videos.set(video.id, video);
  return video;
}
