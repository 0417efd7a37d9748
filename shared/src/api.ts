import { z } from 'zod';
import { JobStatus, JobType, PaymentStatus, SessionStatus } from './job-types.ts';
import { LIMITS } from './limits.ts';
import { ClipTarget } from './clips/clip-targets.ts';
import { ClipAspect, VerticalProfile } from './clips/profiles.ts';
import { SubjectStrategy } from './clips/subjects-v1.ts';

/**
 * REST request/response schemas from the spec's "Resources and their fields". The server
 * validates with these and /openapi.json is generated from them, so the two cannot drift.
 * Unknown request fields are rejected (strict) so a misspelt option is a 400, not ignored.
 */
const seconds = z.number().nonnegative().finite();

export const ExtractClipSegment = z
  .strictObject({
    start: seconds,
    end: seconds,
    label: z.string().max(LIMITS.segmentLabelMaxChars).optional(),
  })
  .refine((s) => s.end > s.start, { message: 'segment end must be greater than start' });

export const SubjectBox = z.strictObject({
  x: z.number().nonnegative(),
  y: z.number().nonnegative(),
  w: z.number().positive(),
  h: z.number().positive(),
});

export { VerticalProfile };
export { SubjectStrategy };

export const ClipsEntry = z.strictObject({
  start: seconds.optional(),
  end: seconds.optional(),
  candidate_id: z.string().max(64).optional(),
  title: z.string().max(LIMITS.titleMaxChars).optional(),
});

