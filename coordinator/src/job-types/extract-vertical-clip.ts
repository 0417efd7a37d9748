import { CreateJobRequest } from '@cutroom/shared/api';
import { DEFAULT_CLIP_ASPECT, DEFAULT_VERTICAL_PROFILE, outputSize, VERTICAL_PROFILES } from '@cutroom/shared/clips/profiles';
import { extractVerticalClipContract } from '@cutroom/shared/contracts/extract-vertical-clip';
import { JOB_TYPES, priceOf } from '@cutroom/shared/job-types';
import type { ExtractVerticalClipParams } from '@cutroom/proto';
import { AppError } from '../lib/app-error.ts';
import { outputFiles } from './contract-files.ts';
import { clipFilename, requireInsideMedia, requireParent, requireVideoParent, secs } from './cut-common.ts';
import type { JobTypeDefinition } from './definition.ts';

const ExtractVerticalClipRequest = CreateJobRequest.pick({
  source_job_id: true,
  start: true,
  end: true,
  profile: true,
  aspect: true,
  subject: true,
  subject_id: true,
  subject_box: true,
  t_ref: true,
  subject_x_offset: true,
  title: true,
  thread_id: true,
});

const bad = (message: string) => new AppError('invalid_request', message);

/**
 * extract_vertical_clip: one segment of the parent's stored source as a 9:16 mp4 (or 4:5, 1:1 with
 * `aspect`) in one of the spec's profiles, loudness-normalized (-14 LUFS / -1.5 dBTP, two passes), reframed by a
 * strategy (center, manual, auto, subject_id, follow). Outputs `clip` and `subjects` (subjects v1:
 * what detection found and the crop path used). Queued and run as `analyzing`.
 */
