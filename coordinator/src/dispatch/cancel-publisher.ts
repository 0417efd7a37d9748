import type { NatsConnection } from '@nats-io/transport-node';
import { eq } from 'drizzle-orm';
import { cancelSubject } from '@cutroom/proto';
import type { Db } from '../db/database.ts';
import { jobAttempts } from '../db/schema.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * Tells the agent holding an attempt to stop: a core NATS message on the cancel subject of that
 * agent (it may subscribe to its own only, and no agent may publish there: docs/adr/0009). Best
 * effort and in the background: the agent's next fenced call is refused anyway.
 */
export function startCancelPublisher(deps: { db: Db; nc: Pick<NatsConnection, 'publish'>; logger: Logger }) {
  const pending = new Set<Promise<void>>();
  return {
    cancel(attemptId: string): void {
      const p = (async () => {
        const [row] = await deps.db.select({ agentId: jobAttempts.agentId }).from(jobAttempts).where(eq(jobAttempts.id, attemptId)).limit(1);
        if (row) deps.nc.publish(cancelSubject(row.agentId, attemptId));
      })()
        .catch((err: unknown) => deps.logger.warn({ err, attempt_id: attemptId }, 'publishing a cancel failed'))
        .finally(() => pending.delete(p));
      pending.add(p);
    },
    async stop(): Promise<void> {
      await Promise.all(pending);
    },
  };
}
