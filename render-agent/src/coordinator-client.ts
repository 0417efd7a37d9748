import {
  AGENT_ROUTES,
  ClaimResponse,
  EnrollResponse,
  HeartbeatResponse,
  NatsCredentialResponse,
  RegisterResponse,
  RotateResponse,
  StaleAttempt,
  type AgentCapabilities,
  type ClaimRequest,
  type CompleteRequest,
  type EnrollRequest,
  type FailRequest,
  type Fence,
  type NatsCredentialRequest,
  type StageRequest,
} from '@cutroom/proto';
import type { z } from 'zod';
import { systemClock, type Clock } from './clock.ts';
import { CoordinatorError, StaleAttemptError } from './errors.ts';
import type { Logger } from './logger.ts';
import { backoffDelayMs, DEFAULT_BACKOFF, type BackoffPolicy } from './retry.ts';

export interface CoordinatorClientOptions {
  baseUrl: string;
  /** This agent's credential; a function when it can change (rotation). */
  token: string | (() => string);
  /** Bound on one HTTP request; retries follow. @default 10 s */
  requestTimeoutMs?: number;
  /** @default DEFAULT_BACKOFF (500 ms doubling to 30 s) */
  backoff?: BackoffPolicy;
  /** Tries for claim before giving up: a wake-up is only a hint. @default 3 */
  claimTries?: number;
  /** Tries for a stage report (about a minute with the default back-off). @default 8 */
  stageTries?: number;
  /**
   * How long `complete` and `fail` keep retrying, measured on `clock` from the first try: no
   * retry starts whose back-off would end past it, and the last error is thrown. The agent then
   * walks away from the attempt; its lease runs out and the sweeper requeues the job (a result
   * is idempotent per attempt, so retrying long is safe, but not forever). @default 10 min
   */
  resultRetryMaxMs?: number;
  /** Waits out the back-off between tries. @default systemClock */
  clock?: Clock;
  logger?: Logger;
}

/** Network error, timeout, 5xx or 429: the call may succeed if repeated. */
export class TransientError extends Error {
  override readonly name = 'TransientError';
}

/** Typed client for the coordinator's /internal/v1 routes; every response is schema-checked. */
export type CoordinatorClient = ReturnType<typeof createCoordinatorClient>;

