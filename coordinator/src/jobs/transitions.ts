import { ACTIVE_STATUSES, type JobStatus } from '@cutroom/shared/job-types';

export { ACTIVE_STATUSES };

/**
 * The job state machine: every allowed status change, and the only place that lists them.
 * A move back to a job type's first stage (its stages[0], e.g. transcribing → extracting_audio, or
 * the self-edge extracting_audio → extracting_audio) is a requeue after a lost attempt; every
 * registered job type's path is checked against this table by job-types/registry.test.ts.
 *
 *   pending ─paid→ uploading ─complete-upload→ extracting_audio ⇄ transcribing → analyzing → completed
 *   pending ─process (paid)→ analyzing ⇄ analyzing (requeue) → completed        (no-upload derivatives)
 *   uploading ─complete-upload→ analyzing → completed | failed                (agent products: their children run)
 *   pending ─process (paid)→ publishing → completed | failed                   (publish_video: the coordinator's publish worker)
 *   any active status ─fail→ failed;  completed|failed ─retention/DELETE→ deleted
 *   failed ─operator retry→ the type's first stage
 */
export const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  pending: ['uploading', 'extracting_audio', 'analyzing', 'publishing', 'failed', 'deleted'],
  uploading: ['extracting_audio', 'analyzing', 'failed', 'deleted'],
  extracting_audio: ['extracting_audio', 'transcribing', 'failed'],
  transcribing: ['extracting_audio', 'analyzing', 'completed', 'failed'],
  analyzing: ['extracting_audio', 'analyzing', 'completed', 'failed'],
  publishing: ['completed', 'failed'],
  completed: ['deleted'],
  // An operator's retry (operators/job-control.ts): back to the type's first stage.
  failed: ['extracting_audio', 'analyzing', 'deleted'],
  deleted: [],
};

export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed', 'deleted'];

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export const isActive = (s: JobStatus): boolean => (ACTIVE_STATUSES as readonly JobStatus[]).includes(s);
export const isTerminal = (s: JobStatus): boolean => TERMINAL_STATUSES.includes(s);
