import { sql } from 'drizzle-orm';
import { collectDefaultMetrics, Counter, Gauge } from 'prom-client';
import type { Ctx } from '../context.ts';
import { jobs, ledgerEntries } from '../db/schema.ts';
import { AGENT_DISPLAY_STATES, type AgentDisplayState, agentStateCounts } from '../operators/agent-state.ts';
import { type QueueStats, queueStats } from '../operators/queue-stats.ts';
import { SERVICE_VERSION } from '../version.ts';
import { type JobSamples, jobSamples, type LedgerSamples, ledgerSamples } from './db-samples.ts';
import { type CoordinatorMetrics, labelValue, METRIC_PREFIX, metricsOf } from './registry.ts';

/** What one scrape reads from Postgres; every DB-derived metric of that scrape shows the same snapshot. */
export interface DbSnapshot {
  jobs: JobSamples;
  queues: QueueStats;
  agents: Record<AgentDisplayState, number>;
  ledger: LedgerSamples;
}

/** A scrape that has not read Postgres by then reports the in-process metrics and `cutroom_metrics_db_up 0`. */
const SNAPSHOT_TIMEOUT_MS = 5_000;

export interface Scraper {
  /** `text/plain; version=0.0.4; charset=utf-8`: the Prometheus text format. */
  readonly contentType: string;
  metrics(): Promise<string>;
}

const scrapers = new WeakMap<CoordinatorMetrics, Scraper>();

/**
 * Makes this coordinator's registry scrapable (once per Ctx, whichever listener asks first): the
 * default process metrics (`cutroom_process_*`, `cutroom_nodejs_*`), build info, and the
 * metrics derived from Postgres at scrape time through prom-client `collect()`: jobs, queues,
 * agents, payments. They are cluster-wide truths, not this replica's observations, so every
 * replica reports the same values (aggregate with `max`).
 */