export const CreateJobRequest = z.strictObject({
  job_type: JobType.describe(
    "The spec's job types, plus this service's extensions. POST /jobs creates transcribe, summarize, find_clips, extract_clip, extract_vertical_clip, publish_video and `edit_from_transcript` (the spec's agent-surface edit-from-transcript, also offered over REST: send `source_job_id` and `edit`; README \"REST extension: edit_from_transcript\"). " +
      'Four members are listed because the job views name them, and POST /jobs answers each with 400 `{error}` (wrong_endpoint) saying where it is created instead: ' +
      "`clips_vertical` (in the spec's enum) is a bundle of 1-5 clips of one find_clips job, bought with one card checkout of quantity N, so it is created at POST /jobs/{parent_job_id}/derivatives with `clips`; " +
      '`clips_horizontal`, `clips_from_video` and `clips_youtube` are offered through the MCP tools of those names only',
  ),
  filename: z
    .string()
    .min(1)
    .max(LIMITS.filenameMaxChars)
    .optional()
    .describe(
      "transcribe, summarize, find_clips: the file's name (names the downloads); required for an upload, defaults to the URL's last part with source_url",
    ),
  content_type: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .describe(
      'transcribe, summarize, find_clips: the media type of the file, e.g. audio/mpeg, audio/wav, audio/mp4, audio/ogg, audio/flac, video/mp4, video/quicktime, video/webm; audio or video sets the price; the upload URL is bound to it',
    ),
  source_url: z
    .string()
    .max(2048)
    .optional()
    .describe(
      "transcribe, summarize, find_clips (a cutroom extension): the https URL of the media file itself (not of a page showing it) instead of an upload. content_type is still required and sets the price; filename defaults to the URL path's last part. " +
        'Started by POST /jobs/{id}/process (which takes the payment while unpaid): an agent fetches the URL (public addresses only, at most the upload size limit, within the fetch time limit), checks the file is audio or video, and processes it; a refused or failed fetch, or media of another kind than content_type, fails the job and refunds it, saying why',
    ),
  query: z
    .string()
    .min(1)
    .max(LIMITS.queryMaxChars)
    .optional()
    .describe('find_clips: find the moments about this text (1-500 characters) instead of the best moments'),
  target: ClipTarget.optional().describe(
    'find_clips: what the candidates are sized for: short (15-60 s, stories and shorts), medium (60-180 s, reels), long (120-300 s). Omitted: 2-5 minutes, or, when no topic of the recording lasts 2 minutes, candidates that fit its topics. A candidate never crosses a topic boundary',
  ),
  source_job_id: z
    .uuid()
    .optional()
    .describe(
      'extract_clip, extract_vertical_clip, edit_from_transcript: the completed transcribe/summarize/find_clips job of this session whose stored source is cut (no re-upload)',
    ),
  segments: z
    .array(ExtractClipSegment)
    .min(LIMITS.segmentsMin)
    .max(LIMITS.segmentsMax)
    .optional()
    .describe(
      'extract_clip: 1-50 windows of the parent, {start, end} in seconds (end > start) with an optional label, joined in the order given into one clip',
    ),
  include_transcript: z
    .boolean()
    .optional()
    .describe(
      'extract_clip: also output the parent transcript re-timed to the cut (role `transcript`: SRT, and every format through the download route). Default true',
    ),
  title: z.string().max(LIMITS.titleMaxChars).optional().describe('Optional, at most 200 characters: kept with the job (publish_video: the video title)'),
  edit: z
    .string()
    // Characters: a cheap bound here; the byte limit (UTF-8) is checked by the job type with its own message.
    .max(LIMITS.editTextMaxBytes)
    .optional()
    .describe(
      'edit_from_transcript (a REST extension: README "REST extension: edit_from_transcript"): the whole edited transcript, as downloaded with GET /jobs/{source_job_id}/outputs/transcript/download?format=edit (one `[NNNN] text` line per sentence), at most 256 KB of UTF-8. Delete words or whole lines and move whole lines; an added, changed, reordered or copied word or line is refused with 400 listing every failing line in `problems`, before any payment',
    ),
  start: seconds.optional().describe('extract_vertical_clip: first second of the clip, in the parent'),
  end: seconds
    .optional()
    .describe('extract_vertical_clip: end of the clip (exclusive), in the parent; end - start is capped by the profile (240/240/180/60 s)'),
  profile: VerticalProfile.optional().describe('extract_vertical_clip encoding profile; default vidA-primary'),
  aspect: ClipAspect.optional().describe(
    "extract_vertical_clip: the picture's shape (a cutroom extension). 9:16 (default; stories, reels, shorts: 1080x1920 with vidA-primary), 4:5 (feed posts: 1080x1350) or 1:1 (square: 1080x1080); the width is the profile's, the reframing the same. A source already as narrow as the aspect is scaled and padded, not cropped",
  ),
  subject: SubjectStrategy.optional().describe(
    'extract_vertical_clip reframing: center (default; centered 9:16 crop), manual (crop centered on subject_box), auto (faces detected, one steady crop per shot on the dominant one), subject_id (like auto, on the subject named by subject_id), follow (the crop tracks the dominant face smoothly)',
  ),
  subject_id: z
    .string()
    .max(LIMITS.subjectIdMaxChars)
    .optional()
    .describe(
      'extract_vertical_clip: an id from the `subjects` output (subjects v1) of an earlier auto/follow clip of the same parent; implies subject=subject_id',
    ),
  subject_box: SubjectBox.optional().describe('subject=manual: the subject in source pixels (x, y = top-left; w, h), as it appears at t_ref'),
  t_ref: seconds
    .optional()
    .describe(
      'subject=manual: the second of the parent (start <= t_ref <= end; default start) at which subject_box frames the subject. The manual crop is static, so t_ref says which picture the box was read from; it is echoed in the subjects output',
    ),
  subject_x_offset: seconds
    .optional()
    .describe(
      'Reframing strategies other than center: how far right of the crop center the subject sits in the OUTPUT, in output pixels (0 = centered, must be below half the output width). The crop window moves left by this many output pixels (scaled to source pixels) and is clamped to the frame, leaving room for text on the left',
    ),
  description: z
    .string()
    .max(LIMITS.publishDescriptionMaxChars)
    .optional()
    .describe('publish_video: the video description on the host (default: the summary of a summarize parent, else empty)'),
  privacy_status: z
    .enum(['private', 'unlisted', 'public'])
    .optional()
    .describe('publish_video: who can watch the published video (default private: nothing is public until you say so)'),
  thread_id: z.uuid().optional().describe("Optional: a uuid of the caller's own to group jobs (a conversation, a project); kept with the job"),
  clips: z.array(ClipsEntry).min(1).max(LIMITS.clipsPerBatchMax).optional(),
  /** Not in the spec: force the transcript language (ISO 639-1); omitted → detected. */
  language: z
    .string()
    .regex(/^[a-z]{2}$/)
    .optional()
    .describe('transcribe, summarize, find_clips: the spoken language as an ISO 639-1 code (en, de, …) to force; omitted, it is detected'),
});
export type CreateJobRequest = z.infer<typeof CreateJobRequest>;

export const MppDepositInfo = z.object({
  deposit_address: z.string(),
  network: z.string(),
  amount: z.string(),
  currency: z.string(),
});

