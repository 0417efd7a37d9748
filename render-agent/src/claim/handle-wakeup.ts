import type { JsMsg } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { cancelSubject, PROTOCOL_VERSION, WorkWakeup, type AgentControl, type Assignment, type Fence } from '@cutroom/proto';
import type { HostFacts } from '../capabilities/requirements.ts';
import type { WhisperRuntime } from '../capabilities/whisper-runtime.ts';
import type { Clock } from '../clock.ts';
import type { AgentConfig } from '../config.ts';
import type { CoordinatorClient } from '../coordinator-client.ts';
import { AttemptAbortedError, CoordinatorError } from '../errors.ts';
import { startLeaseKeeper } from '../lease/lease-keeper.ts';
import type { Logger } from '../logger.ts';
import type { AttemptOutcome, PipelineRegistry } from '../pipelines/pipeline.ts';
import { pipelineFor } from '../pipelines/registry.ts';
import { createProgressPublisher } from '../progress/progress-publisher.ts';

export interface WakeupDeps {
  config: AgentConfig;
  client: CoordinatorClient;
  whisper: WhisperRuntime;
  /** What this host's probes found (the H.264 encoder to use: NVENC when a session opened). */
  host: HostFacts;
  /** Where a claimed assignment's job type finds its runner. */
  pipelines: PipelineRegistry;
  nc: Pick<NatsConnection, 'subscribe' | 'publish'>;
  logger: Logger;
  clock: Clock;
  /** Fires when the agent stops: aborts the claim and the running attempt. */
  stopSignal: AbortSignal;
  /** Told what operators set when a claim is refused because of it (drained). */
  onControl?: (control: AgentControl) => void;
}

/** How long a wake-up waits before redelivery when the coordinator could not be asked. */
const CLAIM_RETRY_DELAY_MS = 5_000;

/** One JetStream wake-up: parse → claim → (if ours) run the attempt under a lease → ack. */
export async function handleWakeup(msg: JsMsg, deps: WakeupDeps): Promise<AttemptOutcome | 'not_claimed' | 'malformed'> {
  const parsed = WorkWakeup.safeParse(safeJson(msg));
  if (!parsed.success) {
    // Redelivering a message we cannot read would only loop; term removes it for good. No
    // reason argument: nats-server 2.9 does not parse `+TERM <reason>`, ignores the ack and
    // redelivers the message forever (checked against Debian's 2.9.10).
    deps.logger.error({ subject: msg.subject, seq: msg.seq, issues: parsed.error.issues.slice(0, 3) }, 'malformed wake-up, terminated');
    msg.term();
    return 'malformed';
  }
  const { job_id } = parsed.data;
  let claim: Awaited<ReturnType<WakeupDeps['client']['claim']>>;
  try {
    claim = await deps.client.claim({ v: PROTOCOL_VERSION, job_id, agent_id: deps.config.agentId }, deps.stopSignal);
  } catch (err) {
    if (err instanceof CoordinatorError) {
      deps.logger.warn({ job_id, err: err.message }, 'claim refused; dropping the wake-up');
      msg.ack();
    } else {
      // Coordinator unreachable (or we are stopping): let another agent, or us later, retry.
      deps.logger.warn({ job_id, err: (err as Error).message }, 'claim failed; wake-up will be redelivered');
      msg.nak(CLAIM_RETRY_DELAY_MS);
    }
    return 'not_claimed';
  }
  if (!claim.claimed) {
    if (claim.control) deps.onControl?.(claim.control);
    if (claim.retry_after_ms !== undefined) {
      // This agent already failed the job and another one can take it. Acking would consume the
      // job's only wake-up; a nak puts it back for redelivery after the coordinator's delay.
      deps.logger.debug({ job_id, reason: claim.reason, retry_after_ms: claim.retry_after_ms }, 'not claimed; leaving the wake-up to another agent');
      msg.nak(claim.retry_after_ms);
    } else {
      deps.logger.debug({ job_id, reason: claim.reason }, 'not claimed');
      msg.ack();
    }
    return 'not_claimed';
  }
  try {
    return await runAttempt(claim.assignment, msg, deps);
  } finally {
    // Whatever happened, this wake-up is spent: a retry gets a fresh one from the sweeper.
    msg.ack();
  }
}

/** Runs a claimed assignment through its job type's pipeline, under a lease and a progress publisher. */
async function runAttempt(a: Assignment, msg: JsMsg, deps: WakeupDeps): Promise<AttemptOutcome> {
  const fence: Fence = { v: PROTOCOL_VERSION, job_id: a.job_id, attempt_id: a.attempt_id, agent_id: deps.config.agentId };
  const logger = deps.logger.child({ job_id: a.job_id, attempt_id: a.attempt_id });
  const attempt = new AbortController();
  const onStop = () => attempt.abort(new AttemptAbortedError('shutdown', 'the agent is shutting down; the job is retried after its lease'));
  deps.stopSignal.addEventListener('abort', onStop, { once: true });
  if (deps.stopSignal.aborted) onStop();

  const keeper = startLeaseKeeper({
    leaseMs: a.lease_ms,
    heartbeat: () => deps.client.heartbeat(fence),
    working: () => msg.working(),
    subscribeCancel: (onCancel) => {
      const sub = deps.nc.subscribe(cancelSubject(deps.config.agentId, a.attempt_id), { callback: () => onCancel() });
      return () => sub.unsubscribe();
    },
    abort: (reason) => attempt.abort(reason),
    clock: deps.clock,
    logger,
  });
  const progress = createProgressPublisher({ fence, publish: (subject, payload) => deps.nc.publish(subject, payload), clock: deps.clock, logger });
  logger.info({ job_type: a.job_type, lease_ms: a.lease_ms, params: a.params }, 'attempt claimed');
  try {
    const ctx = { config: deps.config, whisper: deps.whisper, host: deps.host, client: deps.client, fence, progress, logger, clock: deps.clock };
    return await pipelineFor(deps.pipelines, a.job_type).run(a, attempt.signal, ctx);
  } finally {
    keeper.stop();
    deps.stopSignal.removeEventListener('abort', onStop);
  }
}

function safeJson(msg: JsMsg): unknown {
  try {
    return msg.json();
  } catch {
    return undefined;
  }
}
