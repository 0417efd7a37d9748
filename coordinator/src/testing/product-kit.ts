import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { ClipCandidate, ClipsV1 } from '@cutroom/shared/clips/clips-v1';
import { jobOutputs, jobs } from '../db/schema.ts';
import { failJob } from '../jobs/fail-job.ts';
import { transitionJob } from '../jobs/transition-job.ts';
import { createSessionCall } from '../service/index.ts';
import type { EngineCtx } from './engine-ctx.ts';

/**
 * Engine-test helpers for agent products (composites/products/). Children end here through the
 * same transitions the agents' calls use (so the job-ended hook marks the product's step due) but
 * without an agent, hence without the after-commit nudge: the test runs the due step itself.
 */

export async function productCreds(ctx: EngineCtx) {
  const s = await createSessionCall(ctx);
  return { bearer: s.session_token, authorization: undefined, paymentSignature: undefined, resourceUrl: 'http://test/mcp', sessionId: s.session_id };
}

export function candidate(id: string, score: number, start: number, end: number): ClipCandidate {
  const c = { stands_alone: 70, hook_strength: 60, coherence: 80, information_density: 50, pace: 90, silence: 95 };
  return {
    id,
    rank: 1,
    start,
    end,
    duration: end - start,
    first_sentence: 0,
    last_sentence: 9,
    title: `Moment ${id}`,
    hook: 'Why would anyone do this?',
    summary: 'A moment of the talk.',
    texts_source: { title: 'extractive', hook: 'extractive', summary: 'extractive' },
    text: 'Why would anyone do this? Because.',
    score,
    score_breakdown: { ...c, weights: { stands_alone: 0.25, hook_strength: 0.2, coherence: 0.2, information_density: 0.15, pace: 0.1, silence: 0.1 } },
    reason: 'strong coherence',
    match: null,
  };
}

/** The find_clips child completes on a 400 s video with these candidates in its clips v1 document. */
export async function completeFindClips(ctx: EngineCtx, findId: string, candidates: ClipCandidate[]): Promise<void> {
  const now = ctx.clock.now();
  const doc: ClipsV1 = {
    version: 1,
    mode: 'best',
    query: null,
    source: { duration: 400, language: 'en', sentences: 40 },
    generator: {
      embedder: 'all-MiniLM-L6-v2',
      text_generator: 'extractive',
      segmentation: { method: 'texttiling', window: 3, boundaries: [] },
      timings_ms: { sentences: 1, embeddings: 1, segmentation: 1, candidates: 1, generation: 1, total: 5 },
    },
    notes: [],
    candidates,
  };
  const key = `jobs/${findId}/outputs/a/clips`;
  await ctx.blobs.put(key, Buffer.from(JSON.stringify(doc)), 'application/json');
  await ctx.db.transaction(async (tx) => {
    await tx.update(jobs).set({ status: 'analyzing' }).where(eq(jobs.id, findId));
    await transitionJob(tx, {
      jobId: findId,
      from: 'analyzing',
      to: 'completed',
      reason: 'completed',
      now,
      patch: { completedAt: now, durationSeconds: 400, media: { duration_seconds: 400, has_video: true, has_audio: true, format_name: 'mov,mp4' } },
    });
    await tx.insert(jobOutputs).values({ id: randomUUID(), jobId: findId, role: 'clips', storageKey: key, contentType: 'application/json', createdAt: now });
  });
}

/** A child ends: completed (as end-attempt records it) or failed (fail-job, as the failure policy does). */
export async function endChild(ctx: EngineCtx, childId: string, ok: boolean): Promise<void> {
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    if (!ok) {
      await failJob(tx, { jobId: childId, now, code: 'media_invalid', message: `child ${childId.slice(0, 8)} could not be cut` });
      return;
    }
    await transitionJob(tx, { jobId: childId, from: 'analyzing', to: 'completed', reason: 'completed', now, patch: { completedAt: now } });
  });
}

/** A product's clip children in the order of its `clips` (best candidate first). */
export async function clipsOf(ctx: EngineCtx, productId: string) {
  const [product] = await ctx.db.select().from(jobs).where(eq(jobs.id, productId)).limit(1);
  const order = ((product?.params['clips'] ?? []) as { job_id: string }[]).map((c) => c.job_id);
  const rows = await ctx.db.select().from(jobs).where(eq(jobs.parentJobId, productId));
  return order.map((id) => rows.find((r) => r.id === id)!);
}
