import { describe, expect, it } from 'vitest';
import { availableJobTypes, JOB_TYPES } from '@cutroom/shared/job-types';
import { priceTable } from './discovery.ts';

describe('the price table (mpp.json, the docs page, the offers)', () => {
  it('has a row for every price of every job type this build sells, from JOB_TYPES, and nothing else but the smoke test', () => {
    const table = priceTable();
    const expected: string[] = [];
    for (const type of availableJobTypes()) {
      const p = JOB_TYPES[type].pricing;
      const prices = p.by === 'media' ? Object.entries(p.prices).map(([media, price]) => ({ media, price })) : [{ media: undefined, price: p.price }];
      for (const { media, price } of prices) {
        expected.push(`${type}${media ? `/${media}` : ''}`);
        const r = table.find((row) => row.product === type && row.media === media);
        expect(r, `${type} ${media ?? ''}`).toBeDefined();
        expect(r!.chain?.amount ?? null, `${type} ${media ?? ''} chain`).toBe(price!.chainUnits == null ? null : String(price!.chainUnits));
        if (r!.card) expect(r!.card.amount).toBe(String(price!.cardCents));
      }
    }
    expect(table.map((r) => `${r.product}${r.media ? `/${r.media}` : ''}`)).toEqual([...expected, 'smoke_test']);
    // find_clips takes audio too, at its video price (the row the hand-written table had left out).
    expect(table.find((r) => r.product === 'find_clips' && r.media === 'audio')).toMatchObject({ card: { display: '2.00' }, chain: { display: '1.70' } });
  });

  it('says how a flat price counts, and where a type is sold on fewer rails', () => {
    const t = priceTable();
    expect(t.find((r) => r.product === 'extract_clip')?.unit).toBe('per call');
    expect(t.find((r) => r.product === 'clips_horizontal')).toMatchObject({ unit: 'per clip', note: expect.stringMatching(/only through MCP/) });
    expect(t.find((r) => r.product === 'clips_from_video')).toMatchObject({
      unit: expect.stringMatching(/hold/),
      chain: null,
      note: expect.stringMatching(/card only/),
    });
  });
});
