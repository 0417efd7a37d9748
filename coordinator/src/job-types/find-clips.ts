import { CreateJobRequest } from '@cutroom/shared/api';
import { ClipsV1 } from '@cutroom/shared/clips/clips-v1';
import { JOB_TYPES, priceOf } from '@cutroom/shared/job-types';
import { AUDIO_CONTENT_TYPES, mediaKindOf, normalizeContentType, VIDEO_CONTENT_TYPES } from '@cutroom/shared/media-types';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { AppError } from '../lib/app-error.ts';
import type { JobTypeDefinition } from './definition.ts';

const FindClipsRequest = CreateJobRequest.pick({ filename: true, content_type: true, language: true, query: true, thread_id: true, title: true });

/**
 * find_clips: an upload → its transcript (a free byproduct, every format) → clip candidates of
 * 120-300 s, sentence-snapped, scored with a breakdown (clips v1 JSON); `query` switches to the
 * moments matching it. Queued as `extracting_audio`, then `transcribing`, then `analyzing`.
 * Retention 72 h, so candidates can be cut (extract_clip / extract_vertical_clip) for three days.
 */
export const findClipsJob: JobTypeDefinition<'find_clips'> = {
  type: 'find_clips',
  facts: JOB_TYPES.find_clips,
  request: FindClipsRequest,
  fieldHints: {
    segments:
      'find_clips takes an upload (filename, content_type) and optionally a query; cut its candidates afterwards with extract_clip naming it as source_job_id',
    source_job_id: 'find_clips takes an upload (filename, content_type); to cut from an existing job use extract_clip or extract_vertical_clip',
  },
  prepare(req, _parent) {
    if (!req.filename) throw new AppError('invalid_request', 'filename is required for job_type find_clips');
    if (!req.content_type) throw new AppError('invalid_request', 'content_type is required for job_type find_clips');
    const media = mediaKindOf(req.content_type);
    if (!media) {
      throw new AppError(
        'unsupported_media',
        `content_type ${req.content_type} is not accepted; audio: ${AUDIO_CONTENT_TYPES.join(', ')}; video: ${VIDEO_CONTENT_TYPES.join(', ')}`,
      );
    }
    const query = req.query?.trim() ? req.query.trim() : null;
    if (req.query !== undefined && query === null)
      throw new AppError('invalid_request', 'query is blank: send 1-500 characters, or leave it out for the best moments');
    return {
      originalFilename: req.filename,
      contentType: normalizeContentType(req.content_type),
      mediaKind: media,
      price: priceOf('find_clips', media)!,
      params: { language: req.language ?? null, query, title: req.title ?? null, thread_id: req.thread_id ?? null },
    };
  },
  workKind: 'understand',
  capabilities: ['ffmpeg', 'whisper', 'embeddings'],
  stages: ['extracting_audio', 'transcribing', 'analyzing'],
  files: {
    transcript_srt: { contentType: 'application/x-subrip' },
    transcript_words: { contentType: 'application/json', schema: TranscriptV2 },
    clips: { contentType: 'application/json', schema: ClipsV1 },
  },
  roles: [
    { role: 'transcript', file: 'transcript_srt', meta: { words_key: 'transcript_words' } },
    { role: 'clips', file: 'clips' },
  ],
  buildAssignment(base, job, { source }, config) {
    const language = typeof job.params['language'] === 'string' ? job.params['language'] : null;
    const query = typeof job.params['query'] === 'string' ? job.params['query'] : null;
    return { ...base, job_type: 'find_clips', source, params: { language, model: config.WHISPER_MODEL, query } };
  },
  // Priced the same for audio and video: nothing to refuse in the probe.
  checkMedia: () => null,
  completion(_job, req) {
    return { durationSeconds: req.media.duration_seconds, media: { ...req.media, language: req.language, candidates: req.candidates } };
  },
};
