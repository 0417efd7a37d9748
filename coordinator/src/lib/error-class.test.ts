import { describe, expect, it } from 'vitest';
import { PaymentRequiredError } from '../payments/gate.ts';
import { PaymentProblem } from '../payments/types.ts';
import { AppError } from './app-error.ts';
import { errorClassOf } from './error-class.ts';

describe('errorClassOf', () => {
  it('maps service errors to one class with an HTTP status and a JSON-RPC code', () => {
    expect(errorClassOf(new AppError('forbidden', 'this job belongs to another session'))).toEqual({
      code: 'forbidden',
      status: 403,
      rpc: -32003,
      retryable: false,
      message: 'this job belongs to another session',
    });
    expect(errorClassOf(new PaymentProblem('verification-failed', 'bad signature'))).toMatchObject({ code: 'payment_invalid', status: 402, rpc: -32043 });
    expect(errorClassOf(new PaymentProblem('method-unsupported', 'no such method'))).toMatchObject({ code: 'invalid_request', status: 400, rpc: -32602 });
    expect(errorClassOf(new AppError('unavailable', 'rail down'))).toMatchObject({ status: 503, retryable: true });
  });

  it('takes the payment gate’s 402 by its code, and ignores codes that are not the taxonomy’s', () => {
    const offer = {} as ConstructorParameters<typeof PaymentRequiredError>[0];
    expect(errorClassOf(new PaymentRequiredError(offer, null, 'pay first'))).toMatchObject({
      code: 'payment_required',
      status: 402,
      rpc: -32042,
      message: 'pay first',
    });
    // A database or system error has a code too, of another vocabulary: unexpected.
    const pg = Object.assign(new Error('duplicate key value violates unique constraint "jobs_pkey"'), { code: '23505' });
    const net = Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
    for (const e of [pg, net, { code: 'forbidden', message: 'not an Error' }])
      expect(errorClassOf(e)).toMatchObject({ code: 'internal', status: 500, message: 'internal error; please retry' });
  });

  it('hides what an unexpected error says', () => {
    expect(errorClassOf(new TypeError('cannot read x of undefined at /srv/app.ts'))).toEqual({
      code: 'internal',
      status: 500,
      rpc: -32603,
      retryable: true,
      message: 'internal error; please retry',
    });
  });
});
