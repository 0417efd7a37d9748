import { x402Client, x402HTTPClient } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { PaymentRequiredV2Schema } from '@x402/core/schemas';
import type { PaymentPayload } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { x402 as mppxX402 } from 'mppx';
import { evm as evmClient, Mppx } from 'mppx/client';
import { privateKeyToAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { EIP3009_TYPES } from '../mpp/evm-method.ts';
import { PaymentProblem } from '../types.ts';
import {
  type BuildPaymentRequiredInput,
  buildPaymentRequired,
  buildPaymentRequirements,
  chainIdOfNetwork,
  checkX402Payment,
  formatPaymentResponse,
  issueX402Binding,
  PAYMENT_REQUIRED_HEADER,
  PAYMENT_RESPONSE_HEADER,
  parsePaymentSignature,
  verifyX402Binding,
  X402_BINDING_EXTENSION,
  type X402BindingScope,
  x402Network,
} from './x402-v2.ts';

const account = privateKeyToAccount('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const payTo = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const resourceUrl = 'https://cutroom.test/api/v1/jobs/3f/pay';

const input: BuildPaymentRequiredInput = {
  resource: resourceUrl,
  description: 'transcribe job 3f',
  amount: 10_000n,
  asset: BASE_USDC.toLowerCase(),
  payTo: payTo.toLowerCase(),
  network: x402Network(8453),
  maxTimeoutSeconds: 600,
  extra: { name: 'USD Coin', version: '2' },
};

function b64(obj: unknown): string {
  return Buffer.from(JSON.stringify(obj)).toString('base64');
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

async function stockX402Signature(): Promise<{ header: string; payload: PaymentPayload }> {
  const client = registerExactEvmScheme(new x402Client(), { signer: account });
  const paymentRequired = decodePaymentRequiredHeader(buildPaymentRequired(input));
  const payload = await client.createPaymentPayload(paymentRequired);
  return { header: encodePaymentSignatureHeader(payload), payload };
}

describe('buildPaymentRequired', () => {
  it('is standard base64 JSON of an x402 v2 PaymentRequired that @x402/core and mppx accept', () => {
    const header = buildPaymentRequired(input);
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const decoded = decodePaymentRequiredHeader(header);
    expect(decoded).toEqual({
      x402Version: 2,
      resource: { url: resourceUrl, description: 'transcribe job 3f' },
      accepts: [
        {
          scheme: 'exact',
          network: 'eip155:8453',
          amount: '10000',
          asset: BASE_USDC,
          payTo,
          maxTimeoutSeconds: 600,
          extra: { name: 'USD Coin', version: '2' },
        },
      ],
    });
    expect(PaymentRequiredV2Schema.safeParse(decoded).success).toBe(true);
    expect(mppxX402.Header.decodePaymentRequired(header).accepts[0]!.payTo).toBe(payTo);
    expect(PAYMENT_REQUIRED_HEADER).toBe('PAYMENT-REQUIRED');
  });

  it('carries an error and refuses bad input', () => {
    expect(decodePaymentRequiredHeader(buildPaymentRequired({ ...input, error: 'authorization expired' })).error).toBe('authorization expired');
    expect(() => buildPaymentRequired({ ...input, resource: '/relative' })).toThrow();
    expect(() => buildPaymentRequired({ ...input, network: 'solana:mainnet' })).toThrow();
    expect(() => buildPaymentRequired({ ...input, amount: 0n })).toThrow();
    expect(() => buildPaymentRequired({ ...input, maxTimeoutSeconds: 0 })).toThrow();
  });

  it('network helpers', () => {
    expect(x402Network(84532)).toBe('eip155:84532');
    expect(chainIdOfNetwork('eip155:8453')).toBe(8453);
    expect(() => chainIdOfNetwork('base')).toThrow();
  });
});

describe('interop: @x402 stock client', () => {
  it('signs a PAYMENT-SIGNATURE that our parser and checks accept', async () => {
    const { header, payload } = await stockX402Signature();
    const parsed = parsePaymentSignature(header);
    expect(parsed.chainId).toBe(8453);
    expect(parsed.accepted).toEqual(buildPaymentRequirements(input));
    expect(parsed.resource?.url).toBe(resourceUrl);
    const auth = (payload.payload as { authorization: Record<string, string> }).authorization;
    expect(parsed.authorization).toMatchObject({ from: account.address, to: payTo, value: 10_000n, nonce: auth.nonce!.toLowerCase() });
    await expect(checkX402Payment({ payment: parsed, expected: buildPaymentRequirements(input), resourceUrl, now: new Date() })).resolves.toEqual({
      payer: account.address,
      source: `did:pkh:eip155:8453:${account.address}`,
    });
  });

  it('refuses it against a different price, payee or timeout', async () => {
    const parsed = parsePaymentSignature((await stockX402Signature()).header);
    for (const expected of [
      buildPaymentRequirements({ ...input, amount: 20_000n }),
      buildPaymentRequirements({ ...input, payTo: '0x0000000000000000000000000000000000000001' }),
      buildPaymentRequirements({ ...input, maxTimeoutSeconds: 60 }),
    ]) {
      expect((await problemOf(() => checkX402Payment({ payment: parsed, expected, now: new Date() }))).type).toBe('verification-failed');
    }
    expect(
      (
        await problemOf(() =>
          checkX402Payment({ payment: parsed, expected: buildPaymentRequirements(input), resourceUrl: 'https://cutroom.test/other', now: new Date() }),
        )
      ).type,
    ).toBe('verification-failed');
  });

  it('refuses an authorization that does not match a forged accepted block', async () => {
    const { payload } = await stockX402Signature();
    // Client lies: says it accepted a 1-unit price but signed for 10000; the signature check still binds.
    const forged = { ...payload, accepted: { ...payload.accepted, amount: '1' } };
    const parsed = parsePaymentSignature(encodePaymentSignatureHeader(forged));
    const expected = buildPaymentRequirements({ ...input, amount: 1n });
    expect((await problemOf(() => checkX402Payment({ payment: parsed, expected, now: new Date() }))).type).toBe('verification-failed');
  });

  it('refuses an expired authorization', async () => {
    const parsed = parsePaymentSignature((await stockX402Signature()).header);
    const later = new Date(Date.now() + 3600_000);
    expect((await problemOf(() => checkX402Payment({ payment: parsed, expected: buildPaymentRequirements(input), now: later }))).type).toBe('payment-expired');
  });
});

describe('interop: mppx stock client on an x402-only 402', () => {
  it('answers PAYMENT-REQUIRED with a PAYMENT-SIGNATURE our parser and checks accept', async () => {
    const mppx = Mppx.create({ polyfill: false, methods: [evmClient({ account })] });
    const response = new Response(null, { status: 402, headers: { [PAYMENT_REQUIRED_HEADER]: buildPaymentRequired(input) } });
    const prepared = await mppx.preparePayment(response);
    const header = await prepared.createCredential();
    const attached = prepared.setCredential({ headers: new Headers() }, header) as { headers: Headers };
    expect(attached.headers.get('PAYMENT-SIGNATURE')).toBe(header);
    const parsed = parsePaymentSignature(header);
    await expect(checkX402Payment({ payment: parsed, expected: buildPaymentRequirements(input), resourceUrl, now: new Date() })).resolves.toMatchObject({
      payer: account.address,
    });
  });
});

describe('parsePaymentSignature: malformed input', () => {
  const goodAuth = { from: account.address, to: payTo, value: '10000', validAfter: '0', validBefore: '1893553445', nonce: `0x${'12'.repeat(32)}` };
  const good = {
    x402Version: 2,
    resource: { url: resourceUrl },
    accepted: buildPaymentRequirements(input),
    payload: { authorization: goodAuth, signature: `0x${'11'.repeat(65)}` },
  };

  it('accepts the well-formed reference payload', () => {
    expect(parsePaymentSignature(b64(good)).authorization.value).toBe(10_000n);
  });

  it.each([
    ['empty', ''],
    ['not base64', '%%%not base64%%%'],
    ['base64url alphabet', 'eyJ4IjoxfQ-_'],
    ['not JSON', Buffer.from('hello').toString('base64')],
    ['x402 v1', b64({ ...good, x402Version: 1 })],
    ['missing accepted', b64({ ...good, accepted: undefined })],
    ['scheme upto', b64({ ...good, accepted: { ...good.accepted, scheme: 'upto' } })],
    ['non-eip155 network', b64({ ...good, accepted: { ...good.accepted, network: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp' } })],
    ['permit2 payload', b64({ ...good, payload: { permit2Authorization: { from: account.address }, signature: '0x11' } })],
    ['missing signature', b64({ ...good, payload: { authorization: goodAuth } })],
    ['bad nonce', b64({ ...good, payload: { ...good.payload, authorization: { ...goodAuth, nonce: '0x12' } } })],
    ['numeric value', b64({ ...good, payload: { ...good.payload, authorization: { ...goodAuth, value: 10000 } } })],
    ['too large', 'A'.repeat(20_000)],
  ])('refuses %s as malformed-credential', async (_name, header) => {
    const p = await problemOf(() => parsePaymentSignature(header));
    expect(p.type).toBe('malformed-credential');
  });
});

describe('formatPaymentResponse', () => {
  it('is a SettleResponse that @x402/core and mppx decode', () => {
    const tx = `0x${'ab'.repeat(32)}`;
    const header = formatPaymentResponse({ success: true, transaction: tx, network: 'eip155:8453', payer: account.address });
    expect(header).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(decodePaymentResponseHeader(header)).toEqual({ success: true, transaction: tx, network: 'eip155:8453', payer: account.address });
    expect(mppxX402.Header.decodePaymentResponse(header).transaction).toBe(tx);
    const http = new x402HTTPClient(new x402Client());
    expect(http.getPaymentSettleResponse((name) => (name === PAYMENT_RESPONSE_HEADER ? header : null)).success).toBe(true);
  });

  it('carries a failure reason', () => {
    const header = formatPaymentResponse({ success: false, transaction: '', network: 'eip155:8453', errorReason: 'insufficient_funds' });
    expect(decodePaymentResponseHeader(header)).toEqual({ success: false, transaction: '', network: 'eip155:8453', errorReason: 'insufficient_funds' });
  });
});

// keep the typed-data constant honest against what both stock clients sign
it('EIP3009_TYPES matches mppx evm authorizationTypes', async () => {
  const { evm } = await import('mppx');
  expect(EIP3009_TYPES).toEqual(evm.authorizationTypes);
});

describe('the x402 challenge (extensions["cutroom-challenge"])', () => {
  const scope: X402BindingScope = {
    secret: 'x402-binding-secret-0123456789abcdef',
    realm: 'cutroom.test',
    resource: resourceUrl,
    externalId: 'job-3f',
    amount: 10_000n,
    asset: BASE_USDC,
    payTo,
    network: 'eip155:8453',
  };
  const now = new Date();
  const expires = new Date(now.getTime() + 600_000);
  const binding = issueX402Binding(scope, expires, 'owner-a');
  const bound = { ...input, binding };

  async function problemType(fn: () => unknown) {
    return (await problemOf(fn)).type;
  }

  it('rides in PAYMENT-REQUIRED and comes back from both stock clients, unchanged', async () => {
    const required = decodePaymentRequiredHeader(buildPaymentRequired(bound));
    expect(PaymentRequiredV2Schema.safeParse(required).success).toBe(true);
    expect(required.extensions).toEqual({ [X402_BINDING_EXTENSION]: { info: binding, schema: expect.objectContaining({ type: 'object' }) } });

    const stock = registerExactEvmScheme(new x402Client(), { signer: account });
    const fromStock = parsePaymentSignature(encodePaymentSignatureHeader(await stock.createPaymentPayload(required)));
    const mppx = Mppx.create({ polyfill: false, methods: [evmClient({ account })] });
    const prepared = await mppx.preparePayment(new Response(null, { status: 402, headers: { [PAYMENT_REQUIRED_HEADER]: buildPaymentRequired(bound) } }));
    const fromMppx = parsePaymentSignature(await prepared.createCredential());
    for (const parsed of [fromStock, fromMppx]) {
      expect(verifyX402Binding(scope, parsed.extensions, now, { owner: 'owner-a' })).toEqual(binding);
      // The offer's `accepted` is unchanged by the binding: the signed terms are compared as before.
      await expect(checkX402Payment({ payment: parsed, expected: buildPaymentRequirements(bound), resourceUrl, now })).resolves.toMatchObject({
        payer: account.address,
      });
    }
  });

  it('is refused for another job, resource, price, payee, owner or request, when expired, forged or missing', async () => {
    const ext = { [X402_BINDING_EXTENSION]: { info: binding } };
    expect(await problemType(() => verifyX402Binding({ ...scope, externalId: 'job-40' }, ext, now, {}))).toBe('invalid-challenge');
    expect(await problemType(() => verifyX402Binding({ ...scope, resource: 'https://cutroom.test/api/v1/jobs/40/pay' }, ext, now, {}))).toBe(
      'invalid-challenge',
    );
    expect(await problemType(() => verifyX402Binding({ ...scope, amount: 20_000n }, ext, now, {}))).toBe('invalid-challenge');
    expect(await problemType(() => verifyX402Binding({ ...scope, payTo: '0x0000000000000000000000000000000000000001' }, ext, now, {}))).toBe(
      'invalid-challenge',
    );
    expect(await problemType(() => verifyX402Binding(scope, ext, now, { owner: 'owner-b' }))).toBe('invalid-challenge');
    expect(await problemType(() => verifyX402Binding(scope, ext, now, { request: 'sha-256=:x:' }))).toBe('invalid-challenge');
    expect(await problemType(() => verifyX402Binding(scope, ext, new Date(expires.getTime() + 1), {}))).toBe('payment-expired');
    expect(await problemType(() => verifyX402Binding(scope, { [X402_BINDING_EXTENSION]: { info: { ...binding, owner: 'owner-b' } } }, now, {}))).toBe(
      'invalid-challenge',
    );
    expect(await problemType(() => verifyX402Binding({ ...scope, secret: 'another-secret-0123456789abcdefgh' }, ext, now, {}))).toBe('invalid-challenge');
    expect(await problemType(() => verifyX402Binding(scope, undefined, now, {}))).toBe('invalid-challenge');
    expect(await problemType(() => verifyX402Binding(scope, { [X402_BINDING_EXTENSION]: 'x' }, now, {}))).toBe('invalid-challenge');
    // A request-bound one (paid creation) names its request.
    const forRequest = issueX402Binding(scope, expires, 'anonymous', 'sha-256=:abc:');
    expect(verifyX402Binding(scope, { [X402_BINDING_EXTENSION]: { info: forRequest } }, now, { request: 'sha-256=:abc:' })).toEqual(forRequest);
  });

  it('a payment must echo the resource of this route (leaving it out does not skip the check)', async () => {
    const { payload } = await stockX402Signature();
    const { resource: _dropped, ...withoutResource } = payload;
    const parsed = parsePaymentSignature(encodePaymentSignatureHeader(withoutResource as PaymentPayload));
    expect((await problemOf(() => checkX402Payment({ payment: parsed, expected: buildPaymentRequirements(input), resourceUrl, now: new Date() }))).type).toBe(
      'verification-failed',
    );
  });
});
