// Daily quota of the API project, as YouTube counts it: every method has a cost in units
// (videos.insert 1600, captions.insert 400, captions.list 50, videos.list and channels.list 1 by
// default), a project has 10,000 units a day, and the day resets at midnight Pacific Time. A call
// that would go past the limit is refused with 403 quotaExceeded and costs nothing. Separately, a
// channel may insert only so many videos a day (400 uploadLimitExceeded).
import { nextPacificMidnight, pacificDay } from './clock.ts';
import type { FakeContext, FakeSettings, QuotaCosts } from './context.ts';
import { badRequest, GoogleApiError } from './errors.ts';
import type { FakeState, QuotaState } from './state.ts';

export function initialQuota(settings: Pick<FakeSettings, 'clock' | 'dailyQuota'>): QuotaState {
  const now = settings.clock.now();
  return { limit: settings.dailyQuota, used: 0, day: pacificDay(now), resetsAt: nextPacificMidnight(now), byMethod: {}, uploadsByChannel: {} };
}

/** Starts a new quota day when the clock passed the Pacific midnight; returns the live state. */
export function rollQuota(state: FakeState, settings: FakeSettings): QuotaState {
  const now = settings.clock.now();
  if (now >= state.quota.resetsAt) {
    Object.assign(state.quota, { used: 0, day: pacificDay(now), resetsAt: nextPacificMidnight(now), byMethod: {}, uploadsByChannel: {} });
  }
  return state.quota;
}

export const QUOTA_EXCEEDED_MESSAGE = 'The request cannot be completed because you have exceeded your quota.';

/** Spends the method's cost, or refuses the call with Google's quotaExceeded. */
export function charge(ctx: Pick<FakeContext, 'state' | 'settings'>, method: keyof QuotaCosts): void {
  const quota = rollQuota(ctx.state, ctx.settings);
  const cost = ctx.settings.costs[method];
  if (quota.used + cost > quota.limit) {
    throw new GoogleApiError({ status: 403, reason: 'quotaExceeded', message: QUOTA_EXCEEDED_MESSAGE, domain: 'youtube.quota' });
  }
  quota.used += cost;
  quota.byMethod[method] = (quota.byMethod[method] ?? 0) + cost;
}

/** The per-channel daily limit on videos.insert; checked before the quota is spent. */
export function checkUploadLimit(ctx: Pick<FakeContext, 'state' | 'settings'>, channelId: string): void {
  const quota = rollQuota(ctx.state, ctx.settings);
  if ((quota.uploadsByChannel[channelId] ?? 0) >= ctx.settings.dailyUploadsPerChannel) {
    throw badRequest('uploadLimitExceeded', 'The user has exceeded the number of videos they may upload.', 'youtube.video');
  }
}

export function countUpload(ctx: Pick<FakeContext, 'state' | 'settings'>, channelId: string): void {
  const quota = rollQuota(ctx.state, ctx.settings);
  quota.uploadsByChannel[channelId] = (quota.uploadsByChannel[channelId] ?? 0) + 1;
}
