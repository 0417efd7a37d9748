/**
 * Pure folds of the grouped rows scrape.ts reads from Postgres into metric samples. Every replica
 * reads the same rows, so every replica reports the same values: aggregate them with `max`
 * across instances, never `sum` (deploy/grafana/README.md).
 */

/** One group of `jobs`: (type, status, error code, whether it ever finished) and how many. */
export interface JobGroup {
  jobType: string;
  status: string;
  errorCode: string | null;
  /** completed_at is set: the job completed or failed (a failed job gets it too, fail-job.ts). */
  finished: boolean;
  count: number;
}

export type JobOutcome = 'completed' | 'failed' | 'abandoned';

/**
 * How a job ended, kept after retention moves it to `deleted` (job rows are never removed, so
 * the count only grows and is exposed as a counter): a failure leaves its error code, a completion
 * its completed_at; a job deleted without either never ran (unpaid, upload never completed, or
 * deleted by its caller first). Null while the job is still under way.
 */
export function outcomeOf(g: Pick<JobGroup, 'status' | 'errorCode' | 'finished'>): JobOutcome | null {
  if (g.status === 'completed') return 'completed';
  if (g.status === 'failed') return 'failed';
  if (g.status !== 'deleted') return null;
  if (g.errorCode) return 'failed';
  return g.finished ? 'completed' : 'abandoned';
}

export interface JobSamples {
  /** cutroom_jobs{job_type,status}: jobs in each status now. */
  byStatus: Map<string, { job_type: string; status: string; n: number }>;
  /** cutroom_jobs_created_total{job_type}. */
  created: Map<string, number>;
  /** cutroom_jobs_finished_total{job_type,outcome}. */
  finished: Map<string, { job_type: string; outcome: JobOutcome; n: number }>;
  /** cutroom_jobs_failed_total{job_type,code}. */
  failed: Map<string, { job_type: string; code: string; n: number }>;
}

export function jobSamples(groups: readonly JobGroup[]): JobSamples {
  const out: JobSamples = { byStatus: new Map(), created: new Map(), finished: new Map(), failed: new Map() };
  const add = <T extends { n: number }>(map: Map<string, T>, key: string, init: Omit<T, 'n'>, n: number) => {
    const cur = map.get(key) ?? ({ ...init, n: 0 } as T);
    cur.n += n;
    map.set(key, cur);
  };
  for (const g of groups) {
    add(out.byStatus, `${g.jobType}\u0000${g.status}`, { job_type: g.jobType, status: g.status }, g.count);
    out.created.set(g.jobType, (out.created.get(g.jobType) ?? 0) + g.count);
    const outcome = outcomeOf(g);
    if (outcome) add(out.finished, `${g.jobType}\u0000${outcome}`, { job_type: g.jobType, outcome }, g.count);
    if (outcome === 'failed') add(out.failed, `${g.jobType}\u0000${g.errorCode}`, { job_type: g.jobType, code: g.errorCode ?? 'unknown' }, g.count);
  }
  return out;
}

/** One group of `ledger_entries`: (rail, kind, state), how many, and their amount in the rail's base unit. */
export interface LedgerGroup {
  rail: string;
  kind: string;
  state: string;
  count: number;
  amount: bigint;
}

/** Movements that take or return money to a payer; a `refund` is counted apart. */
const PAYMENT_KINDS = new Set(['charge', 'hold', 'capture', 'release']);
/** A ledger row that ended: it no longer moves (an open one is pending, or sending for chain refunds). */
const TERMINAL_STATES = new Set(['done', 'failed']);

/**
 * Base units per dollar: card amounts are USD cents, chain amounts USDC 6-decimal units (USDC
 * counted 1:1 as dollars). An unknown rail is left out of the dollar sums.
 */
export const UNITS_PER_DOLLAR: Readonly<Record<string, bigint>> = { card: 100n, chain: 1_000_000n };

export interface LedgerSamples {
  /** cutroom_payments_total{rail,kind,outcome} (outcome: done | failed). */
  payments: { rail: string; kind: string; outcome: string; n: number }[];
  /** cutroom_payments_dollars_total{rail,kind}: done movements only. */
  paymentDollars: { rail: string; kind: string; dollars: number }[];
  /** cutroom_refunds_total{rail,outcome}. */
  refunds: { rail: string; outcome: string; n: number }[];
  /** cutroom_refunds_dollars_total{rail}: done refunds only. */
  refundDollars: { rail: string; dollars: number }[];
  /** cutroom_ledger_open_entries{rail,kind,state}: rows still moving (pending, sending). */
  open: { rail: string; kind: string; state: string; n: number }[];
}

export function dollarsOf(rail: string, amount: bigint): number | null {
  const per = UNITS_PER_DOLLAR[rail];
  if (!per) return null;
  return Number(amount / per) + Number(amount % per) / Number(per);
}

export function ledgerSamples(groups: readonly LedgerGroup[]): LedgerSamples {
  const out: LedgerSamples = { payments: [], paymentDollars: [], refunds: [], refundDollars: [], open: [] };
  for (const g of groups) {
    if (!TERMINAL_STATES.has(g.state)) {
      out.open.push({ rail: g.rail, kind: g.kind, state: g.state, n: g.count });
      continue;
    }
    const dollars = g.state === 'done' ? dollarsOf(g.rail, g.amount) : null;
    if (g.kind === 'refund') {
      out.refunds.push({ rail: g.rail, outcome: g.state, n: g.count });
      if (dollars !== null) out.refundDollars.push({ rail: g.rail, dollars });
    } else if (PAYMENT_KINDS.has(g.kind)) {
      out.payments.push({ rail: g.rail, kind: g.kind, outcome: g.state, n: g.count });
      if (dollars !== null) out.paymentDollars.push({ rail: g.rail, kind: g.kind, dollars });
    }
  }
  return out;
}
