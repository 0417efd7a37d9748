// Invariants checked after every chaos run, from Postgres (the truth) and the chain (the money).
import { and, eq, inArray } from 'drizzle-orm';
import { createPublicClient, erc20Abi, http, parseAbiItem, type Hex } from 'viem';
import { jobAttempts, jobOutputs, jobs } from '../../coordinator/src/db/schema.ts';
import { ledgerEntries } from '../../coordinator/src/db/payments-schema.ts';
import type { Stack } from '../harness/stack.ts';

export type JobVerdict = 'completed' | 'failed_refunded' | 'stuck';

export interface JobCheck {
  id: string;
  verdict: JobVerdict;
  /** more than one completed attempt, outputs not at the completing attempt's keys, or a role twice */
  duplicate: boolean;
  /** more than one charge row (or a charge that is not done) for the job */
  doubleCharge: boolean;
  problems: string[];
  /** the job's failure code when it failed */
  errorCode?: string | null;
}

const FINAL = new Set(['completed', 'failed']);

/** Waits until every job is final (completed, or failed with its refund done) or `boundMs` has passed, then checks each. */
export async function checkJobs(stack: Stack, ids: string[], boundMs: number): Promise<JobCheck[]> {
  const db = stack.coordinator.ctx.db;
  const deadline = Date.now() + boundMs;
  for (;;) {
    const rows = await db.select().from(jobs).where(inArray(jobs.id, ids));
    const refunds = await db
      .select()
      .from(ledgerEntries)
      .where(and(inArray(ledgerEntries.jobId, ids), eq(ledgerEntries.kind, 'refund')));
    const settled = rows.every((j) => j.status === 'completed' || (j.status === 'failed' && refunds.some((r) => r.jobId === j.id && r.state === 'done')));
    if ((settled && rows.length === ids.length) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const out: JobCheck[] = [];
  for (const id of ids) {
    const problems: string[] = [];
    const [job] = await db.select().from(jobs).where(eq(jobs.id, id));
    const attempts = await db.select().from(jobAttempts).where(eq(jobAttempts.jobId, id));
    const outputs = await db.select().from(jobOutputs).where(eq(jobOutputs.jobId, id));
    const ledger = await db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, id));
    const charges = ledger.filter((l) => l.kind === 'charge');
    const refunds = ledger.filter((l) => l.kind === 'refund');
    let verdict: JobVerdict = 'stuck';
    let duplicate = false;
    const doubleCharge = charges.length !== 1 || charges[0]!.state !== 'done';
    if (doubleCharge) problems.push(`charges: ${JSON.stringify(charges.map((c) => [c.state, String(c.amount)]))}`);
    if (!job) problems.push('job row missing');
    else if (!FINAL.has(job.status)) problems.push(`status ${job.status} after the bound`);
    else if (job.status === 'completed') {
      verdict = 'completed';
      const done = attempts.filter((a) => a.outcome === 'completed');
      const roles = outputs.map((o) => o.role);
      if (done.length !== 1) {
        duplicate = true;
        problems.push(`${done.length} completed attempts`);
      }
      if (new Set(roles).size !== roles.length || roles.length === 0) {
        duplicate = true;
        problems.push(`output roles ${JSON.stringify(roles)}`);
      }
      const keys = outputs
        .flatMap((o) => [o.storageKey, ...Object.values(o.meta ?? {})])
        .filter((k): k is string => typeof k === 'string' && k.startsWith('jobs/'));
      if (done[0] && keys.some((k) => !k.includes(`/outputs/${done[0]!.id}/`))) {
        duplicate = true;
        problems.push(`output keys not the completing attempt's: ${JSON.stringify(keys)}`);
      }
      if (refunds.length > 0) problems.push(`a completed job has ${refunds.length} refund rows`);
    } else {
      const done = refunds.filter((r) => r.state === 'done');
      const paid = charges.reduce((s, c) => s + c.amount, 0n);
      const back = done.reduce((s, r) => s + r.amount, 0n);
      if (job.paymentStatus === 'refunded' && done.length === 1 && back === paid) verdict = 'failed_refunded';
      else
        problems.push(
          `failed (${job.errorCode}) with payment ${job.paymentStatus}, refunds ${JSON.stringify(refunds.map((r) => [r.state, String(r.amount)]))}, charged ${paid}`,
        );
      if (done.length > 1) duplicate = true;
    }
    out.push({ id, verdict, duplicate, doubleCharge, problems, errorCode: job?.errorCode });
  }
  return out;
}

/**
 * The chain agrees with the ledger: the payer's Transfer logs out (to anyone) sum to the done
 * charges, its Transfer logs in sum to the done refunds, and its balance is the start balance
 * less charges plus refunds. Answers the problems found (empty when all match).
 */
export async function checkChain(stack: Stack, startBalance: bigint): Promise<string[]> {
  const billing = stack.billing!;
  const payer = billing.payer.address as Hex;
  const chain = createPublicClient({ transport: http(billing.anvil.rpcUrl) });
  const transfer = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');
  const [outLogs, inLogs, balance] = await Promise.all([
    chain.getLogs({ address: billing.token, event: transfer, args: { from: payer }, fromBlock: 0n }),
    chain.getLogs({ address: billing.token, event: transfer, args: { to: payer }, fromBlock: 0n }),
    chain.readContract({ address: billing.token, abi: erc20Abi, functionName: 'balanceOf', args: [payer] }),
  ]);
  const sum = (logs: { args: { value?: bigint } }[]) => logs.reduce((s, l) => s + (l.args.value ?? 0n), 0n);
  // Minting (from the zero address) is how the payer was funded: not a refund.
  const zero = '0x0000000000000000000000000000000000000000';
  const refundedOnChain = sum(inLogs.filter((l) => l.args.from?.toLowerCase() !== zero));
  const paidOnChain = sum(outLogs);
  const ledger = await stack.coordinator.ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.rail, 'chain'));
  const charged = ledger.filter((l) => l.kind === 'charge' && l.state === 'done').reduce((s, l) => s + l.amount, 0n);
  const refunded = ledger.filter((l) => l.kind === 'refund' && l.state === 'done').reduce((s, l) => s + l.amount, 0n);
  const problems: string[] = [];
  if (paidOnChain !== charged) problems.push(`payer sent ${paidOnChain} on the chain, the ledger charged ${charged}`);
  if (refundedOnChain !== refunded) problems.push(`payer received ${refundedOnChain} on the chain, the ledger refunded ${refunded}`);
  if (balance !== startBalance - charged + refunded) problems.push(`payer balance ${balance}, expected ${startBalance - charged + refunded}`);
  return problems;
}
