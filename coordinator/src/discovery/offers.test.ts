import { describe, expect, it } from 'vitest';
import { PRICES } from '@cutroom/shared/prices';
import { MCP_TOOLS } from '../mcp/catalog.ts';
import { offers, priceText } from './offers.ts';

const byId = new Map(offers().map((o) => [o.id, o]));
const usdc = (units: number | null) => (Number(units) / 1e6).toFixed(2);
const usd = (cents: number) => (cents / 100).toFixed(2);

describe('offers (what an agent buys, from MCP_TOOLS and the price table)', () => {
  it('has one offer per paid MCP tool and none for a free one', () => {
    expect([...byId.keys()]).toEqual(MCP_TOOLS.filter((t) => t.price.kind !== 'free').map((t) => t.name));
  });

  it('covers every product the agent card must sell', () => {
    for (const id of [
      'transcribe',
      'summarize',
      'find_clips',
      'extract_clip',
      'extract_vertical_clip',
      'clips_vertical',
      'clips_horizontal',
      'clips_from_job',
      'clips_from_video',
      'clips_youtube',
      'edit_from_transcript',
      'mpp_smoke_test',
    ])
      expect(byId.has(id), id).toBe(true);
  });

  it('prices each offer with the amounts of PRICES, on the rails it is sold on', () => {
    const transcribe = byId.get('transcribe')!;
    expect(transcribe.prices.map((r) => [r.media, r.chain?.amount, r.card?.amount])).toEqual([
      ['audio', String(PRICES.transcribe.audio.chainUnits), String(PRICES.transcribe.audio.cardCents)],
      ['video', String(PRICES.transcribe.video.chainUnits), String(PRICES.transcribe.video.cardCents)],
    ]);
    expect(priceText(transcribe)).toContain(
      `audio ${usdc(PRICES.transcribe.audio.chainUnits)} USDC (chain) or ${usd(PRICES.transcribe.audio.cardCents)} USD (card)`,
    );
    const edit = byId.get('edit_from_transcript')!;
    expect(edit.prices[0]!.card?.amount).toBe(String(PRICES.edit_from_transcript.cardCents));
    expect(edit.rest).toEqual({ method: 'POST', path: '/api/v1/jobs', job_type: 'edit_from_transcript', rails: ['chain', 'card'] });
    expect(byId.get('mpp_smoke_test')!.prices[0]!.chain!.amount).toBe(String(PRICES.smoke_test.chainUnits));
  });

  it('offers no card price the card rail cannot charge: the 0.01 smoke test is chain only', () => {
    const smoke = byId.get('mpp_smoke_test')!;
    expect(smoke.prices).toMatchObject([{ product: 'smoke_test', card: null, note: expect.stringMatching(/card minimum/) }]);
    expect(smoke.mcp.rails).toEqual(['chain']);
    expect(smoke.rest).toEqual({ method: 'GET', path: '/api/test', rails: ['chain'] });
    expect(priceText(smoke)).toContain('0.01 USDC (chain), chain only');
    expect(priceText(smoke)).not.toContain('USD (card)');
    for (const o of byId.values()) for (const r of o.prices) if (r.card) expect(Number(r.card.amount), o.id).toBeGreaterThanOrEqual(50);
  });

  it('sells the agent products as a card-only hold through MCP only', () => {
    for (const id of ['clips_from_video', 'clips_youtube']) {
      const o = byId.get(id)!;
      expect(o.unit).toBe('hold');
      expect(o.prices).toMatchObject([{ product: id, chain: null, card: { amount: String(PRICES.clips_bundle_hold.cardCents), display: '4.50' } }]);
      expect(o.mcp.rails).toEqual(['card']);
      expect(o.rest).toBeNull();
      expect(priceText(o)).toContain('card only: a hold of 4.50 USD');
    }
  });

  it('offers the chain per-clip rate through MCP only: the REST derivatives route is card only', () => {
    const vertical = byId.get('clips_vertical')!;
    expect(vertical.unit).toBe('per_clip');
    expect(vertical.mcp.rails).toEqual(['chain', 'card']);
    expect(vertical.rest).toEqual({ method: 'POST', path: '/api/v1/jobs/{parent_job_id}/derivatives', job_type: 'clips_vertical', rails: ['card'] });
    expect(priceText(vertical)).toContain('chain rate through MCP only');
    expect(byId.get('clips_horizontal')!.rest).toBeNull();
    expect(byId.get('clips_from_job')!.rest).toBeNull();
  });
});
