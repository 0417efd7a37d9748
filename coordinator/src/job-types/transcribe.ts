import { CreateJobRequest } from '@cutroom/shared/api';
import { JOB_TYPES, priceOf } from '@cutroom/shared/job-types';
import { AUDIO_CONTENT_TYPES, VIDEO_CONTENT_TYPES, mediaKindOf, normalizeContentType } from '@cutroom/shared/media-types';
import { TranscriptV2 } from '@cutroom/shared/transcript/transcript-v2';
import { AppError } from '../lib/app-error.ts';
import type { JobTypeDefinition } from './definition.ts';

/** Fields a transcribe request takes besides job_type. */
const TranscribeRequest = CreateJobRequest.pick({ filename: true, content_type: true, language: true, thread_id: true, title: true });

/**
 * transcribe: an audio or video upload → SRT and word-level JSON (transcript v2). Queued as
 * `extracting_audio` (the agent downloads, probes and extracts 16 kHz mono), then `transcribing`.
 */
export const transcribe: JobTypeDefinition<'transcribe'> = {
  type: 'transcribe',
  facts: JOB_TYPES.transcribe,
  request: TranscribeRequest,
  prepare(req, _parent) {
    if (!req.filename) throw new AppError('invalid_request', `filename is required for job_type ${req.job_type}`);
    if (!req.content_type) throw new AppError('invalid_request', `content_type is required for job_type ${req.job_type}`);
    const media = mediaKindOf(req.content_type);
    if (!media) {
      throw new AppError(
        'unsupported_media',
        `content_type ${req.content_type} is not accepted; audio: ${AUDIO_CONTENT_TYPES.join(', ')}; video: ${VIDEO_CONTENT_TYPES.join(', ')}`,
      );
    }
    return {
      originalFilename: req.filename,
      contentType: normalizeContentType(req.content_type),
      mediaKind: media,
      price: priceOf('transcribe', media)!,
      params: { language: req.language ?? null, title: req.title ?? null, thread_id: req.thread_id ?? null },
    };
  },
  workKind: 'transcribe',
  capabilities: ['ffmpeg', 'whisper'],
  stages: ['extracting_audio', 'transcribing'],
  files: {
    transcript_srt: { contentType: 'application/x-subrip' },
    transcript_words: { contentType: 'application/json', schema: TranscriptV2 },
  },
  roles: [{ role: 'transcript', file: 'transcript_srt', meta: { words_key: 'transcript_words' } }],
  buildAssignment(base, job, { source }, config) {
    const language = typeof job.params['language'] === 'string' ? job.params['language'] : null;
    return { ...base, job_type: 'transcribe', source, params: { language, model: config.WHISPER_MODEL } };
  },
  checkMedia(job, media) {
    if (media.has_video && job.mediaKind === 'audio') {
      // Priced as audio, but the file is a video: refuse before spending the transcription.
      return {
        code: 'media_kind_mismatch',
        message: `the uploaded file is a video but the job was created as ${job.contentType} (audio price); create a new job with the video's content type`,
      };
    }
    return null;
  },
  completion(_job, req) {
    return { durationSeconds: req.media.duration_seconds, media: { ...req.media, language: req.language } };
  },
};
