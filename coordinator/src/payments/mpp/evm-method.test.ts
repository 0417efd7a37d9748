import { Challenge as MppxChallenge, evm as mppxEvm } from 'mppx';
import { evm as evmClient, Mppx } from 'mppx/client';
import { getAddress, keccak256, stringToBytes } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { PaymentProblem } from '../types.ts';
import { type Challenge, createChallenge, decodeRequest, formatWwwAuthenticate } from './challenge.ts';
import { assertRequestBinding, parsePaymentAuthorization, verifyChallengeEcho } from './credential.ts';
import {
  buildEvmRequest,
  checkEvmCredential,
  EIP3009_TYPES,
  type Eip3009Authorization,
  evmChallengeNonce,
  evmSource,
  parseEvmPayload,
  parseEvmRequest,
  verifyEip3009Authorization,
} from './evm-method.ts';

// Fixed test key (anvil/hardhat account #0); signing is local, no chain involved.
const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const secret = 'test-secret-test-secret-test-secret!';
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const recipient = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const domain = { name: 'USD Coin', version: '2' };
const realm = 'cutroom.test';

function evmChallenge(amount = 10_000n, expires = new Date(Date.now() + 10 * 60_000)): Challenge {
  const request = buildEvmRequest({ amount, token: BASE_USDC.toLowerCase(), recipient, chainId: 8453, description: 'transcribe', externalId: 'job-1' });
  return createChallenge({ secret, realm, method: 'evm', intent: 'charge', expires, request: request as unknown as Record<string, unknown> });
}

function payment402(...challenges: Challenge[]): Response {
  const headers = new Headers({ 'Cache-Control': 'no-store' });
  for (const ch of challenges) headers.append('WWW-Authenticate', formatWwwAuthenticate(ch));
  return new Response(null, { status: 402, headers });
}

async function problemOf(fn: () => unknown): Promise<PaymentProblem> {
  try {
    await fn();
  } catch (e) {
    if (e instanceof PaymentProblem) return e;
    throw e;
  }
  throw new Error('expected a PaymentProblem');
}

async function sign(a: Omit<Eip3009Authorization, 'signature'>, d = domain, token = BASE_USDC, chainId = 8453): Promise<Eip3009Authorization> {
  const signature = await account.signTypedData({
    domain: { ...d, chainId, verifyingContract: token as `0x${string}` },
    types: EIP3009_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: a,
  });
  return { ...a, signature };
}

describe('buildEvmRequest', () => {
  it('produces exactly mppx evm.charge request output, hence the same challenge id', () => {
    const expires = '2030-01-02T03:04:05.000Z';
    const ours = createChallenge({
      secret,
      realm,
      method: 'evm',
      intent: 'charge',
      expires,
      request: buildEvmRequest({
        amount: 1_234_567n,
        token: BASE_USDC,
        recipient: recipient.toLowerCase(),
        chainId: 8453,
        externalId: 'job-9',
      }) as unknown as Record<string, unknown>,
    });
    const theirs = MppxChallenge.fromMethod(mppxEvm.Methods.charge, {
      secretKey: secret,
      realm,
      expires,
      request: { amount: '1.234567', chainId: 8453, currency: BASE_USDC, decimals: 6, recipient, externalId: 'job-9' },
    });
    expect(decodeRequest(ours)).toEqual(theirs.request);
    expect(ours.id).toBe(theirs.id);
    expect(formatWwwAuthenticate(ours)).toBe(MppxChallenge.serialize(theirs));
  });

  it('checksums addresses and refuses bad input', () => {
    const r = buildEvmRequest({ amount: 1n, token: BASE_USDC.toLowerCase(), recipient: recipient.toLowerCase(), chainId: 84532 });
    expect(r).toEqual({ amount: '1', currency: BASE_USDC, recipient, methodDetails: { chainId: 84532, credentialTypes: ['authorization'], decimals: 6 } });
    expect(() => buildEvmRequest({ amount: 0n, token: BASE_USDC, recipient, chainId: 1 })).toThrow();
    expect(() => buildEvmRequest({ amount: 1n, token: '0x12', recipient, chainId: 1 })).toThrow();
    expect(() => buildEvmRequest({ amount: 1n, token: BASE_USDC, recipient, chainId: 0 })).toThrow();
  });

  it('parseEvmRequest accepts our request and refuses others', async () => {
    const r = buildEvmRequest({ amount: 5n, token: BASE_USDC, recipient, chainId: 8453 });
    expect(parseEvmRequest(r as unknown as Record<string, unknown>)).toEqual(r);
    expect((await problemOf(() => parseEvmRequest({ amount: '5' }))).type).toBe('invalid-challenge');
    const permit2Only = { ...r, methodDetails: { ...r.methodDetails, credentialTypes: ['permit2'] } };
    expect((await problemOf(() => parseEvmRequest(permit2Only))).type).toBe('invalid-challenge');
  });
});