/** Not in the spec: where a queued job stands (GET /jobs/{id} while it waits for an agent). */
export const JobQueueStanding = z.object({
  /** 1 = the next job of its work kind an agent takes. */
  position: z.number().int().min(1),
  /** Jobs of the same work kind running now. */
  running: z.number().int().min(0),
  /** Live agents that take this work kind (each runs one job of a kind at a time). */
  agents: z.number().int().min(0),
  /** When it should start, or null while no live agent takes its kind. */
  estimated_start_at: z.iso.datetime().nullable(),
  /** Its type's typical attempt time. */
  estimated_processing_seconds: z.number().int().min(0),
  /** Where the figures come from: the service's recent jobs of each type, or the defaults measured on the embedded default. */
  basis: z.enum(['recent jobs', 'defaults']),
});
export type JobQueueStanding = z.infer<typeof JobQueueStanding>;

/** Not in the spec: the time a new job should take, answered at creation before payment (agent-run types). */
export const JobEstimate = z.object({
  /** Processing seconds per minute of media for this type (an upload's length is known once processed). */
  processing_seconds_per_media_minute: z.number().min(0),
  /** The type's typical attempt time. */
  typical_processing_seconds: z.number().int().min(0),
  /** The wait for an agent were the job queued now, or null while no live agent takes its kind. */
  queue_wait_seconds: z.number().int().min(0).nullable(),
  basis: z.enum(['recent jobs', 'defaults']),
});
export type JobEstimate = z.infer<typeof JobEstimate>;

export const CreateJobResponse = z.object({
  job_id: z.uuid(),
  job_type: JobType,
  payment_status: PaymentStatus,
  price_cents: z.number().int(),
  checkout_url: z.url().optional(),
  card_checkout_session_id: z.string().optional(),
  source_job_id: z.uuid().optional(),
  next_endpoint: z.enum(['upload-url', 'process']).optional(),
  mpp: MppDepositInfo.optional(),
  /** Not in the spec: with paid creation (a payment credential and no bearer), the new session that owns the job. */
  session_id: z.uuid().optional(),
  session_token: z.string().optional(),
  /** Not in the spec: how long it should take (agent-run types). */
  estimate: JobEstimate.optional(),
});
export type CreateJobResponse = z.infer<typeof CreateJobResponse>;

export const JobOutput = z.object({
  output_id: z.uuid(),
  job_id: z.uuid(),
  role: z.string(),
  storage_key: z.string().nullable(),
  external_url: z.url().nullable(),
  content_type: z.string().nullable(),
  download_url: z.url(),
  attachment_url: z.url(),
  created_at: z.iso.datetime(),
});
export type JobOutput = z.infer<typeof JobOutput>;

export const JobProgress = z.object({ stage: z.string(), fraction: z.number(), at: z.string() });

/** One clip as the bundle resolved it: its child job and the window that child cuts. */
export const BundleChildSummary = z.object({
  /**
   * 1-based position in the request's `clips` array; child outputs in the bundle's view are suffixed with it (`clip_1`).
   * 0 is an agent product's find_clips step (its outputs keep their own roles: transcript, clips).
   */
  index: z.number().int().nonnegative(),
  job_id: z.uuid(),
  candidate_id: z.string().nullable(),
  start: z.number(),
  end: z.number(),
  title: z.string().nullable(),
});
export type BundleChildSummary = z.infer<typeof BundleChildSummary>;

/** A child as the bundle's Job view shows it (`children`): where it stands, and why it failed. */
export const BundleChildView = BundleChildSummary.extend({
  /** Not in the spec: the child's job type (an agent product has a find_clips child and clip children). */
  job_type: JobType.optional(),
  status: JobStatus,
  payment_status: PaymentStatus,
  error_message: z.string().nullable(),
});
export type BundleChildView = z.infer<typeof BundleChildView>;

