import { CreateJobRequest } from '@cutroom/shared/api';
import { extractClipContract } from '@cutroom/shared/contracts/extract-clip';
import { JOB_TYPES, priceOf } from '@cutroom/shared/job-types';
import { LIMITS } from '@cutroom/shared/limits';
import { AppError } from '../lib/app-error.ts';
import { clipFilename, requireInsideMedia, requireParent, requireVideoParent, secs } from './cut-common.ts';
import type { JobTypeDefinition } from './definition.ts';
import { outputFiles } from './contract-files.ts';
import { TRANSCRIPT_ROLE } from './transcript-role.ts';

const ExtractClipRequest = CreateJobRequest.pick({ source_job_id: true, segments: true, include_transcript: true, title: true, thread_id: true });

const wantsTranscript = (params: Record<string, unknown>): boolean => params['include_transcript'] !== false;

/**
 * extract_clip: one or more segments of the parent's stored source, cut frame-accurately and
 * joined into ONE mp4 (H.264/AAC, source size and rate, 15 ms audio fades at the joins), with the
 * parent's transcript re-timed to the cut unless include_transcript is false. No upload: created
 * free, paid and started by POST /jobs/{id}/process. Queued and run as `analyzing`.
 */
export const extractClip: JobTypeDefinition<'extract_clip'> = {
  type: 'extract_clip',
  facts: JOB_TYPES.extract_clip,
  mcp: {
    title: 'Cut a horizontal clip',
    description:
      'One horizontal mp4 of 1-50 segments of a job you already have, joined in order, frame-accurate, with 15 ms audio fades at the joins and the transcript re-timed to the cut.',
    required: ['source_job_id', 'segments'],
    rank: 2,
  },
  request: ExtractClipRequest,
  fieldHints: {
    start: 'extract_clip takes segments: [{start, end, label?}] (seconds of the parent); start/end alone are for extract_vertical_clip',
    end: 'extract_clip takes segments: [{start, end, label?}] (seconds of the parent); start/end alone are for extract_vertical_clip',
    profile: 'profile applies to extract_vertical_clip; extract_clip keeps the source size and frame rate',
  },
  prepare(req, parentView) {
    const parent = requireParent(req, parentView);
    requireVideoParent('extract_clip', parent);
    const segments = req.segments;
    if (!segments?.length) {
      throw new AppError(
        'invalid_request',
        `segments is required for extract_clip: 1-${LIMITS.segmentsMax} items of {start, end, label?} in seconds of the parent`,
      );
    }
    for (const [i, s] of segments.entries()) requireInsideMedia(`segment ${i + 1}`, s.start, s.end, parent);
    const total = segments.reduce((sum, s) => sum + (s.end - s.start), 0);
    if (total > LIMITS.extractClipMaxTotalSeconds) {
      throw new AppError(
        'invalid_request',
        `the segments add up to ${secs(total)}; one extract_clip call outputs at most ${LIMITS.extractClipMaxTotalSeconds / 60} minutes: split them over several calls`,
      );
    }
    const includeTranscript = req.include_transcript ?? true;
    if (includeTranscript && !parent.roles.includes('transcript')) {
      throw new AppError(
        'invalid_request',
        `source_job_id ${parent.job.id} no longer has its transcript output (it was deleted), so it cannot be re-timed: send include_transcript: false`,
      );
    }
    return {
      originalFilename: clipFilename(parent, 'clip'),
      contentType: 'video/mp4',
      mediaKind: null,
      price: priceOf('extract_clip', null)!,
      params: {
        segments: segments.map((s) => ({ start: s.start, end: s.end, label: s.label ?? null })),
        include_transcript: includeTranscript,
        title: req.title ?? null,
        thread_id: req.thread_id ?? null,
      },
    };
  },
  workKind: extractClipContract.workKind,
  stages: ['analyzing'],
  // The re-timed transcript is written when the caller asked for it (include_transcript, default true).
  files: outputFiles(extractClipContract, {
    transcript_srt: (job) => wantsTranscript(job.params),
    transcript_words: (job) => wantsTranscript(job.params),
  }),
  roles: [{ role: 'clip', file: 'clip' }, TRANSCRIPT_ROLE],
  buildAssignment(base, job, { source, parentWordsUrl }) {
    const segments = job.params['segments'] as { start: number; end: number; label: string | null }[];
    return { ...base, job_type: 'extract_clip', source, params: { segments, parent_words_url: wantsTranscript(job.params) ? parentWordsUrl : null } };
  },
  checkMedia: () => null,
  completion(_job, req) {
    return { durationSeconds: req.video.duration_seconds, media: { ...req.media, video: req.video, encoder: req.video.encoder } };
  },
};
