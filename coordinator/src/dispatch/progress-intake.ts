import type { NatsConnection } from '@nats-io/transport-node';
import { and, eq, exists } from 'drizzle-orm';
import { agentSubjectToken, PROGRESS_SUBJECT_WILDCARD, ProgressEvent, progressSubjectAgentToken } from '@cutroom/proto';
import type { Db } from '../db/database.ts';
import { jobAttempts, jobs } from '../db/schema.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * Takes agents' progress events off core NATS, keeps only the newest per job, and writes them
 * about once a second. The write is fenced by attempt id, so a stale agent cannot overwrite the
 * progress of the attempt that replaced it, and bound to the attempt's owner: the subject names
 * the agent (which NATS lets publish under its own name only, docs/adr/0009), the event must name
 * the same agent, and the attempt must be that agent's. A progress event never changes job status.
 */
export function startProgressIntake(deps: { db: Db; nc: NatsConnection; logger: Logger; flushMs?: number }) {
  const latest = new Map<string, ProgressEvent>();
  const sub = deps.nc.subscribe(PROGRESS_SUBJECT_WILDCARD, {
    callback: (err, msg) => {
      if (err) return;
      const parsed = ProgressEvent.safeParse(safeJson(msg.string()));
      if (!parsed.success) return deps.logger.debug({ subject: msg.subject }, 'dropping malformed progress event');
      if (!namesSameAgent(msg.subject, parsed.data.agent_id))
        return deps.logger.warn({ subject: msg.subject, agent_id: parsed.data.agent_id }, "dropping a progress event published under another agent's name");
      const prev = latest.get(parsed.data.job_id);
      if (!prev || prev.at <= parsed.data.at) latest.set(parsed.data.job_id, parsed.data);
    },
  });

  async function flush(): Promise<void> {
    const batch = [...latest.values()];
    latest.clear();
    for (const e of batch) {
      await deps.db
        .update(jobs)
        .set({ progress: { stage: e.stage, fraction: e.fraction, at: e.at } })
        .where(
          and(
            eq(jobs.id, e.job_id),
            eq(jobs.currentAttemptId, e.attempt_id),
            eq(jobs.status, e.stage),
            exists(
              deps.db
                .select({ one: jobAttempts.id })
                .from(jobAttempts)
                .where(and(eq(jobAttempts.id, e.attempt_id), eq(jobAttempts.agentId, e.agent_id))),
            ),
          ),
        )
        .catch((err: unknown) => deps.logger.warn({ err, job_id: e.job_id }, 'progress write failed'));
    }
  }

  const timer = setInterval(() => void flush(), deps.flushMs ?? 1000);
  return {
    flush,
    async stop() {
      clearInterval(timer);
      sub.unsubscribe();
      await flush();
    },
  };
}

function safeJson(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return null;
  }
}

function namesSameAgent(subject: string, agentId: string): boolean {
  try {
    return progressSubjectAgentToken(subject) === agentSubjectToken(agentId);
  } catch {
    return false;
  }
}
