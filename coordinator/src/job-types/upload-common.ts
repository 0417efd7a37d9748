import type { CreateJobRequest } from '@cutroom/shared/api';
import { type JobType, priceOf } from '@cutroom/shared/job-types';
import { AUDIO_CONTENT_TYPES, mediaKindOf, normalizeContentType, VIDEO_CONTENT_TYPES } from '@cutroom/shared/media-types';
import type { JobRow } from '../db/schema.ts';
import { isIP } from 'node:net';
import { checkUrl, RefusedUrlError } from '@cutroom/shared/net/guarded-request';
import { checkAddress } from '@cutroom/shared/net/public-address';
import { AppError } from '../lib/app-error.ts';
import type { PreparedJob } from './definition.ts';

/** What every upload-based type (transcribe, summarize, find_clips) shares: the upload's checks. */

/**
 * An upload request's row: filename and an accepted content type are required, the media kind
 * comes from the content type and sets the price. `params` are the type's own validated fields.
 */
export function prepareUpload(type: JobType, req: CreateJobRequest, params: Record<string, unknown>): PreparedJob {
  const sourceUrl = req.source_url === undefined ? null : checkedSourceUrl(req.source_url);
  const filename = req.filename ?? (sourceUrl ? filenameOf(sourceUrl) : undefined);
  if (!filename) throw new AppError('invalid_request', `filename is required for job_type ${type}`);
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
    originalFilename: filename,
    contentType: normalizeContentType(req.content_type),
    mediaKind: media,
    price,
    params: {
      language: req.language ?? null,
      title: req.title ?? null,
      thread_id: req.thread_id ?? null,
      ...(sourceUrl && { source_url: sourceUrl.href }),
      ...params,
    },
  };
}

/**
 * A source_url as far as its text can be judged: http or https, no credentials (a 400 now). Where
 * the config is read (create-job.ts, sourceUrlRefusal) http needs the operator's
 * SOURCE_URL_ALLOW_HTTP and an IP literal must be public; an agent checks every resolved address
 * again when it fetches.
 */
function checkedSourceUrl(raw: string): URL {
  try {
    return checkUrl(raw, { allowHttp: true });
  } catch (err) {
    if (err instanceof RefusedUrlError)
      throw new AppError('invalid_request', err.message.startsWith('source_url') ? err.message : `source_url: ${err.message}`);
    throw err;
  }
}

/** The download name of a URL's file: its path's last part, decoded, or `media`. */
function filenameOf(url: URL): string {
  const last = url.pathname.split('/').filter(Boolean).at(-1);
  let name = last ?? '';
  try {
    name = decodeURIComponent(name);
  } catch {
    // keep it encoded
  }
  return name.replace(/[\p{Cc}/\\]/gu, '_').slice(0, 200) || 'media';
}

/** The caller's source_url of a job created with one (media by URL), else null. */
export const sourceUrlOf = (job: Pick<JobRow, 'params'>): string | null => (typeof job.params['source_url'] === 'string' ? job.params['source_url'] : null);

/** The language the caller forced at creation, or null (detect). */
export const languageOf = (job: JobRow): string | null => (typeof job.params['language'] === 'string' ? job.params['language'] : null);

/**
 * Why this service refuses a job's source_url at creation (null: an agent may try it): http without
 * the operator's SOURCE_URL_ALLOW_HTTP, or an IP literal that is not public (unless a test
 * setting lists it).
 */
export function sourceUrlRefusal(raw: string, o: { allowHttp: boolean; allowAddresses: readonly string[] }): string | null {
  const url = new URL(raw);
  if (url.protocol === 'http:' && !o.allowHttp) return 'source_url: http URLs are not fetched by this service: use https';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!(isIP(host) !== 0) || o.allowAddresses.includes(host)) return null;
  const verdict = checkAddress(host);
  return verdict.allowed ? null : `source_url: ${host} is a ${verdict.range} address: only public addresses are fetched`;
}
