import { describe, expect, it } from 'vitest';
import { FormParseError, parseForm, splitFormKey } from './form-body.ts';

describe('splitFormKey', () => {
  it('splits brackets into segments', () => {
    expect(splitFormKey('amount')).toEqual(['amount']);
    expect(splitFormKey('line_items[0][price_data][unit_amount]')).toEqual(['line_items', '0', 'price_data', 'unit_amount']);
    expect(splitFormKey('expand[]')).toEqual(['expand', '']);
  });

  it('refuses malformed keys', () => {
    for (const key of ['[a]', 'a[b', 'a[b]c', 'a]b[']) expect(() => splitFormKey(key), key).toThrow(FormParseError);
  });
});

describe('parseForm', () => {
  it('builds nested objects and indexed arrays as the stripe client encodes them', () => {
    const body =
      'mode=payment&line_items[0][quantity]=2&line_items[0][price_data][currency]=usd' +
      '&line_items[0][price_data][unit_amount]=450&line_items[0][price_data][product_data][name]=Clips%20from%20video' +
      '&line_items[1][quantity]=1&metadata[job_id]=j-1&success_url=http%3A%2F%2Fx%2Fok%3Fs%3D%7BCHECKOUT_SESSION_ID%7D';
    expect(parseForm(body)).toEqual({
      mode: 'payment',
      line_items: [{ quantity: '2', price_data: { currency: 'usd', unit_amount: '450', product_data: { name: 'Clips from video' } } }, { quantity: '1' }],
      metadata: { job_id: 'j-1' },
      success_url: 'http://x/ok?s={CHECKOUT_SESSION_ID}',
    });
  });

  it('accepts percent-encoded brackets, `+` for spaces and `a[]` appends', () => {
    expect(parseForm('metadata%5Bnote%5D=a+b&expand[]=latest_charge&expand[]=customer')).toEqual({
      metadata: { note: 'a b' },
      expand: ['latest_charge', 'customer'],
    });
  });

  it('keeps empty values (the client sends null as an empty string) and lets a repeated key win last', () => {
    expect(parseForm('description=&amount=1&amount=2')).toEqual({ description: '', amount: '2' });
  });

  it('parses a query string given as URLSearchParams', () => {
    expect(parseForm(new URLSearchParams('limit=3&type=checkout.session.completed'))).toEqual({ limit: '3', type: 'checkout.session.completed' });
  });

  it('refuses a scalar and a nested value under one name', () => {
    expect(() => parseForm('metadata=x&metadata[a]=1')).toThrow(/Conflicting/);
    expect(() => parseForm('metadata[a]=1&metadata=x')).toThrow(/Conflicting/);
  });

  it('refuses arrays with holes and non-index keys on arrays', () => {
    expect(() => parseForm('a[1]=x')).toThrow(/Invalid array/);
    expect(() => parseForm('a[0]=x&a[b]=y')).toThrow(/Invalid array parameter/);
  });

  it('refuses keys that would reach Object.prototype', () => {
    expect(() => parseForm('__proto__[polluted]=1')).toThrow(FormParseError);
    expect(() => parseForm('metadata[constructor]=1')).toThrow(FormParseError);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