export function enableScrape(ctx: Ctx): Scraper {
  const m = metricsOf(ctx);
  const existing = scrapers.get(m);
  if (existing) return existing;
  const registers = [m.registry];
  const name = (n: string) => `${METRIC_PREFIX}${n}`;
  collectDefaultMetrics({ register: m.registry, prefix: METRIC_PREFIX });

  // Every DB-derived metric of a scrape asks for the snapshot: they share one read, and so do
  // scrapes that overlap it (several Prometheus servers), so scrapes never pile up queries.
  let inFlight: Promise<DbSnapshot | null> | null = null;
  const snapshot = (): Promise<DbSnapshot | null> => {
    inFlight ??= withTimeout(readSnapshot(ctx), SNAPSHOT_TIMEOUT_MS)
      .catch((err: unknown) => {
        ctx.logger.warn({ err }, 'metrics: could not read Postgres; this scrape has only the in-process metrics');
        return null;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };

  new Gauge({
    name: name('build_info'),
    help: 'Always 1; the coordinator version as a label.',
    labelNames: ['version'],
    registers,
  }).set({ version: labelValue(SERVICE_VERSION) }, 1);
  new Gauge({
    name: name('metrics_db_up'),
    help: '1 when this scrape read Postgres, 0 when it could not (the DB-derived metrics are then absent).',
    registers,
    async collect() {
      this.set((await snapshot()) ? 1 : 0);
    },
  });

  // ---- jobs (table `jobs`: rows are never removed, so counts of ended jobs only grow)
  new Gauge({
    name: name('jobs'),
    help: 'Jobs by type and current status (Postgres at scrape time).',
    labelNames: ['job_type', 'status'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.jobs.byStatus.values() ?? []) this.set({ job_type: v.job_type, status: v.status }, v.n);
    },
  });
  new Counter({
    name: name('jobs_created_total'),
    help: 'Jobs created, by type (Postgres at scrape time).',
    labelNames: ['job_type'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const [jobType, n] of s?.jobs.created ?? []) this.inc({ job_type: jobType }, n);
    },
  });
  new Counter({
    name: name('jobs_finished_total'),
    help: 'Jobs that ended, by type and outcome: completed, failed (every failed job is refunded), abandoned (never ran: unpaid, upload not completed, deleted first). Postgres at scrape time.',
    labelNames: ['job_type', 'outcome'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.jobs.finished.values() ?? []) this.inc({ job_type: v.job_type, outcome: v.outcome }, v.n);
    },
  });
  new Counter({
    name: name('jobs_failed_total'),
    help: 'Failed jobs by type and failure code (shared/src/failures.ts). Postgres at scrape time.',
    labelNames: ['job_type', 'code'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.jobs.failed.values() ?? []) this.inc({ job_type: v.job_type, code: labelValue(v.code) }, v.n);
    },
  });

  // ---- queues and agents
  new Gauge({
    name: name('queued_jobs'),
    help: 'Jobs waiting for an agent (an active status, no current attempt), by work kind.',
    labelNames: ['kind'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const [kind, q] of Object.entries(s?.queues ?? {})) this.set({ kind }, q.queued);
    },
  });
  new Gauge({
    name: name('queue_oldest_age_seconds'),
    help: 'How long the longest-waiting queued job of each work kind has waited, since the event that queued it (0: none waits).',
    labelNames: ['kind'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const [kind, q] of Object.entries(s?.queues ?? {})) this.set({ kind }, q.oldestAgeSeconds);
    },
  });
  new Gauge({
    name: name('agents'),
    help: 'Render-agents by state: online (live, idle), busy (running an attempt), offline (not seen for 90 s), draining, drained, retired.',
    labelNames: ['state'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      if (s) for (const state of AGENT_DISPLAY_STATES) this.set({ state }, s.agents[state] ?? 0);
    },
  });

  // ---- money (table `ledger_entries`)
  new Counter({
    name: name('payments_total'),
    help: 'Ledger movements that ended, by rail, kind (charge, hold, capture, release) and outcome (done, failed).',
    labelNames: ['rail', 'kind', 'outcome'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.ledger.payments ?? []) this.inc({ rail: v.rail, kind: v.kind, outcome: v.outcome }, v.n);
    },
  });
  new Counter({
    name: name('payments_dollars_total'),
    help: 'Amount of done movements by rail and kind, in dollars (card cents / 100, USDC 1:1).',
    labelNames: ['rail', 'kind'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.ledger.paymentDollars ?? []) this.inc({ rail: v.rail, kind: v.kind }, v.dollars);
    },
  });
  new Counter({
    name: name('refunds_total'),
    help: 'Refunds that ended, by rail and outcome (done: paid back; failed: gave up, for an operator).',
    labelNames: ['rail', 'outcome'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.ledger.refunds ?? []) this.inc({ rail: v.rail, outcome: v.outcome }, v.n);
    },
  });
  new Counter({
    name: name('refunds_dollars_total'),
    help: 'Amount refunded (done refunds), by rail, in dollars.',
    labelNames: ['rail'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.ledger.refundDollars ?? []) this.inc({ rail: v.rail }, v.dollars);
    },
  });
  new Gauge({
    name: name('ledger_open_entries'),
    help: 'Ledger rows still moving, by rail, kind and state: charges being reconciled (pending), refunds queued (pending) or on their way (sending).',
    labelNames: ['rail', 'kind', 'state'],
    registers,
    async collect() {
      const s = await snapshot();
      this.reset();
      for (const v of s?.ledger.open ?? []) this.set({ rail: v.rail, kind: v.kind, state: v.state }, v.n);
    },
  });

  const scraper: Scraper = { contentType: m.registry.contentType, metrics: () => m.registry.metrics() };
  scrapers.set(m, scraper);
  return scraper;
}

/** The grouped reads of one scrape, in parallel: each is one statement (agentStateCounts a few). */
async function readSnapshot(ctx: Ctx): Promise<DbSnapshot> {
  const finished = sql<boolean>`${jobs.completedAt} is not null`;
  const [jobGroups, queues, agents, ledgerGroups] = await Promise.all([
    ctx.db
      .select({ jobType: jobs.jobType, status: jobs.status, errorCode: jobs.errorCode, finished, count: sql<number>`count(*)::int` })
      .from(jobs)
      .groupBy(jobs.jobType, jobs.status, jobs.errorCode, finished),
    queueStats(ctx),
    agentStateCounts(ctx),
    ctx.db
      .select({
        rail: ledgerEntries.rail,
        kind: ledgerEntries.kind,
        state: ledgerEntries.state,
        count: sql<number>`count(*)::int`,
        amount: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)::text`,
      })
      .from(ledgerEntries)
      .groupBy(ledgerEntries.rail, ledgerEntries.kind, ledgerEntries.state),
  ]);
  return {
    jobs: jobSamples(jobGroups.map((g) => ({ ...g, finished: Boolean(g.finished), count: Number(g.count) }))),
    queues,
    agents,
    ledger: ledgerSamples(ledgerGroups.map((g) => ({ ...g, count: Number(g.count), amount: BigInt(g.amount) }))),
  };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
