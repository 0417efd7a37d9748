// channels.list: `mine=true` is how a service learns which channel an account connection
// reached (to show it, and to tell two connections apart); `id=` looks channels up.
import { authenticate } from '../auth.ts';
import type { FakeContext } from '../context.ts';
import { listParam } from '../context.ts';
import { badRequest } from '../errors.ts';
import { charge } from '../quota.ts';
import type { FakeUser } from '../state.ts';
import { newEtag } from '../state.ts';
import { checkParts } from './video-resource.ts';

const CHANNEL_PARTS = new Set([
  'id',
  'snippet',
  'contentDetails',
  'status',
  'statistics',
  'brandingSettings',
  'contentOwnerDetails',
  'localizations',
  'topicDetails',
  'auditDetails',
]);

function renderChannel(ctx: FakeContext, user: FakeUser, parts: string[]) {
  const videos = [...ctx.state.videos.values()].filter((v) => v.channelId === user.id);
  return {
    kind: 'youtube#channel',
    etag: newEtag(),
    id: user.id,
    ...(parts.includes('snippet') && {
      snippet: { title: user.title, description: '', publishedAt: new Date(user.createdAt).toISOString(), localized: { title: user.title, description: '' } },
    }),
    ...(parts.includes('contentDetails') && { contentDetails: { relatedPlaylists: { likes: '', uploads: `UU${user.id.slice(2)}` } } }),
    ...(parts.includes('statistics') && {
      statistics: { viewCount: '0', subscriberCount: '0', hiddenSubscriberCount: false, videoCount: String(videos.length) },
    }),
  };
}

/** GET /youtube/v3/channels?part=…&mine=true | id=… */
export function listChannels(ctx: FakeContext) {
  const { user } = authenticate(ctx, 'channels.list');
  const parts = listParam(ctx.req.url, 'part');
  checkParts(parts, CHANNEL_PARTS);
  const ids = listParam(ctx.req.url, 'id');
  const mine = ctx.req.url.searchParams.get('mine') === 'true';
  if (!mine && ids.length === 0) {
    throw badRequest(
      'missingRequiredParameter',
      'No filter selected. Expected one of: forHandle, id, managedByMe, categoryId, mine, mySubscribers, forUsername',
    );
  }
  charge(ctx, 'channels.list');
  const users = mine ? [user] : ids.map((id) => ctx.state.users.get(id)).filter((u): u is FakeUser => u !== undefined);
  const items = users.map((u) => renderChannel(ctx, u, parts));
  return { kind: 'youtube#channelListResponse', etag: newEtag(), pageInfo: { totalResults: items.length, resultsPerPage: 5 }, items };
}