export const extractVerticalClip: JobTypeDefinition<'extract_vertical_clip'> = {
  type: 'extract_vertical_clip',
  facts: JOB_TYPES.extract_vertical_clip,
  mcp: {
    title: 'Cut one vertical 9:16 clip',
    description:
      'One 9:16 mp4 (1080x1920 by default; aspect 4:5 or 1:1 for feed posts; loudness -14 LUFS) cut from start to end of a job you already have, center-cropped or reframed on a subject (subject auto, follow, manual with subject_box, subject_id).',
    required: ['source_job_id', 'start', 'end'],
    rank: 1,
  },
  request: ExtractVerticalClipRequest,
  fieldHints: {
    segments: 'a vertical clip is one segment: send start and end (seconds of the parent); for several segments in one file use extract_clip',
    include_transcript: 'include_transcript applies to extract_clip',
  },
  prepare(req, parentView) {
    const parent = requireParent(req, parentView);
    requireVideoParent('extract_vertical_clip', parent);
    if (req.start === undefined || req.end === undefined) {
      throw bad(
        'start and end are required for extract_vertical_clip: the segment to cut, in seconds of the parent (one segment; for several use extract_clip)',
      );
    }
    if (req.end <= req.start) throw bad(`end (${secs(req.end)}) must be greater than start (${secs(req.start)})`);
    requireInsideMedia('the clip', req.start, req.end, parent);
    const profile = req.profile ?? DEFAULT_VERTICAL_PROFILE;
    const spec = VERTICAL_PROFILES[profile];
    const length = req.end - req.start;
    if (length > spec.maxSeconds) {
      const longer = Object.entries(VERTICAL_PROFILES)
        .filter(([, p]) => p.maxSeconds >= length)
        .map(([name, p]) => `${name} (${p.maxSeconds} s)`);
      throw bad(
        `profile ${profile} takes clips of at most ${spec.maxSeconds} s; this one is ${secs(length)}: shorten it${longer.length ? ` or use ${longer.join(', ')}` : ''}`,
      );
    }
    // subject_id alone means "reframe on this subject".
    const subject = req.subject ?? (req.subject_id !== undefined ? 'subject_id' : 'center');
    if (subject === 'manual' && !req.subject_box) {
      throw bad('subject=manual needs subject_box {x, y, w, h}: the subject in source pixels (top-left x, y), as seen at t_ref (default: start)');
    }
    if (subject !== 'manual' && req.subject_box)
      throw bad(`subject_box applies to subject=manual (got subject=${subject}): send subject: "manual" with it, or drop it`);
    if (subject === 'subject_id' && !req.subject_id) {
      throw bad('subject=subject_id needs subject_id: one of the ids in the `subjects` output of an earlier subject=auto clip of this parent');
    }
    if (subject !== 'subject_id' && req.subject_id !== undefined) throw bad(`subject_id applies to subject=subject_id (got subject=${subject})`);
    if (req.t_ref !== undefined && subject !== 'manual')
      throw bad('t_ref applies to subject=manual: the second (of the parent) at which subject_box frames the subject');
    if (req.t_ref !== undefined && (req.t_ref < req.start || req.t_ref > req.end)) {
      throw bad(`t_ref (${secs(req.t_ref)}) must lie inside the clip [${secs(req.start)}, ${secs(req.end)}]`);
    }
    if (req.subject_x_offset !== undefined) {
      if (subject === 'center') throw bad('subject_x_offset moves the framing off a subject; subject=center has none: use manual, auto, subject_id or follow');
      if (req.subject_x_offset >= spec.width / 2) {
        throw bad(`subject_x_offset is in output pixels and must be below half the ${profile} width (${spec.width / 2})`);
      }
    }
    const params: ExtractVerticalClipParams & { title: string | null; thread_id: string | null } = {
      start: req.start,
      end: req.end,
      profile,
      aspect: req.aspect ?? DEFAULT_CLIP_ASPECT,
      subject,
      subject_id: req.subject_id ?? null,
      subject_box: req.subject_box ?? null,
      t_ref: req.t_ref ?? null,
      subject_x_offset: req.subject_x_offset ?? 0,
      title: req.title ?? null,
      thread_id: req.thread_id ?? null,
    };
    return {
      originalFilename: clipFilename(parent, 'vertical'),
      contentType: 'video/mp4',
      mediaKind: null,
      price: priceOf('extract_vertical_clip', null)!,
      params,
    };
  },
  workKind: extractVerticalClipContract.workKind,
  stages: ['analyzing'],
  files: outputFiles(extractVerticalClipContract),
  roles: [
    { role: 'clip', file: 'clip' },
    { role: 'subjects', file: 'subjects' },
  ],
  buildAssignment(base, job, { source }) {
    const p = job.params as unknown as ExtractVerticalClipParams;
    const params: ExtractVerticalClipParams = {
      start: p.start,
      end: p.end,
      profile: p.profile,
      // Jobs created before the option hold no aspect: 9:16, what they were priced and promised as.
      aspect: p.aspect ?? DEFAULT_CLIP_ASPECT,
      subject: p.subject,
      subject_id: p.subject_id,
      subject_box: p.subject_box,
      t_ref: p.t_ref,
      subject_x_offset: p.subject_x_offset,
    };
    return { ...base, job_type: 'extract_vertical_clip', source, params };
  },
  checkMedia: () => null,
  completion(job, req) {
    // The size the caller was promised: an agent older than `aspect` would render 9:16 for a 1:1 job.
    const p = job.params as unknown as ExtractVerticalClipParams;
    const aspect = p.aspect ?? DEFAULT_CLIP_ASPECT;
    const want = outputSize(p.profile, aspect);
    if (req.video.width !== want.width || req.video.height !== want.height) {
      throw new Error(`the clip is ${req.video.width}x${req.video.height}, not the ${want.width}x${want.height} of ${p.profile} at ${aspect}`);
    }
    return { durationSeconds: req.video.duration_seconds, media: { ...req.media, video: req.video, encoder: req.video.encoder, loudness: req.loudness } };
  },
};
