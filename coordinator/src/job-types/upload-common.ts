import type { CreateJobRequest } from '@cutroom/shared/api';
import { type JobType, priceOf } from '@cutroom/shared/job-types';
import { AUDIO_CONTENT_TYPES, mediaKindOf, normalizeContentType, VIDEO_CONTENT_TYPES } from '@cutroom/shared/media-types';
import type { JobRow } from '../db/schema.ts';
import { AppError } from '../lib/app-error.ts';
import type { PreparedJob } from './definition.ts';

/** What every upload-based type (transcribe, summarize, find_clips) shares: the upload's checks. */

/**
 * An upload request's row: filename and an accepted content type are required, the media kind
 * comes from the content type and sets the price. `params` are the type's own validated fields.
 */
export function prepareUpload(type: JobType, req: CreateJobRequest, params: Record<string, unknown>): PreparedJob {
  if (!req.filename) throw new AppError('invalid_request', `filename is required for job_type ${type}`);
  if (!req.content_type) throw new AppError('invalid_request', `content_type is required for job_type ${type}`);
  const media = mediaKindOf(req.content_type);
  if (!media) {
    throw new AppError(
      'unsupported_media',
      `content_type ${req.content_type} is not accepted; audio: ${AUDIO_CONTENT_TYPES.join(', ')}; video: ${VIDEO_CONTENT_TYPES.join(', ')}`,
    );
  }
  const price = priceOf(type, media);
  if (!price) throw new AppError('unsupported_media', `job_type ${type} does not take ${media}`);
  return {
    originalFilename: req.filename,
    contentType: normalizeContentType(req.content_type),
    mediaKind: media,
    price,
    params: { language: req.language ?? null, title: req.title ?? null, thread_id: req.thread_id ?? null, ...params },
  };
}

/** The language the caller forced at creation, or null (detect). */
export const languageOf = (job: JobRow): string | null => (typeof job.params['language'] === 'string' ? job.params['language'] : null);