describe('evmChallengeNonce', () => {
  it('is keccak256(utf8(id + realm)), as mppx computes it', () => {
    const ch = { id: 'abcDEF_-123', realm: 'cutroom.test' };
    expect(evmChallengeNonce(ch)).toBe(keccak256(stringToBytes('abcDEF_-123cutroom.test')));
    expect(evmChallengeNonce(ch)).toBe(mppxEvm.challengeHash(ch));
  });

  it('evmSource is the did:pkh mppx sends', () => {
    expect(evmSource(8453, account.address.toLowerCase())).toBe(`did:pkh:eip155:8453:${account.address}`);
  });
});

describe('parseEvmPayload', () => {
  const good = {
    type: 'authorization',
    from: account.address,
    to: recipient,
    value: '10000',
    validAfter: '0',
    validBefore: '1893553445',
    nonce: `0x${'AB'.repeat(32)}`,
    signature: `0x${'11'.repeat(65)}`,
  };

  it('types the EIP-3009 authorization', () => {
    expect(parseEvmPayload(good)).toEqual({
      from: account.address,
      to: recipient,
      value: 10000n,
      validAfter: 0n,
      validBefore: 1893553445n,
      nonce: `0x${'ab'.repeat(32)}`,
      signature: good.signature,
    });
  });

  it.each([
    ['not an object', 'x'],
    ['null', null],
    ['missing type', { ...good, type: undefined }],
    ['permit2 type', { ...good, type: 'permit2' }],
    ['hash type', { type: 'hash', hash: `0x${'00'.repeat(32)}` }],
    ['missing from', { ...good, from: undefined }],
    ['bad to', { ...good, to: '0x1234' }],
    ['numeric value', { ...good, value: 10000 }],
    ['negative value', { ...good, value: '-1' }],
    ['hex value', { ...good, value: '0x10' }],
    ['value over uint256', { ...good, value: (1n << 256n).toString() }],
    ['short nonce', { ...good, nonce: '0x1234' }],
    ['missing signature', { ...good, signature: undefined }],
    ['odd-length signature', { ...good, signature: '0x123' }],
    ['split v/r/s signature', { ...good, signature: { v: 27, r: '0x1', s: '0x2' } }],
  ])('refuses %s as malformed-credential', async (_name, payload) => {
    const p = await problemOf(() => parseEvmPayload(payload));
    expect(p.type).toBe('malformed-credential');
    expect(p.status).toBe(402);
  });
});

describe('verifyEip3009Authorization / checkEvmCredential', () => {
  const now = new Date('2030-01-01T00:00:00Z');
  const nowS = BigInt(Math.floor(now.getTime() / 1000));
  const ch = { id: 'challenge-id', realm };
  const request = buildEvmRequest({ amount: 10_000n, token: BASE_USDC, recipient, chainId: 8453 });
  const base = {
    from: account.address,
    to: recipient as `0x${string}`,
    value: 10_000n,
    validAfter: 0n,
    validBefore: nowS + 300n,
    nonce: evmChallengeNonce(ch),
  };

  it('accepts a correctly signed, bound authorization', async () => {
    const authorization = await sign(base);
    await expect(checkEvmCredential({ challenge: ch, request, authorization, source: evmSource(8453, account.address), domain, now })).resolves.toEqual({
      payer: account.address,
      source: `did:pkh:eip155:8453:${account.address}`,
    });
  });

  it.each([
    ['wrong recipient', { to: '0x0000000000000000000000000000000000000001' as `0x${string}` }, 'verification-failed'],
    ['value below price', { value: 9_999n }, 'payment-insufficient'],
    ['value above price', { value: 10_001n }, 'verification-failed'],
    ['nonce not bound to the challenge', { nonce: `0x${'00'.repeat(32)}` as `0x${string}` }, 'verification-failed'],
    ['not valid yet', { validAfter: nowS + 60n }, 'verification-failed'],
    ['expired', { validBefore: nowS }, 'payment-expired'],
  ])('refuses %s', async (_name, change, type) => {
    const authorization = await sign({ ...base, ...change });
    const p = await problemOf(() => checkEvmCredential({ challenge: ch, request, authorization, domain, now }));
    expect(p.type).toBe(type);
    expect(p.challengeId).toBe('challenge-id');
  });

  it('refuses a signature over another domain, token or chain, or by someone else', async () => {
    for (const authorization of [
      await sign(base, { name: 'USDC', version: '2' }),
      await sign(base, domain, '0x036CbD53842c5426634e7929541eC2318f3dCF7e'),
      await sign(base, domain, BASE_USDC, 84532),
      { ...(await sign(base)), from: getAddress('0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC') },
      { ...(await sign(base)), signature: `0x${'11'.repeat(65)}` as `0x${string}` },
    ]) {
      const p = await problemOf(() => checkEvmCredential({ challenge: ch, request, authorization, domain, now }));
      expect(p.type).toBe('verification-failed');
    }
  });

  it('refuses a source that does not name the payer', async () => {
    const authorization = await sign(base);
    const p = await problemOf(() => checkEvmCredential({ challenge: ch, request, authorization, source: evmSource(1, account.address), domain, now }));
    expect(p.type).toBe('verification-failed');
  });

  it('verifyEip3009Authorization without expectedNonce accepts any nonce (x402)', async () => {
    const authorization = await sign({ ...base, nonce: `0x${'42'.repeat(32)}` });
    await expect(verifyEip3009Authorization({ authorization, chainId: 8453, token: BASE_USDC, domain, recipient, amount: 10_000n, now })).resolves.toEqual({
      payer: account.address,
    });
  });
});

