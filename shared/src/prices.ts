import { JOB_TYPES, usdcUnits, type Price } from './job-types.ts';

export { priceOf, type Price } from './job-types.ts';

const media = (t: 'transcribe' | 'summarize' | 'find_clips') => {
  const p = JOB_TYPES[t].pricing;
  if (p.by !== 'media') throw new Error(`${t} is not priced by media`);
  return p.prices as Record<'audio' | 'video', Price>;
};
const flat = (
  t: 'extract_clip' | 'extract_vertical_clip' | 'publish_video' | 'clips_vertical' | 'clips_horizontal' | 'edit_from_transcript' | 'clips_from_video',
): Price => {
  const p = JOB_TYPES[t].pricing;
  if (p.by === 'media') throw new Error(`${t} is priced by media`);
  return p.price;
};

/**
 * The price list as mpp.json shows it: job types from their row in JOB_TYPES (the one place
 * their prices are written), plus the products that are not job types (MCP-only batches, the
 * agent surface's edit and bundle hold, the smoke test).
 */
export const PRICES = {
  transcribe: media('transcribe'),
  summarize: media('summarize'),
  find_clips: media('find_clips'),
  extract_clip: flat('extract_clip'),
  extract_vertical_clip: flat('extract_vertical_clip'),
  clips_vertical: flat('clips_vertical'),
  publish_video: flat('publish_video'),
  clips_horizontal: flat('clips_horizontal'),
  edit_from_transcript: flat('edit_from_transcript'),
  // The agent products' hold (clips_from_video and clips_youtube hold the same worst case).
  clips_bundle_hold: flat('clips_from_video'),
  smoke_test: { cardCents: 1, chainUnits: usdcUnits('0.01') },
} as const satisfies Record<string, Price | Record<'audio' | 'video', Price>>;