export function createCoordinatorClient(opts: CoordinatorClientOptions) {
  const timeoutMs = opts.requestTimeoutMs ?? 10_000;
  const backoff = opts.backoff ?? DEFAULT_BACKOFF;
  const clock = opts.clock ?? systemClock;

  const tokenOf = typeof opts.token === 'function' ? opts.token : () => opts.token as string;

  async function post<S extends z.ZodType>(route: string, body: unknown, schema: S | null, signal?: AbortSignal, bearer?: string): Promise<z.output<S>> {
    const timeout = AbortSignal.timeout(timeoutMs);
    let res: Response;
    try {
      res = await fetch(new URL(route, opts.baseUrl), {
        method: 'POST',
        headers: { authorization: `Bearer ${bearer ?? tokenOf()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (err) {
      signal?.throwIfAborted();
      throw new TransientError(`${route}: ${(err as Error).message}`, { cause: err });
    }
    const text = await res.text().catch(() => '');
    if (res.status === 409) {
      const stale = StaleAttempt.safeParse(safeJson(text));
      throw new StaleAttemptError(stale.success ? stale.data.error : `${route} answered 409`);
    }
    if (res.status >= 500 || res.status === 429) throw new TransientError(`${route} answered ${res.status}: ${text.slice(0, 200)}`);
    if (!res.ok) throw new CoordinatorError(res.status, `${route} answered ${res.status}: ${text.slice(0, 500)}`);
    if (schema === null) return undefined as z.output<S>;
    const parsed = schema.safeParse(safeJson(text));
    if (!parsed.success) throw new CoordinatorError(res.status, `${route} answered a body that does not match the protocol: ${parsed.error.message}`);
    return parsed.data;
  }

  const resultRetryMaxMs = opts.resultRetryMaxMs ?? 10 * 60_000;

  /**
   * Repeats transient failures until `tries` calls were made (Infinity: no count limit), a retry
   * would start later than `maxMs` after the first try, or `signal` aborts.
   */
  async function withRetry<T>(route: string, budget: { tries: number; maxMs?: number }, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    const started = clock.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (!(err instanceof TransientError)) throw err;
        const delay = backoffDelayMs(attempt, backoff);
        const elapsed = clock.now() - started;
        if (attempt + 1 >= budget.tries || (budget.maxMs !== undefined && elapsed + delay > budget.maxMs)) {
          // Only the terminal results have a time budget; giving up on one is worth an error line.
          if (budget.maxMs !== undefined) {
            opts.logger?.error({ route, err: err.message, tries: attempt + 1, elapsed_ms: elapsed }, `giving up on ${route} after ${attempt + 1} tries`);
          }
          throw err;
        }
        opts.logger?.warn({ route, err: err.message, retry_in_ms: delay, attempt: attempt + 1 }, 'coordinator call failed, retrying');
        await clock.sleep(delay, signal);
      }
    }
  }
  const result = { tries: Infinity, maxMs: resultRetryMaxMs };

  return {
    /** Announces capabilities; retried until the coordinator answers (it may start after us). */
    register: (caps: AgentCapabilities, signal?: AbortSignal) =>
      withRetry(AGENT_ROUTES.register, { tries: Infinity }, signal, () => post(AGENT_ROUTES.register, caps, RegisterResponse, signal)),
    /** This host's NATS user JWT for the key it holds (after register); retried until the coordinator answers. */
    natsCredential: (req: NatsCredentialRequest, signal?: AbortSignal) =>
      withRetry(AGENT_ROUTES.natsCredential, { tries: Infinity }, signal, () => post(AGENT_ROUTES.natsCredential, req, NatsCredentialResponse, signal)),
    /** One re-announcement (presence); the next tick tries again, so no retry here. */
    announce: (caps: AgentCapabilities, signal?: AbortSignal) => post(AGENT_ROUTES.register, caps, RegisterResponse, signal),
    /** Trades a one-use enrollment token for this host's own credential; retried while the coordinator is unreachable. */
    enroll: (enrollmentToken: string, req: EnrollRequest, signal?: AbortSignal) =>
      withRetry(AGENT_ROUTES.enroll, { tries: Infinity }, signal, () => post(AGENT_ROUTES.enroll, req, EnrollResponse, signal, enrollmentToken)),
    /** A new credential for this one (which keeps working for a grace period). */
    rotate: (signal?: AbortSignal) => withRetry(AGENT_ROUTES.rotate, { tries: 5 }, signal, () => post(AGENT_ROUTES.rotate, {}, RotateResponse, signal)),
    /** A few tries only: if the coordinator is down the wake-up is redelivered anyway. */
    claim: (req: ClaimRequest, signal?: AbortSignal) =>
      withRetry(AGENT_ROUTES.claim, { tries: opts.claimTries ?? 3 }, signal, () => post(AGENT_ROUTES.claim, req, ClaimResponse, signal)),
    /** One try: the lease keeper calls again at the next tick. */
    heartbeat: (fence: Fence, signal?: AbortSignal) => post(AGENT_ROUTES.heartbeat, fence, HeartbeatResponse, signal),
    /**
     * A status change: retried for about a minute, then TransientError. Bounded, unlike the
     * terminal calls, so a coordinator that keeps refusing cannot wedge the agent mid-job.
     */
    stage: (req: StageRequest, signal?: AbortSignal) =>
      withRetry(AGENT_ROUTES.stage, { tries: opts.stageTries ?? 8 }, signal, () => post(AGENT_ROUTES.stage, req, null, signal)),
    /**
     * Terminal results (idempotent for the same attempt) are retried for up to `resultRetryMaxMs`,
     * then TransientError: the lease then expires and the sweeper requeues the job.
     */
    complete: (req: CompleteRequest, signal?: AbortSignal) =>
      withRetry(AGENT_ROUTES.complete, result, signal, () => post(AGENT_ROUTES.complete, req, null, signal)),
    fail: (req: FailRequest, signal?: AbortSignal) => withRetry(AGENT_ROUTES.fail, result, signal, () => post(AGENT_ROUTES.fail, req, null, signal)),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