describe('interop: mppx stock client pays our evm challenge', () => {
  async function pay(clientConfig: Parameters<typeof evmClient>[0], ...challenges: Challenge[]) {
    const mppx = Mppx.create({ methods: [evmClient(clientConfig)], polyfill: false });
    return mppx.createCredential(payment402(...challenges));
  }

  it('with explicit token domain: our parser, HMAC check and authorization check accept it', async () => {
    const ch = evmChallenge();
    const header = await pay({ account, authorization: domain }, ch);
    const now = new Date();
    const cred = parsePaymentAuthorization(header);
    expect(cred.challenge.id).toBe(ch.id);
    const echoedRequest = verifyChallengeEcho(secret, cred.challenge, now);
    assertRequestBinding(decodeRequest(ch), echoedRequest, ch.id);
    const request = parseEvmRequest(echoedRequest, ch.id);
    const authorization = parseEvmPayload(cred.payload);
    expect(authorization.nonce).toBe(evmChallengeNonce(ch));
    expect(authorization.value).toBe(10_000n);
    expect(authorization.to).toBe(recipient);
    expect(authorization.from).toBe(account.address);
    expect(authorization.validAfter).toBe(0n);
    expect(authorization.validBefore).toBe(BigInt(Math.floor(Date.parse(ch.expires) / 1000)));
    expect(cred.payload.type).toBe('authorization');
    expect(cred.source).toBe(`did:pkh:eip155:8453:${account.address}`);
    await expect(checkEvmCredential({ challenge: cred.challenge, request, authorization, source: cred.source, domain, now })).resolves.toMatchObject({
      payer: account.address,
    });
  });

  it('with the known Base USDC asset config (domain resolved by mppx)', async () => {
    const ch = evmChallenge(250_000n);
    const header = await pay({ account, currencies: [mppxEvm.assets.base.USDC], networks: [8453] }, ch);
    const cred = parsePaymentAuthorization(header);
    const request = parseEvmRequest(verifyChallengeEcho(secret, cred.challenge, new Date()));
    await expect(
      checkEvmCredential({ challenge: cred.challenge, request, authorization: parseEvmPayload(cred.payload), source: cred.source, domain, now: new Date() }),
    ).resolves.toBeDefined();
  });

  it('picks the evm challenge out of an evm + stripe 402', async () => {
    const ev = evmChallenge();
    const st = createChallenge({
      secret,
      realm,
      method: 'stripe',
      intent: 'charge',
      expires: ev.expires,
      request: { amount: '450', currency: 'usd', methodDetails: { networkId: 'net_1', paymentMethodTypes: ['card'] } },
    });
    const cred = parsePaymentAuthorization(await pay({ account, authorization: domain }, st, ev));
    expect(cred.challenge.id).toBe(ev.id);
  });

  it('the stock client refuses when it has no token domain for the currency (not on the wire)', async () => {
    await expect(pay({ account }, evmChallenge())).rejects.toThrow(/token name and version/);
  });

  it('a tampered amount in the stock credential fails our HMAC check', async () => {
    const ch = evmChallenge();
    const cred = parsePaymentAuthorization(await pay({ account, authorization: domain }, ch));
    const forged = { ...cred.challenge, request: Buffer.from(JSON.stringify({ ...decodeRequest(ch), amount: '1' })).toString('base64url') };
    expect(() => verifyChallengeEcho(secret, forged, new Date())).toThrow(PaymentProblem);
  });
});
