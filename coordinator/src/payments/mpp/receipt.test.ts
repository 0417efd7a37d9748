import { Receipt as MppxReceipt } from 'mppx';
import { describe, expect, it } from 'vitest';
import { buildReceipt, formatReceipt, parseReceipt, RECEIPT_HEADER } from './receipt.ts';

describe('Payment-Receipt', () => {
  const input = { method: 'evm', reference: `0x${'ab'.repeat(32)}`, timestamp: new Date('2030-01-02T03:04:05.678Z') };

  it('is base64url (no padding) JSON {status, method, timestamp, reference}', () => {
    const value = formatReceipt(input);
    expect(value).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(value, 'base64url').toString('utf8'))).toEqual({
      status: 'success',
      method: 'evm',
      timestamp: '2030-01-02T03:04:05.678Z',
      reference: input.reference,
    });
    expect(RECEIPT_HEADER).toBe('Payment-Receipt');
  });

  it('is read back by mppx Receipt.deserialize / fromResponse', () => {
    const value = formatReceipt({ method: 'stripe', reference: 'pi_123', timestamp: '2030-01-02T03:04:05Z', externalId: 'job-1' });
    expect(MppxReceipt.deserialize(value)).toEqual({
      status: 'success',
      method: 'stripe',
      reference: 'pi_123',
      timestamp: '2030-01-02T03:04:05Z',
      externalId: 'job-1',
    });
    const res = new Response(null, { headers: { [RECEIPT_HEADER]: value } });
    expect(MppxReceipt.fromResponse(res).reference).toBe('pi_123');
  });

  it('round-trips through parseReceipt and matches mppx serialize', () => {
    const ours = formatReceipt(input);
    expect(parseReceipt(ours)).toEqual(buildReceipt(input));
    const theirs = MppxReceipt.serialize(
      MppxReceipt.from({ method: 'evm', reference: input.reference, status: 'success', timestamp: '2030-01-02T03:04:05.678Z' }),
    );
    expect(parseReceipt(theirs)).toEqual(parseReceipt(ours));
  });

  it('refuses a timestamp that is not RFC 3339', () => {
    expect(() => formatReceipt({ method: 'evm', reference: 'x', timestamp: 'yesterday' })).toThrow();
  });

  it('parseReceipt refuses garbage', () => {
    expect(() => parseReceipt('not-a-receipt')).toThrow();
    expect(() =>
      parseReceipt(Buffer.from(JSON.stringify({ status: 'failed', method: 'evm', reference: 'x', timestamp: '2030-01-02T03:04:05Z' })).toString('base64url')),
    ).toThrow();
  });
});
