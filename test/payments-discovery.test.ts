import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validate } from 'mppx/discovery';
import { PRICES } from '@cutroom/shared/prices';
import { startStack, type Stack } from './harness/stack.ts';

/**
 * Payment discovery with billing on: /.well-known/mpp.json carries the authoritative price
 * table and rails; every paid operation of the generated /openapi.json has `x-payment-info`
 * and a declared 402, and the document passes mppx's own discovery validator.
 */
describe('payment discovery', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ billing: true, storage: 'local', agents: 0 });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('serves the price table, rails and wire method ids in mpp.json', async () => {
    const doc = (await stack.api.call('GET', '/.well-known/mpp.json')).body;
    expect(doc.protocols).toEqual(['mpp', 'x402']);
    const chain = doc.rails.find((r: any) => r.rail === 'chain');
    expect(chain).toMatchObject({ method: 'evm', currency: 'USDC', decimals: 6, network: `eip155:${stack.billing!.anvil.chainId}` });
    expect(chain.asset.toLowerCase()).toBe(stack.billing!.token.toLowerCase());
    expect(doc.rails.find((r: any) => r.rail === 'card')).toMatchObject({ method: 'stripe', currency: 'usd', hosted_checkout: true });
    const price = (product: string, media?: string) => doc.prices.find((p: any) => p.product === product && (media === undefined || p.media === media));
    expect(price('transcribe', 'audio')).toMatchObject({ chain: { amount: '200000', display: '0.20' }, card: { amount: '50', display: '0.50' } });
    expect(price('transcribe', 'video')).toMatchObject({ chain: { display: '0.70' }, card: { display: '1.00' } });
    expect(price('summarize', 'video')).toMatchObject({ chain: { display: '0.95' }, card: { display: '1.25' } });
    expect(price('find_clips')).toMatchObject({ chain: { display: '1.70' }, card: { display: '2.00' } });
    expect(price('publish_video')).toMatchObject({ chain: { display: '1.75' }, card: { display: '1.75' } });
    expect(price('clips_from_video')).toMatchObject({ chain: null, card: { display: '4.50' } });
    // 0.01 is below the card minimum: the card rail cannot charge it, so no card price is offered for it.
    expect(price('smoke_test')).toMatchObject({
      chain: { amount: String(PRICES.smoke_test.chainUnits) },
      card: null,
      note: expect.stringMatching(/card minimum/),
    });
    const cardMin = Number(doc.rails.find((r: any) => r.rail === 'card').min_amount);
    for (const row of doc.prices) if (row.card) expect(Number(row.card.amount), row.product).toBeGreaterThanOrEqual(cardMin);
    expect(price('find_clips', 'audio')).toMatchObject({ chain: { display: '1.70' }, card: { display: '2.00' } });
    expect(doc.prices).toHaveLength(15);
  });

  it('annotates every paid operation and passes the mppx discovery validator', async () => {
    const doc = (await stack.api.call('GET', '/openapi.json')).body;
    const errors = validate(doc).filter((e) => e.severity === 'error');
    expect(errors, JSON.stringify(errors)).toEqual([]);
    for (const [path, method] of [
      ['/api/v1/jobs', 'post'],
      ['/api/v1/jobs/{id}/upload-url', 'get'],
      ['/api/v1/jobs/{id}/complete-upload', 'post'],
      ['/api/test', 'get'],
    ] as const) {
      const op = doc.paths[path][method];
      expect(op['x-payment-info'], `${method} ${path}`).toMatchObject({ protocols: ['mpp', 'x402'] });
      expect(op['x-payment-info'].offers.every((o: any) => o.intent === 'charge')).toBe(true);
      expect(op.responses['402'].content['application/problem+json'].schema.properties.challengeId).toBeDefined();
    }
    const jobs = doc.paths['/api/v1/jobs'].post['x-payment-info'];
    expect(jobs.offers.every((o: any) => o.amount === null)).toBe(true);
    expect(jobs.price).toEqual({ dynamic: true, min: '0.20', max: '1.70', currency: 'USDC' });
    expect(jobs.offers.map((o: any) => o.method)).toEqual(['evm', 'stripe']);
    expect(doc.paths['/api/v1/jobs/{id}'].get['x-payment-info']).toBeUndefined();
    // The smoke test's 0.01 is chain only: no card offer below the card minimum.
    expect(doc.paths['/api/test'].get['x-payment-info'].offers.map((o: any) => o.method)).toEqual(['evm']);
    // A refused payment method (400) answers the spec's {error} beside the problem fields.
    const badMethod = doc.paths['/api/v1/jobs/{id}/upload-url'].get.responses['400'].content['application/problem+json'].schema;
    expect(badMethod.required).toEqual(expect.arrayContaining(['error']));
  });
});
