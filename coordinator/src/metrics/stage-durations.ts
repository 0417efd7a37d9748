import { ACTIVE_STATUSES, type JobStatus } from '@cutroom/shared/job-types';

/** One job_events row, as stageSeconds reads it. */
export interface StageEvent {
  toStatus: JobStatus;
  reason: string;
  createdAt: Date;
}

/** `queued` (waiting for an agent) or the active status an agent ran the job in. */
export type StageLabel = 'queued' | (typeof ACTIVE_STATUSES)[number];

const isActive = (s: JobStatus): s is (typeof ACTIVE_STATUSES)[number] => (ACTIVE_STATUSES as readonly string[]).includes(s);

/** agents/claim.ts writes `claimed by <agent>`; agents/attempts.ts reportStage writes `stage`. */
const isAgentEvent = (e: StageEvent) => e.reason.startsWith('claimed by ') || e.reason === 'stage';

/**
 * Seconds a job spent in each stage, from its job_events in id order. After an event, the job is
 * in the event's status; in an active status it is running when the event was the agent's (its
 * claim, or a stage it reported) and queued otherwise (complete-upload, /process, a requeue after
 * a lost lease or a retryable failure). Time outside active statuses (pending, uploading) is the
 * caller's and is not counted. A stage visited twice (a requeue) counts once, summed.
 */
export function stageSeconds(events: readonly StageEvent[]): Map<StageLabel, number> {
  const out = new Map<StageLabel, number>();
  for (let i = 0; i + 1 < events.length; i++) {
    const e = events[i]!;
    if (!isActive(e.toStatus)) continue;
    const label: StageLabel = isAgentEvent(e) ? e.toStatus : 'queued';
    const seconds = Math.max(0, (events[i + 1]!.createdAt.getTime() - e.createdAt.getTime()) / 1000);
    out.set(label, (out.get(label) ?? 0) + seconds);
  }
  return out;
}
