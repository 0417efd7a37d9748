import type { AgentControl, WorkKind } from '@cutroom/proto';
import { type RoutingTags, missingTags, requiredTags } from '../operators/routing-tags.ts';
import { retryDelayMs } from './retry-delay.ts';

/** How long a refused agent leaves a wake-up before it comes back (to it or another agent). */
export const REFUSED_RETRY_MS = 5_000;
/** A draining agent hands its wake-ups back quickly: another agent should take them now. */
export const DRAINING_RETRY_MS = 1_000;
/** How long an agent that failed a job leaves its wake-up for the others before asking again. */
export const RETRY_ELSEWHERE_MS = 5_000;

/** An agent as the claim sees it. */
export interface AgentFacts {
  id: string;
  state: 'active' | 'draining' | 'retired';
  kinds: readonly string[];
  tags: readonly string[];
  /** Seen within AGENT_LIVE_MS. */
  live: boolean;
  /** Its failed attempts of this job's type since an operator last cleared the pair (the blocklist's count). */
  typeFailures: number;
  rotateRequested: boolean;
}

/**
 * Everything the claim decision reads, loaded in two queries (eligibility.ts): the job, its
 * attempts' verdicts, the claiming agent and its live peers. Null `agent`: an in-process caller
 * with no enrolled row (engine tests); the agent routes only let enrolled agents in.
 */
export interface EligibilitySnapshot {
  /** Null: no such job, or one no agent runs (bundles, products, coordinator-run types). */
  job: { type: string; kind: WorkKind; attemptCount: number; lastFailureEndedAt: Date | null } | null;
  agent: AgentFacts | null;
  /** Agents whose attempt at this job failed (or lost its lease) through a fault of theirs. */
  failedBy: readonly string[];
  /** Live, active agents other than the claiming one. */
  peers: readonly AgentFacts[];
}

export interface ClaimPolicy {
  routing: RoutingTags;
  /** BLOCKLIST_FAILURES (0: no blocklist). */
  blocklistFailures: number;
  RETRY_BACKOFF_MS: number;
  RETRY_BACKOFF_MAX_MS: number;
  now: Date;
}

export type ClaimDecision =
  | { claim: true /** Blocked for the type, but no unblocked agent can take the job: it yields (logged). */; blockedButAlone: boolean }
  | { claim: false; reason: string; retry_after_ms?: number; control?: AgentControl };

const refuse = (reason: string, retry_after_ms?: number, control?: AgentControl): ClaimDecision => ({
  claim: false,
  reason,
  ...(retry_after_ms !== undefined && { retry_after_ms }),
  ...(control && { control }),
});

/**
 * The claim policy: one rule per line, in order; the first that refuses decides (Flamenco's
 * eligibility, with its blocklist and "leave it to another worker" rule). Pure: unit-tested without
 * a database (claim-rules.test.ts); the conditional UPDATE in agents/claim.ts still decides races.
 */
export function decideClaim(s: EligibilitySnapshot, p: ClaimPolicy): ClaimDecision {
  const { job, agent } = s;
  // 1. Only a queued job of an agent-run type is claimable (the UPDATE checks queued-ness again).
  if (!job) return refuse('job is not waiting for an agent');
  const required = requiredTags(p.routing, job.kind, job.type);
  // 2. An agent with no enrolled row (in-process callers) is held to what can be checked: tags.
  if (!agent) return required.length ? refuse(`${job.type} needs an agent tagged ${required.join(', ')}`, REFUSED_RETRY_MS) : claim(false);
  // 3. Draining: hand the wake-up back at once and say so (the agent pauses its pulls).
  if (agent.state === 'draining') return refuse('this agent is draining', DRAINING_RETRY_MS, { state: 'draining', rotate_credential: agent.rotateRequested });
  // 4. Retired agents take nothing (their credentials are revoked; this covers a racing call).
  if (agent.state === 'retired') return refuse('this agent is retired', DRAINING_RETRY_MS);
  // 5. It must announce the job's work kind.
  if (!agent.kinds.includes(job.kind)) return refuse(`this agent did not announce work kind ${job.kind}`, REFUSED_RETRY_MS);
  // 6. It must carry the tags ROUTING_TAGS asks of the kind and the type.
  const missing = missingTags(required, agent.tags);
  if (missing.length) return refuse(`${job.type} needs an agent tagged ${missing.join(', ')}`, REFUSED_RETRY_MS);
  // 7. Blocked for the type: refused while an unblocked agent could take the job; with none it yields (a paid job must not wait on an operator).
  const blocked = isBlocked(agent, p);
  if (blocked && anotherCouldTake(s, p, required, []))
    return refuse(`this agent is blocked for ${job.type} after repeated failures (an operator can clear it)`, REFUSED_RETRY_MS);
  // 8. After a failed attempt the job waits out its back-off; the wake-up comes back when it ends.
  const wait = backoffLeftMs(job, p);
  if (wait > 0) return refuse('the job retries after a back-off', wait);
  // 9. An agent that failed this job leaves it to a live peer that has not failed it.
  if (s.failedBy.includes(agent.id) && anotherCouldTake(s, p, required, s.failedBy))
    return refuse('this agent already failed this job; another agent can take it', RETRY_ELSEWHERE_MS);
  // 10. Otherwise it may claim.
  return claim(blocked);
}

const claim = (blockedButAlone: boolean): ClaimDecision => ({ claim: true, blockedButAlone });

const isBlocked = (a: AgentFacts, p: ClaimPolicy) => p.blocklistFailures > 0 && a.typeFailures >= p.blocklistFailures;

/** A live, active peer that announces the kind, carries the tags, is not blocked for the type and is not among `excluding`. */
function anotherCouldTake(s: EligibilitySnapshot, p: ClaimPolicy, required: readonly string[], excluding: readonly string[]): boolean {
  const kind = s.job!.kind;
  return s.peers.some(
    (o) =>
      o.id !== s.agent?.id &&
      o.live &&
      o.state === 'active' &&
      o.kinds.includes(kind) &&
      missingTags(required, o.tags).length === 0 &&
      !isBlocked(o, p) &&
      !excluding.includes(o.id),
  );
}

function backoffLeftMs(job: NonNullable<EligibilitySnapshot['job']>, p: ClaimPolicy): number {
  const delay = retryDelayMs(job.attemptCount, p);
  if (delay === 0 || !job.lastFailureEndedAt) return 0;
  return Math.max(0, job.lastFailureEndedAt.getTime() + delay - p.now.getTime());
}
