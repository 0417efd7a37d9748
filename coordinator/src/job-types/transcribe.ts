import { CreateJobRequest } from '@cutroom/shared/api';
import { transcribeContract } from '@cutroom/shared/contracts/transcribe';
import { JOB_TYPES } from '@cutroom/shared/job-types';
import type { JobTypeDefinition } from './definition.ts';
import { outputFiles } from './contract-files.ts';
import { TRANSCRIPT_ROLE } from './transcript-role.ts';
import { languageOf, prepareUpload } from './upload-common.ts';

/** Fields a transcribe request takes besides job_type. */
const TranscribeRequest = CreateJobRequest.pick({ filename: true, content_type: true, source_url: true, language: true, thread_id: true, title: true });

/**
 * transcribe: an audio or video upload → SRT and word-level JSON (transcript v2). Queued as
 * `extracting_audio` (the agent downloads, probes and extracts 16 kHz mono), then `transcribing`.
 */
export const transcribe: JobTypeDefinition<'transcribe'> = {
  type: 'transcribe',
  facts: JOB_TYPES.transcribe,
  mcp: {
    title: 'Transcribe audio or video',
    description:
      'Transcript of an audio or video upload (SRT, VTT, TXT, JSON v1, word-level JSON v2, and the edit format) with get_transcript. For clips, call find_clips instead (it includes the transcript).',
    required: ['content_type'],
    rank: 2,
  },
  request: TranscribeRequest,
  prepare: (req) => prepareUpload('transcribe', req, {}),
  workKind: transcribeContract.workKind,
  stages: ['extracting_audio', 'transcribing'],
  files: outputFiles(transcribeContract),
  roles: [TRANSCRIPT_ROLE],
  buildAssignment(base, job, { source }, config) {
    return { ...base, job_type: 'transcribe', source, params: { language: languageOf(job), model: config.WHISPER_MODEL } };
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
