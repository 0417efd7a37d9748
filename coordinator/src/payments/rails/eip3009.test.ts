import { hashTypedData, keccak256, stringToHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { authorizationMessage, challengeNonce, transferAuthorizationTypedData, type TokenDomain } from './eip3009.ts';

const domain: TokenDomain = { name: 'USD Coin', version: '2', chainId: 8453, verifyingContract: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913' };
const auth = {
  from: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  to: '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC',
  value: '200000',
  validAfter: '0',
  validBefore: '1767225600',
  nonce: challengeNonce('ch_1', 'cutroom.example'),
} as const;

describe('challengeNonce', () => {
  it('is keccak256 of the utf8 concatenation challengeId + realm', () => {
    expect(challengeNonce('abc', 'realm')).toBe(keccak256(stringToHex('abcrealm')));
    expect(challengeNonce('abc', 'realm')).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('differs per challenge and per realm', () => {
    expect(challengeNonce('a', 'r')).not.toBe(challengeNonce('b', 'r'));
    expect(challengeNonce('a', 'r1')).not.toBe(challengeNonce('a', 'r2'));
  });
});

describe('transferAuthorizationTypedData', () => {
  it('builds the EIP-3009 TransferWithAuthorization message with bigint amounts and times', () => {
    const td = transferAuthorizationTypedData(domain, auth);
    expect(td.primaryType).toBe('TransferWithAuthorization');
    expect(td.domain).toEqual(domain);
    expect(td.types.TransferWithAuthorization.map((f) => `${f.type} ${f.name}`)).toEqual([
      'address from',
      'address to',
      'uint256 value',
      'uint256 validAfter',
      'uint256 validBefore',
      'bytes32 nonce',
    ]);
    expect(td.message).toMatchObject({ value: 200_000n, validAfter: 0n, validBefore: 1_767_225_600n });
  });

  it('hashes differently on another chain, so a signature cannot be replayed across chains', () => {
    const here = hashTypedData(transferAuthorizationTypedData(domain, auth));
    const there = hashTypedData(transferAuthorizationTypedData({ ...domain, chainId: 1 }, auth));
    expect(here).not.toBe(there);
  });

  it.each(['', ' 1', '1.5', '-1', '0x10', '01', '1e6'])('refuses the non-canonical amount %j', (value) => {
    expect(() => authorizationMessage({ ...auth, value })).toThrow(SyntaxError);
  });
});
