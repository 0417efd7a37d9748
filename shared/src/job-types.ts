import { z } from 'zod';

/** Every job type the spec's CreateJobRequest accepts. Enum members are only ever added. */
export const JobType = z.enum([
  'transcribe',
  'summarize',
  'find_clips',
  'extract_clip',
  'extract_vertical_clip',
  'publish_video',
  'clips_vertical',
]);
export type JobType = z.infer<typeof JobType>;

/** Jobs whose input is an upload (next_endpoint `upload-url`). */
export const UPLOAD_JOB_TYPES: ReadonlySet<JobType> = new Set(['transcribe', 'summarize', 'find_clips']);

/** Jobs that cut from a parent's stored source (next_endpoint `process`). */
export const DERIVATIVE_JOB_TYPES: ReadonlySet<JobType> = new Set(['extract_clip', 'extract_vertical_clip']);

/**
 * Job types this build processes end to end. Creating any other type is refused with a 400 that
 * names it, until its issue lands: better an honest refusal than a job that can never finish.
 */
export const IMPLEMENTED_JOB_TYPES: ReadonlySet<JobType> = new Set(['transcribe']);

export const isUploadJobType = (t: JobType): boolean => UPLOAD_JOB_TYPES.has(t);

/** Job status values exactly as the spec lists them. `processing` is never stored. */
export const JobStatus = z.enum([
  'pending',
  'uploading',
  'extracting_audio',
  'transcribing',
  'analyzing',
  'publishing',
  'completed',
  'failed',
  'deleted',
]);
export type JobStatus = z.infer<typeof JobStatus>;

export const PaymentStatus = z.enum(['pending', 'paid', 'refunded', 'paid_by_parent']);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

export const SessionStatus = z.enum(['created', 'paid', 'uploading', 'processing', 'completed', 'expired']);
export type SessionStatus = z.infer<typeof SessionStatus>;
