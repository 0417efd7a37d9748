import type { Db } from './db/database.ts';
import type { CoordinatorConfig } from './config.ts';
import type { Clock } from './lib/clock.ts';
import type { Logger } from './lib/logger.ts';
import type { NatsAuthority } from './nats-auth/authority.ts';
import type { Billing } from './payments/billing.ts';
import type { BlobStore } from './storage/blob-store.ts';

/** What every service function receives: no module-level singletons, so tests build their own. */
export interface Ctx {
  db: Db;
  blobs: BlobStore;
  clock: Clock;
  config: CoordinatorConfig;
  logger: Logger;
  /** Payment rails; `billing.enabled` false → jobs are created already paid. */
  billing: Billing;
  /** Wakes the outbox relay after a commit that wrote outbox rows (it also polls). */
  notifyOutbox: () => void;
  /** Wakes the durable-step worker after a commit that made a step due (it also polls; ADR 0010). */
  nudgeSteps: () => void;
  /** Best effort: tells the agent holding `attemptId` to stop now (its next fenced call is refused anyway). */
  cancelAttempt: (attemptId: string) => void;
  /** NATS decentralized auth (nats-auth/): signs agents' user JWTs and pushes revocations; null with NATS_AUTH=none. */
  natsAuth: NatsAuthority | null;
}
