import { asc, eq, isNull } from 'drizzle-orm';
import type { AgentCapabilities } from '@cutroom/proto';
import type { Ctx } from '../context.ts';
import { type AgentControlState, agentCredentials, agents, jobAttempts, jobs } from '../db/schema.ts';
import { addMs } from '../lib/clock.ts';
import { blockedTypes } from './blocklist.ts';

/** An agent is live when seen (announcement, claim, heartbeat) this recently: agents announce every 30 s. */
export const AGENT_LIVE_MS = 90_000;

/**
 * What the console shows: `online` (live, idle), `busy` (live, running an attempt), `offline` (not
 * seen for AGENT_LIVE_MS), `draining` (told to stop, still finishing an attempt), `drained`
 * (told to stop, idle: safe to take down), `retired` (gone for good, credentials revoked).
 */
export const AGENT_DISPLAY_STATES = ['online', 'busy', 'offline', 'draining', 'drained', 'retired'] as const;
export type AgentDisplayState = (typeof AGENT_DISPLAY_STATES)[number];

export function displayState(control: AgentControlState, live: boolean, busy: boolean): AgentDisplayState {
  if (control === 'retired') return 'retired';
  if (control === 'draining') return busy ? 'draining' : 'drained';
  if (!live) return 'offline';
  return busy ? 'busy' : 'online';
}

export interface AgentView {
  id: string;
  state: AgentDisplayState;
  control: AgentControlState;
  tags: string[];
  hostname: string | null;
  version: string | null;
  work_kinds: string[];
  gpus: { name: string; memory_mib: number }[];
  cuda: boolean;
  nvenc: boolean;
  encoders: string[];
  whisper: { models: string[]; device: string; compute_type: string } | null;
  cpu_cores: number | null;
  free_disk_bytes: number | null;
  registered_at: string;
  last_seen_at: string;
  seconds_since_seen: number;
  /** The oldest of `running` (an agent runs jobs in slots by work kind: several at once). */
  current: RunningAttempt | null;
  /** Every attempt it holds now, oldest first. */
  running: RunningAttempt[];
  blocked: { job_type: string; failures: number }[];
  credentials: number;
  rotate_requested: boolean;
}

export interface RunningAttempt {
  job_id: string;
  attempt_id: string;
  job_type: string;
  status: string;
  progress: unknown;
  started_at: string;
}

/** Every agent with what it can do, what it is doing, and what operators set; retired ones last. */
export async function listAgents(ctx: Ctx): Promise<AgentView[]> {
  const now = ctx.clock.now();
  const [rows, running, blocked, creds] = await Promise.all([
    ctx.db.select().from(agents).orderBy(asc(agents.id)),
    ctx.db
      .select({
        agentId: jobAttempts.agentId,
        attemptId: jobAttempts.id,
        jobId: jobs.id,
        jobType: jobs.jobType,
        status: jobs.status,
        progress: jobs.progress,
        startedAt: jobAttempts.startedAt,
      })
      .from(jobAttempts)
      .innerJoin(jobs, eq(jobs.currentAttemptId, jobAttempts.id))
      .where(isNull(jobAttempts.endedAt)),
    blockedTypes(ctx),
    ctx.db.select({ agentId: agentCredentials.agentId }).from(agentCredentials).where(isNull(agentCredentials.revokedAt)),
  ]);
  const liveSince = addMs(now, -AGENT_LIVE_MS);
  return rows.map((row): AgentView => {
    const caps = row.capabilities as Partial<AgentCapabilities>;
    const mine = running
      .filter((r) => r.agentId === row.id)
      .sort((x, y) => x.startedAt.getTime() - y.startedAt.getTime())
      .map(
        (r): RunningAttempt => ({
          job_id: r.jobId,
          attempt_id: r.attemptId,
          job_type: r.jobType,
          status: r.status,
          progress: r.progress ?? null,
          started_at: r.startedAt.toISOString(),
        }),
      );
    const cur = mine[0] ?? null;
    return {
      id: row.id,
      state: displayState(row.state, row.lastSeenAt > liveSince, cur !== null),
      control: row.state,
      tags: row.tags,
      hostname: caps.hostname ?? null,
      version: caps.version ?? null,
      work_kinds: caps.work_kinds ?? [],
      gpus: caps.gpus ?? [],
      cuda: caps.cuda?.available ?? false,
      nvenc: caps.ffmpeg?.nvenc ?? false,
      encoders: caps.ffmpeg?.encoders ?? [],
      whisper: caps.whisper ?? null,
      cpu_cores: caps.cpu_cores ?? null,
      free_disk_bytes: caps.free_disk_bytes ?? null,
      registered_at: row.registeredAt.toISOString(),
      last_seen_at: row.lastSeenAt.toISOString(),
      seconds_since_seen: Math.max(0, Math.round((now.getTime() - row.lastSeenAt.getTime()) / 1000)),
      current: cur,
      running: mine,
      blocked: blocked.filter((b) => b.agent_id === row.id).map((b) => ({ job_type: b.job_type, failures: b.failures })),
      credentials: creds.filter((c) => c.agentId === row.id).length,
      rotate_requested: row.rotateRequestedAt !== null,
    };
  });
}

/** How many agents are in each display state (metrics, the console's header). */
export async function agentStateCounts(ctx: Ctx): Promise<Record<AgentDisplayState, number>> {
  const counts = Object.fromEntries(AGENT_DISPLAY_STATES.map((s) => [s, 0])) as Record<AgentDisplayState, number>;
  for (const a of await listAgents(ctx)) counts[a.state]++;
  return counts;
}
