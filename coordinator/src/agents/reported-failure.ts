import { type CallerRequest, type FailureDetail, reportedFailureMessage } from '@cutroom/shared/failure-details';
import { AgentFailureCode, failureMessage, type FailureCode } from '@cutroom/shared/failures';
import type { JobRow } from '../db/schema.ts';

/**
 * The caller's own words a failure detail may repeat, from the job as the coordinator stored it
 * (job-types/extract-clip.ts and edit-from-transcript.ts keep `segments` with their labels,
 * extract-vertical-clip.ts keeps `subject_id`). Anything else in params is not read.
 */
export function callerRequestOf(job: Pick<JobRow, 'params'>): CallerRequest {
  const { subject_id: subjectId, segments } = job.params;
  return {
    ...(typeof subjectId === 'string' && { subject_id: subjectId }),
    ...(Array.isArray(segments) && {
      segment_labels: segments.map((s: unknown) => {
        const label = (s as { label?: unknown } | null)?.label;
        return typeof label === 'string' ? label : null;
      }),
    }),
  };
}

/**
 * The job's error_message for a failure that ends it. An agent's code is rendered from its detail
 * (shared/src/failure-details.ts), so the agent's `message` is not an input here: it stays on the
 * attempt row and in the logs. A code the coordinator decided (output_invalid …) shows its own text
 * the way failureMessage does.
 */
export function callerFailureMessage(job: Pick<JobRow, 'params'>, code: FailureCode, message: string, detail: FailureDetail | undefined): string {
  const agentCode = AgentFailureCode.safeParse(code);
  return agentCode.success ? reportedFailureMessage(agentCode.data, detail, callerRequestOf(job)) : failureMessage(code, message);
}
