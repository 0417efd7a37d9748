// Construction-time checks only; settle/refund run against a real chain in test/chain-rail.test.ts.
import { describe, expect, it } from 'vitest';
import { createChainRail, type ChainRailConfig } from './chain-rail.ts';

// Anvil dev account 1 (a public test key) and its address.
const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const cfg: ChainRailConfig = {
  rpcUrl: 'http://127.0.0.1:1',
  chainId: 84532,
  tokenAddress: '0x036cbd53842c5426634e7929541ec2318f3dcf7e',
  tokenName: 'USDC',
  tokenVersion: '2',
  recipient: '0x70997970c51812dc3a010c7d01b50e0d17dc79c8',
  relayerPrivateKey: key,
};

describe('createChainRail', () => {
  it('describes itself in the terms challenges need, with checksummed addresses', () => {
    const rail = createChainRail(cfg);
    expect(rail.network).toBe('eip155:84532');
    expect(rail.asset).toBe('0x036CbD53842c5426634e7929541eC2318f3dCF7e');
    expect(rail.recipient).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(rail.domain).toEqual({ name: 'USDC', version: '2' });
  });

  it('refuses a relayer key that does not control the recipient (refunds would be impossible)', () => {
    expect(() => createChainRail({ ...cfg, recipient: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC' })).toThrow(/relayerPrivateKey/);
  });
});
