import fs from 'node:fs/promises';
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import type { AgentCapabilities, WorkKind } from '@cutroom/proto';
import { detectCapabilities, type DetectedCapabilities } from './capabilities/detect-capabilities.ts';
import { handleWakeup } from './claim/handle-wakeup.ts';
import { systemClock, type Clock } from './clock.ts';
import type { AgentConfig } from './config.ts';
import { createCoordinatorClient } from './coordinator-client.ts';
import { AttemptAbortedError } from './errors.ts';
import { createLogger, type Logger } from './logger.ts';
import { PIPELINES } from './pipelines/registry.ts';
import { getWorkConsumer } from './work-consumers.ts';

export interface StartAgentOptions {
  /** @default a pino logger at config.logLevel */
  logger?: Logger;
  /** Time for lease renewal, progress stamps, retry back-off and durations. @default systemClock */
  clock?: Clock;
}

export interface AgentHandle {
  capabilities: AgentCapabilities;
  /** Resolves once registered and bound to the work consumers (pulling has begun). */
  ready: Promise<void>;
  /** Settles when the pull loop ends: resolves after stop(), rejects if it crashed. */
  done: Promise<void>;
  /** Stops pulling, aborts the current attempt (retried elsewhere after its lease), closes NATS. */
  stop(): Promise<void>;
}

/**
 * How often an agent re-announces itself. The coordinator counts an agent seen within 90 s as
 * live, and keeps a job from an agent that failed it only while another live agent can take it.
 */
export const PRESENCE_INTERVAL_MS = 30_000;

/** How long one pull waits for a wake-up before asking again. */
const PULL_EXPIRES_MS = 5_000;
/**
 * With several kinds the agent pulls them in turn (one filter subject per consumer: nats-server
 * 2.9), so a wake-up of one kind waits while another kind's pull is open: a short pull bounds that
 * wait at about a second (a 5 s pull made a cut wait up to 5 s behind an idle transcribe pull).
 */
const MULTI_KIND_PULL_EXPIRES_MS = 1_000;
export const pullExpiresMs = (kinds: number): number => (kinds > 1 ? MULTI_KIND_PULL_EXPIRES_MS : PULL_EXPIRES_MS);

/**
 * Connects, announces what this host can do, then pulls wake-ups and runs one job at a time.
 * Throws if NATS is unreachable or the host can serve no work kind; waits (logging) for the
 * coordinator and its consumers otherwise.
 */
export async function startAgent(config: AgentConfig, options: StartAgentOptions = {}): Promise<AgentHandle> {
  const logger = options.logger ?? createLogger(config.logLevel, config.agentId);
  const clock = options.clock ?? systemClock;
  await fs.mkdir(config.workDir, { recursive: true });
  const detected = await detectCapabilities(config, logger, PIPELINES);
  const kinds = detected.capabilities.work_kinds;
  if (kinds.length === 0) throw new Error(`this host can serve no work kind: ${describeMissing(detected.missing)}`);

  const nc = await connect({ servers: config.natsUrl.split(','), name: `render-agent ${config.agentId}`, maxReconnectAttempts: -1 });
  const client = createCoordinatorClient({
    baseUrl: config.coordinatorUrl,
    token: config.agentToken,
    resultRetryMaxMs: config.resultRetryMaxMs,
    logger,
    clock,
  });
  const stopController = new AbortController();
  const stopSignal = stopController.signal;
  const deps = { config, client, whisper: detected.whisper, host: detected.host, pipelines: PIPELINES, nc, logger, clock, stopSignal };

  let presence: ReturnType<Clock['setInterval']> | undefined;
  const ready = (async () => {
    await client.register(detected.capabilities, stopSignal);
    logger.info({ coordinator: config.coordinatorUrl, kinds }, 'registered');
    presence = clock.setInterval(() => {
      client.announce(detected.capabilities, stopSignal).catch((err: unknown) => {
        if (!stopSignal.aborted) logger.warn({ err: (err as Error).message }, 'presence announcement failed; retrying at the next tick');
      });
    }, PRESENCE_INTERVAL_MS);
    const consumers = await Promise.all(kinds.map((k) => getWorkConsumer(nc, k, stopSignal, logger, clock).then((c) => [k, c] as const)));
    return new Map<WorkKind, Consumer>(consumers);
  })();

  const loop = (async () => {
    const consumers = await ready;
    logger.info('pulling work');
    while (!stopSignal.aborted) {
      for (const [kind, consumer] of consumers) {
        if (stopSignal.aborted) break;
        let msg: JsMsg | null;
        try {
          msg = await pullOrStop(consumer, stopSignal, pullExpiresMs(consumers.size));
        } catch (err) {
          if (stopSignal.aborted) break;
          // The consumer may have been deleted and recreated by a restarting coordinator.
          logger.warn({ kind, err: (err as Error).message }, 'pull failed; rebinding to the work consumer');
          await clock.sleep(1_000, stopSignal).catch(() => undefined);
          if (!stopSignal.aborted) consumers.set(kind, await getWorkConsumer(nc, kind, stopSignal, logger, clock));
          continue;
        }
        if (!msg) continue;
        try {
          // One job at a time: the next pull waits for this one to end.
          await handleWakeup(msg, deps);
        } catch (err) {
          logger.error({ kind, err: (err as Error).message }, 'handling a wake-up failed');
        }
      }
    }
  })();
  // Stopping before the coordinator answered rejects `ready` with the stop reason: not a crash.
  const done = loop
    .finally(() => presence && clock.clearInterval(presence))
    .catch((err: unknown) => {
      if (stopSignal.aborted) return;
      logger.fatal({ err: (err as Error).message }, 'agent loop crashed');
      throw err;
    });
  const readyPublic = ready.then(() => undefined);
  readyPublic.catch(() => undefined);
  done.catch(() => undefined);

  let stopping: Promise<void> | null = null;
  return {
    capabilities: detected.capabilities,
    ready: readyPublic,
    done,
    stop() {
      stopping ??= (async () => {
        logger.info('stopping: no new pulls, aborting the current attempt');
        stopController.abort(new AttemptAbortedError('shutdown', 'agent stopping'));
        if (presence) clock.clearInterval(presence);
        await done.catch(() => undefined);
        await nc.drain().catch(() => nc.close());
        logger.info('stopped');
      })();
      return stopping;
    },
  };
}

/** `transcribe: ffmpeg … does not run; …` per kind, for the refusal to start. */
function describeMissing(missing: DetectedCapabilities['missing']): string {
  return Object.entries(missing)
    .map(([kind, lines]) => `${kind}: ${(lines ?? []).join('; ')}`)
    .join(' | ');
}

/**
 * Waits for a wake-up, or for stop. A pull answered after stop is nak'ed so the message goes
 * straight to another agent instead of waiting out its ack deadline.
 */
async function pullOrStop(consumer: Consumer, stopSignal: AbortSignal, expiresMs: number): Promise<JsMsg | null> {
  const pull = consumer.next({ expires: expiresMs });
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<null>((resolve) => {
    onAbort = () => resolve(null);
    stopSignal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const msg = await Promise.race([pull, stopped]);
    if (stopSignal.aborted) {
      msg?.nak();
      return null;
    }
    return msg;
  } finally {
    if (onAbort) stopSignal.removeEventListener('abort', onAbort);
    pull.then((late) => (stopSignal.aborted ? late?.nak() : undefined)).catch(() => undefined);
  }
}
