import type { VideoHostSettings } from '../config.ts';
import type { Ctx } from '../context.ts';
import { AppError } from '../lib/app-error.ts';

export const PUBLISHING_NOT_CONFIGURED =
  'publishing is not configured on this server: its operator enables it by setting VIDEO_HOST_CLIENT_ID and VIDEO_HOST_CLIENT_SECRET ' +
  '(the OAuth client of this deployment at the video host)';

/** The publishing settings, or the 400 every connection call and publish_video answer when there are none. */
export function requirePublishing(ctx: Ctx): VideoHostSettings {
  if (!ctx.config.videoHost) throw new AppError('invalid_request', PUBLISHING_NOT_CONFIGURED);
  return ctx.config.videoHost;
}
