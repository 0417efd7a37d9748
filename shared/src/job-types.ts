import { z } from 'zod';
import type { MediaKind } from './media-types.ts';

/**
 * Every job type: the spec's CreateJobRequest list, then two this service adds (README: "REST
 * extensions"): `edit_from_transcript` (the spec's agent-surface edit, also over REST) and
 * `clips_horizontal` (the 16:9 batch, MCP only in the spec), then the agent card's products
 * `clips_from_video` and `clips_youtube` (shared/src/products.ts; service layer for MCP only).
 * Enum members are only ever added.
 */
export const JobType = z.enum([
  'transcribe',
  'summarize',
  'find_clips',
  'extract_clip',
  'extract_vertical_clip',
  'publish_video',
  'clips_vertical',
  'edit_from_transcript',
  'clips_horizontal',
  'clips_from_video',
  'clips_youtube',
]);
export type JobType = z.infer<typeof JobType>;

/** Job status values exactly as the spec lists them. `processing` is never stored. */
export const JobStatus = z.enum(['pending', 'uploading', 'extracting_audio', 'transcribing', 'analyzing', 'publishing', 'completed', 'failed', 'deleted']);
export type JobStatus = z.infer<typeof JobStatus>;

/** Statuses in which a job is queued for, or held by, an agent: the pipeline stages. */
export const ACTIVE_STATUSES = ['extracting_audio', 'transcribing', 'analyzing', 'publishing'] as const satisfies readonly JobStatus[];
export type ActiveStatus = (typeof ACTIVE_STATUSES)[number];

export const PaymentStatus = z.enum(['pending', 'paid', 'refunded', 'paid_by_parent']);
export type PaymentStatus = z.infer<typeof PaymentStatus>;

