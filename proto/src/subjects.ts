import { WORK_KINDS, type WorkKindName } from '@cutroom/shared/contracts/work-kinds';

/**
 * NATS names, versioned in the subject so a v2 agent and a v1 agent never read each other's
 * messages. JetStream carries wake-ups only: Postgres decides who runs what.
 */
export const PROTOCOL_VERSION = 1 as const;

/** Work-queue stream holding one wake-up per queued job attempt. */
export const WORK_STREAM = 'CUTROOM_WORK_V1';
export const WORK_SUBJECT_PREFIX = 'cutroom.work.v1';

/**
 * Kinds of work an agent can announce it serves, one JetStream consumer per kind: declared in
 * shared (each job type's contract names its kind), re-exported here with the subjects they name.
 */
export { WORK_KINDS };

export const workSubject = (kind: WorkKindName): string => `${WORK_SUBJECT_PREFIX}.${kind}`;
export const workConsumerName = (kind: WorkKindName): string => `work-${kind}-v1`;

/**
 * An agent's name as one subject token. Enrolled names match `[A-Za-z0-9][A-Za-z0-9._-]*`; a dot
 * would split the token (and `cutroom.progress.v2.a.>`, agent `a`'s permission, would then cover
 * agent `a.b`'s subjects), so dots become `~`, which no name contains: the mapping is one-to-one.
 */
export function agentSubjectToken(agentId: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(agentId)) throw new Error(`agent id ${JSON.stringify(agentId)} cannot name NATS subjects`);
  return agentId.replaceAll('.', '~');
}

/**
 * Core NATS (not JetStream): progress is lossy by design, newest wins. v2: the subject names the
 * agent, and an agent's NATS credential may publish only under its own name (docs/adr/0009).
 */
export const PROGRESS_SUBJECT_PREFIX = 'cutroom.progress.v2';
export const progressSubject = (agentId: string, jobId: string): string => `${PROGRESS_SUBJECT_PREFIX}.${agentSubjectToken(agentId)}.${jobId}`;
export const PROGRESS_SUBJECT_WILDCARD = `${PROGRESS_SUBJECT_PREFIX}.*.*`;
/** The agent token of a progress subject (the second-to-last token), or null when it is not one. */
export function progressSubjectAgentToken(subject: string): string | null {
  const parts = subject.split('.');
  return parts.length === 5 && subject.startsWith(`${PROGRESS_SUBJECT_PREFIX}.`) ? (parts[3] ?? null) : null;
}

/**
 * Coordinator → agent: stop this attempt now (job cancelled, deleted or lease lost). v2: addressed
 * to the attempt's agent, which may subscribe only under its own name; only the coordinator may
 * publish here.
 */
export const CONTROL_SUBJECT_PREFIX = 'cutroom.control.v2';
export const cancelSubject = (agentId: string, attemptId: string): string => `${CONTROL_SUBJECT_PREFIX}.cancel.${agentSubjectToken(agentId)}.${attemptId}`;

/** Where an agent's request replies arrive (JetStream pulls, API calls): its own, so no agent reads another's. */
export const agentInboxPrefix = (agentId: string): string => `_INBOX_${agentSubjectToken(agentId)}`;
