import { describe, expect, it } from 'vitest';
import { loadCoordinatorConfig } from './config.ts';

const secret = 'x'.repeat(32);
const chain = { CHAIN_RPC_URL: 'http://127.0.0.1:8545', CHAIN_TOKEN_ADDRESS: `0x${'a'.repeat(40)}`, CHAIN_RELAYER_KEY: `0x${'1'.repeat(64)}` };

describe('coordinator config', () => {
  it('runs the embedded default with billing off and no settings at all', () => {
    const c = loadCoordinatorConfig({});
    expect(c.PORT).toBe(8080);
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:8080');
    expect(c.billingEnabled).toBe(false);
    expect(c.DATABASE_URL).toBeUndefined();
  });

  it('treats empty strings as unset and derives the public URL from HOST and PORT', () => {
    const c = loadCoordinatorConfig({ DATABASE_URL: '', PORT: '9000', HOST: '0.0.0.0' });
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:9000');
  });

  it('names every invalid option', () => {
    expect(() => loadCoordinatorConfig({ PORT: 'eighty', LEASE_MS: '5' })).toThrow(/PORT[\s\S]*LEASE_MS/);
  });

  it('turns billing on only with a complete rail and a challenge secret', () => {
    expect(loadCoordinatorConfig({ ...chain, PAYMENT_CHALLENGE_SECRET: secret }).billingEnabled).toBe(true);
    expect(loadCoordinatorConfig({ CARD_SECRET_KEY: 'sk_test_1', CARD_WEBHOOK_SECRET: 'whsec_1', PAYMENT_CHALLENGE_SECRET: secret }).billingEnabled).toBe(true);
    expect(() => loadCoordinatorConfig({ ...chain })).toThrow(/PAYMENT_CHALLENGE_SECRET/);
    expect(() => loadCoordinatorConfig({ CHAIN_RPC_URL: chain.CHAIN_RPC_URL, PAYMENT_CHALLENGE_SECRET: secret })).toThrow(/chain rail needs/);
    expect(() => loadCoordinatorConfig({ CARD_SECRET_KEY: 'sk_test_1', PAYMENT_CHALLENGE_SECRET: secret })).toThrow(/card rail needs/);
  });
});
