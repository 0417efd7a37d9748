import fs from 'node:fs/promises';
import type { Consumer } from '@nats-io/jetstream';
import { fromSeed } from '@nats-io/nkeys';
import { connect, jwtAuthenticator, type NatsConnection } from '@nats-io/transport-node';
import type { AgentCapabilities, AgentControl, WorkKind } from '@cutroom/proto';
import { detectCapabilities, type DetectedCapabilities } from './capabilities/detect-capabilities.ts';
import { handleWakeup } from './claim/handle-wakeup.ts';
import { systemClock, type Clock } from './clock.ts';
import type { AgentConfig } from './config.ts';
import { type CoordinatorClient, createCoordinatorClient } from './coordinator-client.ts';
import { loadOrEnroll, saveCredential, type StoredCredential } from './identity.ts';
import { AttemptAbortedError } from './errors.ts';
import { createLogger, type Logger } from './logger.ts';
import { PIPELINES } from './pipelines/registry.ts';
import { getWorkConsumer } from './work-consumers.ts';
import { pullAny } from './pull-any.ts';
import { freeKinds, parseSlots } from './slots.ts';

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

/** How often a drained agent asks whether it was resumed. */
const DRAINED_POLL_MS = 3_000;

/**
 * How long each pull waits for a wake-up before asking again. The kinds' pulls are open at once
 * (pull-any.ts), so this bounds nothing a caller waits for: a wake-up is taken as it arrives.
 */
export const PULL_EXPIRES_MS = 5_000;

/**
 * Connects, announces what this host can do, then pulls wake-ups and runs jobs in slots by work
 * kind (slots.ts: by default one of each kind at once, on a host large enough).
 * Throws if NATS is unreachable or the host can serve no work kind; waits (logging) for the
 * coordinator and its consumers otherwise.
 */
