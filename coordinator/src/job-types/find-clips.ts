import { CreateJobRequest } from '@cutroom/shared/api';
import { ClipTarget } from '@cutroom/shared/clips/clip-targets';
import { findClipsContract } from '@cutroom/shared/contracts/find-clips';
import { JOB_TYPES } from '@cutroom/shared/job-types';
import { AppError } from '../lib/app-error.ts';
import type { JobTypeDefinition } from './definition.ts';
import { outputFiles } from './contract-files.ts';
import { TRANSCRIPT_ROLE } from './transcript-role.ts';
import { languageOf, prepareUpload } from './upload-common.ts';

const FindClipsRequest = CreateJobRequest.pick({
  filename: true,
  content_type: true,
  source_url: true,
  language: true,
  query: true,
  target: true,
  thread_id: true,
  title: true,
});

/**
 * find_clips: an upload → its transcript (a free byproduct, every format) → clip candidates,
 * sentence-snapped, each inside one topic, scored with a breakdown (clips v1 JSON), sized by
 * `target` (short 15-60 s, medium 60-180 s, long 120-300 s; none: 2-5 minutes, or the topics' own
 * lengths when no topic is that long); `query` switches to the moments matching it. Queued as `extracting_audio`, then `transcribing`, then `analyzing`.
 * Retention 72 h, so candidates can be cut (extract_clip / extract_vertical_clip) for three days.
 */
export const findClipsJob: JobTypeDefinition<'find_clips'> = {
  type: 'find_clips',
  facts: JOB_TYPES.find_clips,
  mcp: {
    title: 'Find the best clips in a video',
    description:
      'START HERE for clips from a video: transcribes it (the transcript comes free: do not call transcribe first) and returns ranked clip candidates (title, hook, summary, score, full text; clips v1 JSON), each inside one topic of the talk: 2-5 minutes by default, or sized by target (short 15-60 s for stories and shorts, medium 60-180 s for reels, long 120-300 s). With query, finds the moments matching it instead. Then cut chosen candidates with extract_vertical_clip, extract_clip, clips_vertical, clips_horizontal or clips_from_job, naming this job as source_job_id: no re-upload. To upload and get finished clips in one purchase use clips_from_video or clips_youtube.',
    required: ['content_type'],
    rank: 1,
  },
  request: FindClipsRequest,
  fieldHints: {
    segments:
      'find_clips takes an upload (filename, content_type) and optionally a query; cut its candidates afterwards with extract_clip naming it as source_job_id',
    source_job_id: 'find_clips takes an upload (filename, content_type); to cut from an existing job use extract_clip or extract_vertical_clip',
  },
  prepare(req) {
    const prepared = prepareUpload('find_clips', req, {});
    const query = req.query?.trim() ? req.query.trim() : null;
    if (req.query !== undefined && query === null)
      throw new AppError('invalid_request', 'query is blank: send 1-500 characters, or leave it out for the best moments');
    // Stored only when asked for: a row without it means the default, as it always did.
    return { ...prepared, params: { ...prepared.params, query, ...(req.target && { target: req.target }) } };
  },
  workKind: findClipsContract.workKind,
  stages: ['extracting_audio', 'transcribing', 'analyzing'],
  files: outputFiles(findClipsContract),
  roles: [TRANSCRIPT_ROLE, { role: 'clips', file: 'clips' }],
  buildAssignment(base, job, { source }, config) {
    const query = typeof job.params['query'] === 'string' ? job.params['query'] : null;
    const target = ClipTarget.safeParse(job.params['target']);
    return {
      ...base,
      job_type: 'find_clips',
      source,
      params: { language: languageOf(job), model: config.WHISPER_MODEL, query, ...(target.success && { target: target.data }) },
    };
  },
  // Priced the same for audio and video: nothing to refuse in the probe.
  checkMedia: () => null,
  completion(_job, req) {
    return { durationSeconds: req.media.duration_seconds, media: { ...req.media, language: req.language, candidates: req.candidates } };
  },
};
