import { CreateJobRequest } from '@cutroom/shared/api';
import { summarizeContract } from '@cutroom/shared/contracts/summarize';
import { JOB_TYPES } from '@cutroom/shared/job-types';
import type { JobTypeDefinition } from './definition.ts';
import { outputFiles } from './contract-files.ts';
import { TRANSCRIPT_ROLE } from './transcript-role.ts';
import { languageOf, prepareUpload } from './upload-common.ts';
import { transcribe } from './transcribe.ts';

const SummarizeRequest = CreateJobRequest.pick({ filename: true, content_type: true, source_url: true, language: true, thread_id: true, title: true });

/**
 * summarize: an audio or video upload → its transcript (a free byproduct, every format) and a
 * summary (summary v1 JSON: overview, key points with the sentences behind them, chapters with
 * start times). Runs where find_clips runs (kind `understand`): extracting_audio, transcribing,
 * analyzing. Priced by media kind, so a video uploaded as audio is refused at the probe, as for transcribe.
 */
export const summarizeJob: JobTypeDefinition<'summarize'> = {
  type: 'summarize',
  facts: JOB_TYPES.summarize,
  mcp: {
    title: 'Summarize audio or video',
    description: 'Transcript plus a summary (overview, key points with evidence, chapters; summary v1 JSON) of an audio or video upload.',
    required: ['content_type'],
    rank: 3,
  },
  request: SummarizeRequest,
  fieldHints: {
    query: 'summarize takes no query; to find the moments about a subject use find_clips with a query',
    source_job_id: 'summarize takes an upload (filename, content_type); to cut from an existing job use extract_clip or extract_vertical_clip',
  },
  prepare: (req) => prepareUpload('summarize', req, {}),
  workKind: summarizeContract.workKind,
  stages: ['extracting_audio', 'transcribing', 'analyzing'],
  files: outputFiles(summarizeContract),
  roles: [TRANSCRIPT_ROLE, { role: 'summary', file: 'summary' }],
  buildAssignment(base, job, { source }, config) {
    return { ...base, job_type: 'summarize', source, params: { language: languageOf(job), model: config.WHISPER_MODEL } };
  },
  // Audio and video are priced apart: a video paid as audio fails before the transcription.
  checkMedia: (job, media) => transcribe.checkMedia(job, media),
  completion(_job, req) {
    return { durationSeconds: req.media.duration_seconds, media: { ...req.media, language: req.language } };
  },
};