export async function startAgent(configured: AgentConfig, options: StartAgentOptions = {}): Promise<AgentHandle> {
  const baseLogger = options.logger ?? createLogger(configured.logLevel, configured.agentId);
  const clock = options.clock ?? systemClock;
  const stopController = new AbortController();
  const stopSignal = stopController.signal;
  // This host's own credential (enrolled on first start); the token can change by rotation.
  let token = '';
  const client = createCoordinatorClient({
    baseUrl: configured.coordinatorUrl,
    token: () => token,
    resultRetryMaxMs: configured.resultRetryMaxMs,
    logger: baseLogger,
    clock,
  });
  const credential = await loadOrEnroll(configured, client, baseLogger, stopSignal);
  token = credential.token;
  const config: AgentConfig = { ...configured, agentId: credential.agent_id };
  const logger = credential.agent_id === configured.agentId ? baseLogger : baseLogger.child({ agent_id: credential.agent_id });
  await fs.mkdir(config.workDir, { recursive: true });
  const detected = await detectCapabilities(config, logger, PIPELINES);
  const kinds = detected.capabilities.work_kinds;
  if (kinds.length === 0) throw new Error(`this host can serve no work kind: ${describeMissing(detected.missing)}`);
  const slots = parseSlots(config.slots);

  // NATS comes after registering: the coordinator signs this host's NATS user (docs/adr/0009).
  let natsConnection: NatsConnection | undefined;
  const nc: Pick<NatsConnection, 'subscribe' | 'publish'> = {
    subscribe: (subject, opts) => natsConnection!.subscribe(subject, opts),
    publish: (subject, payload, opts) => natsConnection!.publish(subject, payload, opts),
  };
  // What operators set (drain, credential rotation), as the latest answer told it.
  let control: AgentControl = { state: 'active', rotate_credential: false };
  const isDrained = () => control.state === 'draining';
  let rotating: Promise<void> | null = null;
  const onControl = (next: AgentControl) => {
    if (next.state !== control.state)
      logger.info(
        { state: next.state },
        next.state === 'draining' ? 'drained by an operator: finishing the current job, taking no new one' : 'resumed by an operator: taking work',
      );
    control = next;
    if (next.rotate_credential && !rotating) {
      rotating = rotateCredential(config, credential.nats_seed, client, (t) => (token = t), logger, stopSignal).finally(() => (rotating = null));
    }
  };
  const deps = { config, client, whisper: detected.whisper, host: detected.host, pipelines: PIPELINES, nc, logger, clock, stopSignal, onControl };
  const announce = () =>
    client
      .announce(detected.capabilities, stopSignal)
      .then((r) => onControl(r.control))
      .catch((err: unknown) => {
        if (!stopSignal.aborted) logger.warn({ err: (err as Error).message }, 'presence announcement failed; retrying at the next tick');
      });

  let presence: ReturnType<Clock['setInterval']> | undefined;
  const ready = (async () => {
    onControl((await client.register(detected.capabilities, stopSignal)).control);
    logger.info({ coordinator: config.coordinatorUrl, kinds }, 'registered');
    presence = clock.setInterval(() => void announce(), PRESENCE_INTERVAL_MS);
    natsConnection = await connectNats(config, credential, client, logger, stopSignal);
    const conn = natsConnection;
    const consumers = await Promise.all(kinds.map((k) => getWorkConsumer(conn, k, stopSignal, logger, clock).then((c) => [k, c] as const)));
    return new Map<WorkKind, Consumer>(consumers);
  })();

  // Jobs in flight by kind; a slot freed wakes the pull loop to ask for that kind again.
  const running = new Map<WorkKind, number>();
  const inFlight = new Set<Promise<void>>();
  let slotFreed = new AbortController();
  const loop = (async () => {
    const consumers = await ready;
    logger.info({ slots: slots.perKind, total: slots.total }, 'pulling work');
    while (!stopSignal.aborted) {
      if (isDrained()) {
        // Drained: no pulls (jobs in flight finish); ask every few seconds whether an operator resumed us.
        await clock.sleep(DRAINED_POLL_MS, stopSignal).catch(() => undefined);
        if (!stopSignal.aborted) await announce();
        continue;
      }
      const free = freeKinds(slots, running, [...consumers.keys()]);
      if (free.length === 0) {
        // Every slot busy: wait for a job to end.
        await Promise.race([...inFlight]);
        continue;
      }
      const pullSignal = AbortSignal.any([stopSignal, slotFreed.signal]);
      const { msg, kind, failed } = await pullAny(new Map(free.map((k) => [k, consumers.get(k)!])), pullSignal, PULL_EXPIRES_MS);
      if (slotFreed.signal.aborted) slotFreed = new AbortController();
      if (stopSignal.aborted) {
        // Answered as we stop: straight back to another agent instead of waiting out its ack deadline.
        msg?.nak();
        break;
      }
      for (const f of failed) {
        // The consumer may have been deleted and recreated by a restarting coordinator.
        logger.warn({ kind: f.kind, err: f.err.message }, 'pull failed; rebinding to the work consumer');
        await clock.sleep(1_000, stopSignal).catch(() => undefined);
        if (!stopSignal.aborted) consumers.set(f.kind, await getWorkConsumer(natsConnection!, f.kind, stopSignal, logger, clock));
      }
      if (!msg || !kind) continue;
      // The job runs in its slot; the loop goes on pulling for the kinds that still have one.
      running.set(kind, (running.get(kind) ?? 0) + 1);
      const job: Promise<void> = handleWakeup(msg, deps)
        .then(() => undefined)
        .catch((err: unknown) => logger.error({ kind, err: (err as Error).message }, 'handling a wake-up failed'))
        .finally(() => {
          running.set(kind, (running.get(kind) ?? 1) - 1);
          inFlight.delete(job);
          slotFreed.abort();
        });
      inFlight.add(job);
    }
    // Stopping: the attempts in flight were aborted by the stop signal; wait for them to wind down.
    await Promise.allSettled([...inFlight]);
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
        await natsConnection?.drain().catch(() => natsConnection?.close());
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
 * Trades the credential for a new one (an operator asked): the new one is saved before it is used;
 * the old one keeps working for a grace period, so a crash in between loses nothing.
 */
async function rotateCredential(
  config: AgentConfig,
  natsSeed: string | undefined,
  client: CoordinatorClient,
  use: (token: string) => void,
  logger: Logger,
  signal: AbortSignal,
): Promise<void> {
  try {
    const next = await client.rotate(signal);
    await saveCredential(config.credentialFile, {
      agent_id: next.agent_id,
      token: next.token,
      coordinator_url: config.coordinatorUrl,
      ...(natsSeed && { nats_seed: natsSeed }),
    });
    use(next.token);
    logger.info({ previous_expires_at: next.previous_expires_at }, 'credential rotated');
  } catch (err) {
    if (!signal.aborted) logger.warn({ err: (err as Error).message }, 'credential rotation failed; the next announcement asks again');
  }
}

/**
 * Connects to NATS as this host's own user: the coordinator signs a JWT for the key in the
 * credential file (scoped to the kinds just registered and to this agent's subjects), and replies
 * come to this agent's own inbox prefix. A coordinator running NATS without authentication answers
 * no JWT, and the connection carries none.
 */
async function connectNats(
  config: AgentConfig,
  credential: StoredCredential,
  client: CoordinatorClient,
  logger: Logger,
  signal: AbortSignal,
): Promise<NatsConnection> {
  const seed = credential.nats_seed;
  if (!seed) throw new Error('the credential file has no NATS key (nats_seed)');
  const publicKey = fromSeed(new TextEncoder().encode(seed)).getPublicKey();
  const granted = await client.natsCredential({ v: 1, agent_id: config.agentId, public_key: publicKey }, signal);
  const nc = await connect({
    servers: config.natsUrl.split(','),
    name: `render-agent ${config.agentId}`,
    maxReconnectAttempts: -1,
    inboxPrefix: granted.inbox_prefix,
    ...(granted.jwt && { authenticator: jwtAuthenticator(granted.jwt, new TextEncoder().encode(seed)) }),
  });
  void (async () => {
    for await (const s of nc.status()) {
      // Revoked (retired, credentials revoked, or the key replaced): the server refuses this host from now on.
      if (s.type === 'error') logger.error({ err: (s as { error?: Error }).error?.message }, 'NATS refused this agent');
    }
  })();
  logger.info({ authenticated: Boolean(granted.jwt), public_key: publicKey }, 'connected to NATS');
  return nc;
}
