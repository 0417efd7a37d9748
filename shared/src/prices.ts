import type { JobType } from './job-types.ts';
import type { MediaKind } from './media-types.ts';

/**
 * The one price table (spec: Pricing). Card prices in USD cents, chain prices in USDC base units
 * (6 decimals: 1 USDC = 1_000_000). Integers only: money never touches a float.
 */
export interface Price {
  /** USD cents on the card rail. */
  cardCents: number;
  /** USDC base units on the chain rail; null where the product is card-only. */
  chainUnits: number | null;
}

const usdc = (dollars: string): number => {
  const [whole, frac = ''] = dollars.split('.');
  return Number(whole) * 1_000_000 + Number(frac.padEnd(6, '0'));
};

export const PRICES = {
  transcribe: { audio: { cardCents: 50, chainUnits: usdc('0.20') }, video: { cardCents: 100, chainUnits: usdc('0.70') } },
  summarize: { audio: { cardCents: 75, chainUnits: usdc('0.45') }, video: { cardCents: 125, chainUnits: usdc('0.95') } },
  find_clips: { audio: { cardCents: 200, chainUnits: usdc('1.70') }, video: { cardCents: 200, chainUnits: usdc('1.70') } },
  extract_clip: { cardCents: 50, chainUnits: usdc('0.20') },
  extract_vertical_clip: { cardCents: 50, chainUnits: usdc('0.20') },
  clips_vertical: { cardCents: 50, chainUnits: usdc('0.20') },
  clips_horizontal: { cardCents: 50, chainUnits: usdc('0.20') },
  publish_video: { cardCents: 175, chainUnits: usdc('1.75') },
  edit_from_transcript: { cardCents: 100, chainUnits: usdc('1.00') },
  clips_bundle_hold: { cardCents: 450, chainUnits: null },
  smoke_test: { cardCents: 1, chainUnits: usdc('0.01') },
} as const;

/** Price of one job. Upload-based jobs depend on the media kind; batches multiply per clip. */
export function priceOf(jobType: JobType, media: MediaKind, quantity = 1): Price {
  switch (jobType) {
    case 'transcribe':
    case 'summarize':
    case 'find_clips':
      return PRICES[jobType][media];
    case 'clips_vertical': {
      const p = PRICES.clips_vertical;
      return { cardCents: p.cardCents * quantity, chainUnits: p.chainUnits * quantity };
    }
    case 'extract_clip':
    case 'extract_vertical_clip':
    case 'publish_video':
      return PRICES[jobType];
  }
}
