import type { CreateJobRequest } from '@cutroom/shared/api';
import type { JobType } from '@cutroom/shared/job-types';
import { AppError } from '../lib/app-error.ts';
import type { ParentView } from './definition.ts';

/** Seconds as callers read them in messages: at most three decimals, no trailing zeros. */
export const secs = (s: number): string => `${Number(s.toFixed(3))} s`;

/**
 * A cut of the parent's timeline is inside the media when it ends no later than the probed
 * duration (plus a millisecond of float slack: containers round durations to ms).
 */
export function requireInsideMedia(what: string, start: number, end: number, parent: ParentView): void {
  const duration = parent.media.duration;
  if (start >= duration) {
    throw new AppError(
      'invalid_request',
      `${what} starts at ${secs(start)}, at or after the end of the media (${secs(duration)}): use 0 <= start < ${secs(duration)}`,
    );
  }
  if (end > duration + 0.001) {
    throw new AppError('invalid_request', `${what} ends at ${secs(end)}, after the end of the media (${secs(duration)}): use end <= ${secs(duration)}`);
  }
}

/** A cut is video: an audio-only parent is refused before payment. */
export function requireVideoParent(type: JobType, parent: ParentView): void {
  if (!parent.media.hasVideo) {
    throw new AppError(
      'unsupported_media',
      `source_job_id ${parent.job.id} is audio-only (no video stream); ${type} cuts video: create the parent from a video upload`,
    );
  }
}

export function requireParent(req: CreateJobRequest, parent: ParentView | null): ParentView {
  if (!req.source_job_id || !parent) {
    throw new AppError(
      'invalid_request',
      `source_job_id is required for job_type ${req.job_type}: the id of a completed transcribe, summarize or find_clips job of this session`,
    );
  }
  return parent;
}

/** Derivative rows are named after the parent's upload: `talk.mov` → `talk.clip.mp4`. */
export function clipFilename(parent: ParentView, suffix: string): string {
  const stem = parent.job.originalFilename.replace(/\.[^.]+$/, '') || 'source';
  return `${stem}.${suffix}.mp4`;
}