export const Job = z.object({
  job_id: z.uuid(),
  session_id: z.uuid().nullable(),
  job_type: JobType,
  status: JobStatus,
  payment_status: PaymentStatus,
  original_filename: z.string(),
  content_type: z.string(),
  file_size: z.number().int().nullable(),
  duration_seconds: z.number().nullable(),
  error_message: z.string().nullable(),
  created_at: z.iso.datetime(),
  completed_at: z.iso.datetime().nullable(),
  updated_at: z.iso.datetime().nullable(),
  source_job_id: z.uuid().nullable(),
  bundle_job_id: z.uuid().nullable(),
  expires_at: z.iso.datetime().nullable(),
  outputs: z.array(JobOutput),
  /** Not in the spec: the newest progress report of the running stage (0..1), or null. */
  progress: JobProgress.nullable(),
  /** Not in the spec: the H.264 encoder a completed cut ran on (h264_nvenc on an agent whose NVENC opened, else libx264). Cut jobs only. */
  encoder: z.enum(['libx264', 'h264_nvenc']).optional(),
  /** Not in the spec: while the job waits for an agent, its place in the queue and estimated start. */
  queue: JobQueueStanding.optional(),
  /** Not in the spec: a bundle's (clips_vertical) clips, one child job each, where each stands (README "Clip bundles"); an agent product's find_clips step (index 0) and clips. Bundles and products only. */
  children: z.array(BundleChildView).optional(),
});
export type Job = z.infer<typeof Job>;

/** Most jobs one page of `GET /jobs` (and MCP list_jobs) returns, and the default. */
export const JOB_LIST_MAX = 100;
export const JOB_LIST_DEFAULT = 20;

/**
 * Not in the spec: the filters and page of `GET /jobs` (query string) and MCP list_jobs (arguments).
 * Every filter narrows the caller's own session's jobs; several filters combine with AND.
 */
export const ListJobsQuery = z.object({
  status: JobStatus.optional().describe('Only jobs in this status'),
  job_type: JobType.optional().describe('Only jobs of this type'),
  source_job_id: z
    .uuid()
    .optional()
    .describe('Only derivatives of this job (extract_clip, extract_vertical_clip, edit_from_transcript, publish_video, bundles)'),
  bundle_job_id: z.uuid().optional().describe('Only the children of this bundle or agent product (its clips, and a product’s find_clips step)'),
  created_after: z.iso.datetime({ offset: true }).optional().describe('Only jobs created at or after this instant (ISO 8601)'),
  created_before: z.iso.datetime({ offset: true }).optional().describe('Only jobs created before this instant (ISO 8601)'),
  limit: z.coerce.number().int().min(1).max(JOB_LIST_MAX).optional().describe(`Jobs per page, 1-${JOB_LIST_MAX} (default ${JOB_LIST_DEFAULT})`),
  cursor: z.string().max(200).optional().describe('The next_cursor of the previous page, with the same filters; absent for the first (newest) page'),
});
export type ListJobsQuery = z.infer<typeof ListJobsQuery>;

/** A job in a list: the Job resource without its outputs, progress, queue place and children (GET /jobs/{id} has them, with fresh download URLs). */
export const JobSummary = Job.omit({ outputs: true, progress: true, encoder: true, queue: true, children: true });
export type JobSummary = z.infer<typeof JobSummary>;

/** Not in the spec: one page of the session's jobs, newest first. */
export const JobList = z.object({
  jobs: z.array(JobSummary),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
});
export type JobList = z.infer<typeof JobList>;

export const Session = z.object({
  session_id: z.uuid(),
  status: SessionStatus,
  card_checkout_session_id: z.string().nullable(),
  amount_paid_cents: z.number().int().nullable(),
  expires_at: z.iso.datetime(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Session = z.infer<typeof Session>;

export const CreateSessionResponse = z.object({
  session_id: z.uuid(),
  session_token: z.string(),
  expires_at: z.iso.datetime(),
});

/** One line of an edit that cannot be applied (edit_from_transcript), as the 400 body lists it. */
export const EditProblem = z.object({
  line: z.number().int().positive().describe('1-based line number in the submitted edit'),
  text: z.string().describe('the line as submitted'),
  reason: z.string(),
});

/**
 * The spec's error body. `problems` is this service's extension, present only on the 400 that
 * refuses an invalid edit_from_transcript edit: every failing line, not just the first.
 */
export const ErrorResponse = z.object({
  error: z.string(),
  problems: z.array(EditProblem).optional().describe('edit_from_transcript only: every line of the edit that cannot be applied, and why'),
});
export const CheckoutResponse = z.object({ checkout_url: z.url(), card_checkout_session_id: z.string() });
export const ProcessingResponse = z.object({ job_id: z.uuid(), status: z.literal('processing') });
export const UploadUrlResponse = z.object({ job_id: z.uuid(), upload_url: z.url() });
export const DownloadUrlResponse = z.object({ download_url: z.url(), output_id: z.uuid().optional() });
export const DeletedResponse = z.object({ deleted: z.literal(true) });
