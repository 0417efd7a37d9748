import { describe, expect, it } from 'vitest';
import { fitsJobCap, fromAtomic, fromX402Offer, isPayableUrl, toAtomic } from './wallet.ts';

describe('amounts', () => {
  it('converts display amounts to base units and back', () => {
    expect([toAtomic('5', 6), toAtomic('0.2', 6), toAtomic('1.700001', 6), toAtomic('0.50', 2)]).toEqual([5_000_000n, 200_000n, 1_700_001n, 50n]);
    expect([toAtomic('1.0000001', 6), toAtomic('x', 6)]).toEqual([null, null]);
    expect([fromAtomic(200_000n, 6), fromAtomic(1_700_000n, 6), fromAtomic(10_000n, 6), fromAtomic(50n, 2), fromAtomic(1n, 6)]).toEqual([
      '0.20',
      '1.70',
      '0.01',
      '0.50',
      '0.000001',
    ]);
  });
});

describe('fromX402Offer', () => {
  const asset = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const header = (accepts: unknown[]) => Buffer.from(JSON.stringify({ x402Version: 2, accepts })).toString('base64');
  it('reads the token domain of the offered asset', () => {
    const h = header([{ scheme: 'exact', asset, extra: { name: 'USD Coin', version: '2' } }]);
    expect(fromX402Offer(h, asset.toLowerCase())).toEqual({ name: 'USD Coin', version: '2' });
  });
  it('is null for another asset, no domain, no header or garbage', () => {
    expect(fromX402Offer(header([{ asset: '0xabc', extra: { name: 'X', version: '1' } }]), asset)).toBeNull();
    expect(fromX402Offer(header([{ asset }]), asset)).toBeNull();
    expect(fromX402Offer(null, asset)).toBeNull();
    expect(fromX402Offer('%%%', asset)).toBeNull();
  });
});

describe('isPayableUrl', () => {
  it('pays over https anywhere and over plain http only on this machine', () => {
    expect(['https://clips.example.com', 'http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080'].map(isPayableUrl)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['http://clips.example.com', 'http://10.0.0.5:8080', 'http://127.0.0.1.evil.example', 'ftp://127.0.0.1'].map(isPayableUrl)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});

describe('fitsJobCap', () => {
  it('caps what one job is paid across its calls, not only each call', () => {
    expect(fitsJobCap(0n, 1_750_000n, 6, '5')).toBe(true);
    expect(fitsJobCap(1_750_000n, 1_750_000n, 6, '5')).toBe(true);
    expect(fitsJobCap(3_500_000n, 1_750_000n, 6, '5')).toBe(false);
    expect(fitsJobCap(0n, 5_000_001n, 6, '5')).toBe(false);
    expect(fitsJobCap(0n, 1n, 6, 'nonsense')).toBe(false);
  });
});
