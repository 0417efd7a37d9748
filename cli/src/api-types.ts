/** The REST shapes the CLI reads (service-spec "Resources and their fields"); only the fields it uses. */

export type JobStatus = 'pending' | 'uploading' | 'extracting_audio' | 'transcribing' | 'analyzing' | 'publishing' | 'completed' | 'failed' | 'deleted';
export type PaymentStatus = 'pending' | 'paid' | 'refunded' | 'paid_by_parent';

export interface JobOutput {
  output_id: string;
  role: string;
  content_type: string | null;
  download_url: string;
  external_url: string | null;
}

export interface Job {
  job_id: string;
  job_type: string;
  status: JobStatus;
  payment_status: PaymentStatus;
  original_filename: string;
  content_type: string;
  file_size: number | null;
  duration_seconds: number | null;
  error_message: string | null;
  created_at: string;
  completed_at: string | null;
  source_job_id: string | null;
  expires_at: string | null;
  outputs?: JobOutput[];
  progress?: { stage: string; fraction: number; at: string } | null;
  /** While the job waits for an agent: its place in its work kind's queue and estimated start. */
  queue?: { position: number; running: number; agents: number; estimated_start_at: string | null; estimated_processing_seconds: number };
}

/** A job as the job list shows it (GET /jobs): the Job without outputs, progress and queue. */
export type JobSummary = Omit<Job, 'outputs' | 'progress' | 'queue'> & { bundle_job_id: string | null };

/** One page of GET /jobs. */
export interface JobList {
  jobs: JobSummary[];
  next_cursor: string | null;
}

export interface CreateJobResponse {
  job_id: string;
  job_type: string;
  payment_status: PaymentStatus;
  price_cents: number;
  checkout_url?: string;
  next_endpoint?: 'upload-url' | 'process';
}

export const TERMINAL: readonly JobStatus[] = ['completed', 'failed', 'deleted'];
/** Statuses of a job the service is working on (queued or running). */
export const ACTIVE: readonly JobStatus[] = ['extracting_audio', 'transcribing', 'analyzing', 'publishing'];
