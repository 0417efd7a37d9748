// Hold-then-capture (coordinator/src/payments/holds.ts) through a real coordinator context:
// its card rail is the official stripe client pointed at the processor fake, its ledger the
// stack's Postgres. Each case uses a fresh job id, hence fresh processor idempotency keys.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ledgerEntries } from '../coordinator/src/db/schema.ts';
import { AppError } from '../coordinator/src/lib/app-error.ts';
import { placeHold, settleHold } from '../coordinator/src/payments/holds.ts';
import type { StripeFake } from './fakes/stripe/index.ts';
import { startStack, type Stack } from './harness/stack.ts';

describe('card holds', () => {
  let stack: Stack;
  let fake: StripeFake;

  beforeAll(async () => {
    stack = await startStack({ billing: true, storage: 'local', agents: 0 });
    fake = stack.billing!.stripe;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const ctx = () => stack.coordinator.ctx;
  const ledger = async (jobId: string) =>
    (await ctx().db.select().from(ledgerEntries).where(eq(ledgerEntries.jobId, jobId)).orderBy(ledgerEntries.id)).map((r) => ({
      kind: r.kind,
      amount: r.amount,
      state: r.state,
      reference: r.reference,
    }));
  /** Processor calls on one PaymentIntent that really ran (an idempotent replay is not a second call). */
  const executed = (piId: string, verb: 'capture' | 'cancel') =>
    fake.state.requests.filter((r) => r.path === `/v1/payment_intents/${piId}/${verb}` && !r.replayed && r.status === 200).length;

  /** The worst case of a clips-from-video bundle, held on an SPT an agent granted up to USD 10. */
  async function hold450() {
    const jobId = randomUUID();
    const spt = fake.createSharedPaymentToken({ maxAmount: 1000 }).id;
    const hold = await placeHold(ctx(), { jobId, spt, amountCents: 450 });
    expect(fake.state.paymentIntents.get(hold.paymentIntentId)).toMatchObject({ status: 'requires_capture', amount_capturable: 450, capture_method: 'manual' });
    return { jobId, spt, hold };
  }

  it('captures what was delivered, releases the rest, and a repeated settle captures nothing more', async () => {
    const { jobId, spt, hold } = await hold450();
    expect(hold).toEqual({ jobId, paymentIntentId: expect.stringMatching(/^pi_/), amountCents: 450 });
    // Placing the same job's hold again is the same authorization, not a second one.
    expect(await placeHold(ctx(), { jobId, spt, amountCents: 450 })).toEqual(hold);
    expect(fake.state.sharedPaymentTokens.get(spt)!.amountUsed).toBe(450);

    expect(await settleHold(ctx(), hold, 100)).toEqual({ capturedCents: 100, releasedCents: 350 });
    expect(fake.state.paymentIntents.get(hold.paymentIntentId)).toMatchObject({ status: 'succeeded', amount_received: 100, amount_capturable: 0 });
    // The released 350 went back to the agent's grant.
    expect(fake.state.sharedPaymentTokens.get(spt)!.amountUsed).toBe(100);
    const rows = [
      { kind: 'hold', amount: 450n, state: 'done', reference: hold.paymentIntentId },
      { kind: 'capture', amount: 100n, state: 'done', reference: hold.paymentIntentId },
      { kind: 'release', amount: 350n, state: 'done', reference: hold.paymentIntentId },
    ];
    expect(await ledger(jobId)).toEqual(rows);

    // A retried settle (a crash after capturing, say) replays the processor's answer and the ledger rows.
    expect(await settleHold(ctx(), hold, 100)).toEqual({ capturedCents: 100, releasedCents: 350 });
    expect(executed(hold.paymentIntentId, 'capture')).toBe(1);
    expect(fake.state.paymentIntents.get(hold.paymentIntentId)!.amount_received).toBe(100);
    expect(await ledger(jobId)).toEqual(rows);
  });

  it('cancels the whole hold when nothing was delivered', async () => {
    const { jobId, spt, hold } = await hold450();
    expect(await settleHold(ctx(), hold, 0)).toEqual({ capturedCents: 0, releasedCents: 450 });
    expect(fake.state.paymentIntents.get(hold.paymentIntentId)).toMatchObject({ status: 'canceled', amount_received: 0, amount_capturable: 0 });
    expect(fake.state.sharedPaymentTokens.get(spt)!.amountUsed).toBe(0);
    expect(executed(hold.paymentIntentId, 'capture')).toBe(0);
    expect(await ledger(jobId)).toEqual([
      { kind: 'hold', amount: 450n, state: 'done', reference: hold.paymentIntentId },
      { kind: 'release', amount: 450n, state: 'done', reference: hold.paymentIntentId },
    ]);
    // Settling again finds it already released and books nothing new.
    expect(await settleHold(ctx(), hold, 0)).toEqual({ capturedCents: 0, releasedCents: 450 });
    expect(await ledger(jobId)).toHaveLength(2);
  });

  it('refuses to capture more than the hold (or a fraction of a cent) before calling the processor', async () => {
    const { jobId, hold } = await hold450();
    for (const cents of [451, 10_000, -1, 12.5]) {
      const err = await settleHold(ctx(), hold, cents).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, String(cents)).toBeInstanceOf(AppError);
      expect((err as AppError).status).toBeGreaterThanOrEqual(400);
      expect((err as AppError).status).toBeLessThan(500);
    }
    expect(executed(hold.paymentIntentId, 'capture')).toBe(0);
    expect(fake.state.paymentIntents.get(hold.paymentIntentId)).toMatchObject({ status: 'requires_capture', amount_capturable: 450 });
    expect(await ledger(jobId)).toEqual([{ kind: 'hold', amount: 450n, state: 'done', reference: hold.paymentIntentId }]);
    // The hold is still good for a valid settle afterwards.
    expect(await settleHold(ctx(), hold, 450)).toEqual({ capturedCents: 450, releasedCents: 0 });
  });
});