export const SessionStatus = z.enum(['created', 'paid', 'uploading', 'processing', 'completed', 'expired']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/**
 * The one price shape (spec: Pricing). Card prices in USD cents, chain prices in USDC base units
 * (6 decimals: 1 USDC = 1_000_000). Integers only: money never touches a float.
 */
export interface Price {
  /** USD cents on the card rail. */
  cardCents: number;
  /** USDC base units on the chain rail; null where the product is card-only. */
  chainUnits: number | null;
}

export const usdcUnits = (dollars: string): number => {
  const [whole, frac = ''] = dollars.split('.');
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
};
const price = (cardCents: number, chainDollars: string): Price => ({ cardCents, chainUnits: usdcUnits(chainDollars) });
/** Card-only: no chain price (the agent products hold a card authorization). */
const cardOnly = (cardCents: number): Price => ({ cardCents, chainUnits: null });

/**
 * What a job takes as its input: an upload (next_endpoint `upload-url`) or a parent job's stored
 * source (next_endpoint `process`), naming which parent job types it may cut from.
 */
export type JobInput = { kind: 'upload'; media: readonly MediaKind[] } | { kind: 'parent'; parentTypes: readonly JobType[] };

/**
 * Price keys: by media kind for uploads, flat per call, per item of a batch, or a card hold of the
 * worst case (`price`) of which only what was delivered is captured (the agent products).
 */
export type JobPricing =
  | { by: 'media'; prices: Partial<Record<MediaKind, Price>> }
  | { by: 'call'; price: Price }
  | { by: 'item'; price: Price }
  | { by: 'hold'; price: Price };

export interface JobTypeFacts {
  /** What it gives a caller, in one line (the docs' job-types tables are generated from it). */
  summary: string;
  input: JobInput;
  pricing: JobPricing;
  /** Source/output retention after completion (spec: Limits). */
  retentionHours: number;
  /**
   * Whether this build processes the type end to end. Creating any other type is refused with a
   * 400 that names it, until its issue lands: better an honest refusal than a job that can never finish.
   */
  available: boolean;
}

/**
 * The one table of facts about each job type that callers, prices and both processes share.
 * Everything else about a type (schema, pipeline, outputs) lives in its coordinator definition
 * (coordinator/src/job-types/<type>.ts), which reads this row.
 */
export const JOB_TYPES: Readonly<Record<JobType, JobTypeFacts>> = {
  transcribe: {
    summary: 'Whisper transcript in SRT, VTT, TXT, JSON v1, word-level JSON v2 and the `edit` format',
    input: { kind: 'upload', media: ['audio', 'video'] },
    pricing: { by: 'media', prices: { audio: price(50, '0.20'), video: price(100, '0.70') } },
    retentionHours: 24,
    available: true,
  },
  summarize: {
    summary: 'transcript plus overview, key points and chapters (summary v1)',
    input: { kind: 'upload', media: ['audio', 'video'] },
    pricing: { by: 'media', prices: { audio: price(75, '0.45'), video: price(125, '0.95') } },
    retentionHours: 24,
    available: true,
  },
  find_clips: {
    summary:
      'transcript plus ranked clip candidates with scores, reasons, titles and hooks (clips v1); optional `query`, and `target` for short, medium or long clips',
    // The spec prices find_clips for video only; audio is accepted at the same price.
    input: { kind: 'upload', media: ['audio', 'video'] },
    pricing: { by: 'media', prices: { audio: price(200, '1.70'), video: price(200, '1.70') } },
    retentionHours: 72,
    available: true,
  },
  extract_clip: {
    summary: 'one frame-accurate mp4 of 1-50 segments, with the transcript re-timed to it',
    input: { kind: 'parent', parentTypes: ['transcribe', 'summarize', 'find_clips'] },
    pricing: { by: 'call', price: price(50, '0.20') },
    retentionHours: 24,
    available: true,
  },
  extract_vertical_clip: {
    summary: 'one 9:16 mp4 of a window, reframed on the subject, loudness-normalized',
    input: { kind: 'parent', parentTypes: ['transcribe', 'summarize', 'find_clips'] },
    pricing: { by: 'call', price: price(50, '0.20') },
    retentionHours: 24,
    available: true,
  },
  publish_video: {
    summary: "the video, with its transcript as captions, on the caller's connected video host channel",
    input: { kind: 'parent', parentTypes: ['transcribe', 'summarize'] },
    pricing: { by: 'call', price: price(175, '1.75') },
    retentionHours: 24,
    // Run by the coordinator's publish worker, not by agents (coordinator/src/publishing/, ADR 0006).
    available: true,
  },
  clips_vertical: {
    summary: 'a bundle of 1-5 vertical clips, one purchase',
    input: { kind: 'parent', parentTypes: ['find_clips'] },
    pricing: { by: 'item', price: price(50, '0.20') },
    retentionHours: 24,
    // Created only by POST /jobs/{parent_job_id}/derivatives (coordinator/src/composites/bundles/create-bundle.ts), never by POST /jobs.
    available: true,
  },
  edit_from_transcript: {
    summary: 'a video edited by editing its transcript (delete words or lines, move lines)',
    input: { kind: 'parent', parentTypes: ['transcribe', 'summarize', 'find_clips'] },
    pricing: { by: 'call', price: price(100, '1.00') },
    retentionHours: 24,
    available: true,
  },
  clips_horizontal: {
    summary: "a bundle of 1-5 16:9 clips in the source's framing",
    input: { kind: 'parent', parentTypes: ['find_clips'] },
    pricing: { by: 'item', price: price(50, '0.20') },
    retentionHours: 24,
    // Created only by the MCP tools clips_horizontal / clips_from_job (service/bundle-calls.ts), never over REST.
    available: true,
  },
  // The agent products (shared/src/products.ts, coordinator/src/composites/products/): an upload that
  // becomes a find_clips child and up to five clip children. A hold of USD 4.50 (the worst case:
  // find_clips 2.00 + 5 clips × 0.50); what was delivered is captured. Created only by the
  // service layer (service/product-calls.ts, for MCP); no agent definition of their own.
  clips_from_video: {
    summary: 'one call: upload, find_clips, then up to 5 vertical clips; charged for what is delivered',
    input: { kind: 'upload', media: ['video'] },
    pricing: { by: 'hold', price: cardOnly(450) },
    retentionHours: 72,
    available: true,
  },
  clips_youtube: {
    summary: 'the same as clips_from_video, with 16:9 clips',
    input: { kind: 'upload', media: ['video'] },
    pricing: { by: 'hold', price: cardOnly(450) },
    retentionHours: 72,
    available: true,
  },
};

/** Job types this build runs, in the enum's order. */
export const availableJobTypes = (): JobType[] => JobType.options.filter((t) => JOB_TYPES[t].available);

/**
 * Price of one job. Upload-based jobs depend on the media kind (null when the type does not take
 * that kind); batches multiply per item.
 */
export function priceOf(jobType: JobType, media: MediaKind | null, quantity = 1): Price | null {
  const p = JOB_TYPES[jobType].pricing;
  switch (p.by) {
    case 'media':
      return (media && p.prices[media]) ?? null;
    case 'call':
    case 'hold':
      return p.price;
    case 'item':
      return { cardCents: p.price.cardCents * quantity, chainUnits: p.price.chainUnits == null ? null : p.price.chainUnits * quantity };
  }
}
