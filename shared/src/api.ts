import { z } from 'zod';
import { JobStatus, JobType, PaymentStatus, SessionStatus } from './job-types.ts';
import { LIMITS } from './limits.ts';
import { VerticalProfile } from './clips/profiles.ts';
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
  job_type: JobType,
  filename: z.string().min(1).max(LIMITS.filenameMaxChars).optional(),
  content_type: z.string().min(1).max(255).optional(),
  query: z.string().min(1).max(LIMITS.queryMaxChars).optional(),
  source_job_id: z.uuid().optional(),
  segments: z.array(ExtractClipSegment).min(LIMITS.segmentsMin).max(LIMITS.segmentsMax).optional(),
  include_transcript: z.boolean().optional(),
  title: z.string().max(LIMITS.titleMaxChars).optional(),
  start: seconds.optional(),
  end: seconds.optional(),
  profile: VerticalProfile.optional(),
  subject: SubjectStrategy.optional(),
  subject_id: z.string().max(LIMITS.subjectIdMaxChars).optional(),
  subject_box: SubjectBox.optional(),
  t_ref: seconds.optional(),
  subject_x_offset: seconds.optional(),
  thread_id: z.uuid().optional(),
  clips: z.array(ClipsEntry).min(1).max(LIMITS.clipsPerBatchMax).optional(),
  /** Not in the spec: force the transcript language (ISO 639-1); omitted → detected. */
  language: z
    .string()
    .regex(/^[a-z]{2}$/)
    .optional(),
});
export type CreateJobRequest = z.infer<typeof CreateJobRequest>;

export const MppDepositInfo = z.object({
  deposit_address: z.string(),
  network: z.string(),
  amount: z.string(),
  currency: z.string(),
});

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
});
export type Job = z.infer<typeof Job>;

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

export const ErrorResponse = z.object({ error: z.string() });
export const CheckoutResponse = z.object({ checkout_url: z.url(), card_checkout_session_id: z.string() });
export const ProcessingResponse = z.object({ job_id: z.uuid(), status: z.literal('processing') });
export const UploadUrlResponse = z.object({ job_id: z.uuid(), upload_url: z.url() });
export const DownloadUrlResponse = z.object({ download_url: z.url(), output_id: z.uuid().optional() });
export const DeletedResponse = z.object({ deleted: z.literal(true) });
