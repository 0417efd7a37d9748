// The route table. Paths are those of the real hosts with the host part replaced by the fake's
// base URL: accounts.google.com/o/oauth2/v2/auth, oauth2.googleapis.com/{token,revoke,tokeninfo},
// youtube.googleapis.com/youtube/v3/… and (uploads) …/upload/youtube/v3/…, as googleapis-common
// builds them from `rootUrl`. Names are what faults and the request log use.
import type { FakeContext } from './context.ts';
import { controlRoutes as c } from './control.ts';
import { showConsentPage, submitConsentPage } from './oauth/consent.ts';
import { revoke, token, tokenInfo } from './oauth/token.ts';
import { insertCaption, listCaptions } from './resources/captions.ts';
import { listChannels } from './resources/channels.ts';
import { putChunk } from './resources/uploads.ts';
import { deleteVideo, insertVideo, listVideos, watchPage, wrongUploadUrl } from './resources/videos.ts';

/** api: YouTube calls (bearer token, quota); upload: session PUTs; oauth: the account endpoints; page: HTML for people; control: /__fake */
export type RouteKind = 'api' | 'upload' | 'oauth' | 'page' | 'control';

export interface RouteDef {
  method: string;
  path: string;
  name: string;
  kind: RouteKind;
  handler(ctx: FakeContext): unknown;
}

const r = (method: string, path: string, name: string, kind: RouteKind, handler: RouteDef['handler']): RouteDef => ({ method, path, name, kind, handler });

export const ROUTES: RouteDef[] = [
  r('GET', '/o/oauth2/v2/auth', 'oauth.authorize', 'oauth', showConsentPage),
  r('POST', '/o/oauth2/v2/auth/approve', 'oauth.approve', 'oauth', submitConsentPage),
  r('POST', '/token', 'oauth.token', 'oauth', token),
  r('POST', '/revoke', 'oauth.revoke', 'oauth', revoke),
  r('GET', '/tokeninfo', 'oauth.tokeninfo', 'oauth', tokenInfo),
  r('POST', '/tokeninfo', 'oauth.tokeninfo', 'oauth', tokenInfo),

  r('POST', '/upload/youtube/v3/videos', 'videos.insert', 'api', insertVideo),
  r('PUT', '/upload/youtube/v3/videos', 'upload.put', 'upload', putChunk),
  r('GET', '/youtube/v3/videos', 'videos.list', 'api', listVideos),
  r('DELETE', '/youtube/v3/videos', 'videos.delete', 'api', deleteVideo),
  r('POST', '/youtube/v3/videos', 'videos.insert', 'api', wrongUploadUrl),
  r('POST', '/upload/youtube/v3/captions', 'captions.insert', 'api', insertCaption),
  r('POST', '/youtube/v3/captions', 'captions.insert', 'api', wrongUploadUrl),
  r('GET', '/youtube/v3/captions', 'captions.list', 'api', listCaptions),
  r('GET', '/youtube/v3/channels', 'channels.list', 'api', listChannels),
  r('GET', '/watch', 'watch', 'page', watchPage),

  r('POST', '/__fake/consent', 'control', 'control', c.consent),
  r('POST', '/__fake/users', 'control', 'control', c.createUser),
  r('POST', '/__fake/faults', 'control', 'control', c.injectFault),
  r('POST', '/__fake/time', 'control', 'control', c.advanceTime),
  r('GET', '/__fake/quota', 'control', 'control', c.quota),
  r('POST', '/__fake/quota/exhaust', 'control', 'control', c.exhaustQuota),
  r('POST', '/__fake/grants/revoke', 'control', 'control', c.revokeGrants),
  r('GET', '/__fake/videos', 'control', 'control', c.videos),
  r('GET', '/__fake/captions', 'control', 'control', c.captions),
  r('GET', '/__fake/uploads', 'control', 'control', c.uploads),
  r('GET', '/__fake/requests', 'control', 'control', c.requests),
];

export function matchRoute(method: string, pathname: string): RouteDef | null {
  return ROUTES.find((route) => route.method === method && route.path === pathname) ?? null;
}
