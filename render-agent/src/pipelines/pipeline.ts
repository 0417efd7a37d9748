import type { Assignment, Fence, WorkKind } from '@cutroom/proto';
import type { JobContractOf } from '@cutroom/shared/contracts/index';
import type { HostFacts } from '../capabilities/requirements.ts';
import type { WhisperRuntime } from '../capabilities/whisper-runtime.ts';
import type { Clock } from '../clock.ts';
import type { AgentConfig } from '../config.ts';
import type { CoordinatorClient } from '../coordinator-client.ts';
import type { Logger } from '../logger.ts';
import type { ProgressPublisher } from '../progress/progress-publisher.ts';
import type { OutputWrites } from './output-writes.ts';

/** The job types a claim can hand this agent: one per proto Assignment variant. */
export type AssignedJobType = Assignment['job_type'];

/** Assignment variants by job type (a map, so the registry can pair each type with its own variant). */
type AssignmentMap = { [A in Assignment as A['job_type']]: A };
export type AssignmentFor<T extends AssignedJobType> = AssignmentMap[T];

/**
 * How the attempt ended, from this agent's point of view. `unreported`: its result (complete or
 * fail) was never taken by the coordinator, which requeues the job once the lease runs out.
 */
export type AttemptOutcome = 'completed' | 'failed' | 'aborted' | 'unreported';

/** What every runner gets, set up by the claim handler for one attempt. */
export interface PipelineContext {
  config: AgentConfig;
  /** Whisper device and compute type after resolving `auto`. */
  whisper: WhisperRuntime;
  /** What the start-up probes found: `host.nvenc` picks h264_nvenc over libx264 for cuts. */
  host: HostFacts;
  client: Pick<CoordinatorClient, 'stage' | 'complete' | 'fail' | 'heartbeat'>;
  /** This attempt's fence, for every fenced call. */
  fence: Fence;
  progress: ProgressPublisher;
  /** Already a child carrying job_id, attempt_id and agent_id. */
  logger: Logger;
  clock: Clock;
}

/** Whether this host can run a pipeline: every line is one missing thing; empty means it can. */
export interface PipelineNeeds {
  /** The work kind whose wake-ups lead to this job type's claims. */
  kind: WorkKind;
  missing(host: HostFacts, config: AgentConfig): string[];
}

/**
 * One job type on the agent: where its work comes from, what it needs, what it writes and how it
 * runs. Its kind and its outputs are its contract's (shared/src/contracts/<type>.ts): another kind,
 * a missing output or an extra one does not type-check.
 */
export interface Pipeline<T extends AssignedJobType> extends PipelineNeeds {
  kind: JobContractOf<T>['workKind'];
  /** Every output its contract declares, and whether it is streamed from a file or built in memory. */
  writes: OutputWrites<T>;
  /**
   * Runs one attempt to its terminal report (complete or fail), or stops quietly when `signal`
   * aborts (cancel, stale attempt, shutdown). Resolves with how it ended; never reports twice.
   */
  run(assignment: AssignmentFor<T>, signal: AbortSignal, ctx: PipelineContext): Promise<AttemptOutcome>;
}

/** Every job type an Assignment can carry must have its pipeline: a missing entry does not type-check. */
export type PipelineRegistry = { readonly [T in AssignedJobType]: Pipeline<T> };
