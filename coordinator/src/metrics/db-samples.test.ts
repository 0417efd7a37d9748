import { describe, expect, it } from 'vitest';
import { dollarsOf, jobSamples, ledgerSamples, outcomeOf } from './db-samples.ts';

describe('outcomeOf', () => {
  it('keeps how a job ended after retention deleted it', () => {
    expect(outcomeOf({ status: 'completed', errorCode: null, finished: true })).toBe('completed');
    expect(outcomeOf({ status: 'failed', errorCode: 'media_invalid', finished: true })).toBe('failed');
    expect(outcomeOf({ status: 'deleted', errorCode: null, finished: true })).toBe('completed');
    expect(outcomeOf({ status: 'deleted', errorCode: 'lease_expired', finished: true })).toBe('failed');
    expect(outcomeOf({ status: 'deleted', errorCode: null, finished: false })).toBe('abandoned');
    expect(outcomeOf({ status: 'transcribing', errorCode: null, finished: false })).toBeNull();
  });
});

describe('jobSamples', () => {
  it('folds job groups into status gauges and created / finished / failed counters', () => {
    const s = jobSamples([
      { jobType: 'transcribe', status: 'completed', errorCode: null, finished: true, count: 5 },
      { jobType: 'transcribe', status: 'deleted', errorCode: null, finished: true, count: 2 },
      { jobType: 'transcribe', status: 'deleted', errorCode: 'media_invalid', finished: true, count: 1 },
      { jobType: 'transcribe', status: 'failed', errorCode: 'media_invalid', finished: true, count: 1 },
      { jobType: 'transcribe', status: 'deleted', errorCode: null, finished: false, count: 3 },
      { jobType: 'extract_clip', status: 'analyzing', errorCode: null, finished: false, count: 4 },
    ]);
    expect(s.created).toEqual(
      new Map([
        ['transcribe', 12],
        ['extract_clip', 4],
      ]),
    );
    expect([...s.finished.values()]).toEqual([
      { job_type: 'transcribe', outcome: 'completed', n: 7 },
      { job_type: 'transcribe', outcome: 'failed', n: 2 },
      { job_type: 'transcribe', outcome: 'abandoned', n: 3 },
    ]);
    expect([...s.failed.values()]).toEqual([{ job_type: 'transcribe', code: 'media_invalid', n: 2 }]);
    expect([...s.byStatus.values()]).toContainEqual({ job_type: 'transcribe', status: 'deleted', n: 6 });
    expect([...s.byStatus.values()]).toContainEqual({ job_type: 'extract_clip', status: 'analyzing', n: 4 });
  });
});

describe('ledgerSamples', () => {
  it('splits payments, refunds and open rows, with done amounts in dollars', () => {
    const s = ledgerSamples([
      { rail: 'card', kind: 'charge', state: 'done', count: 3, amount: 1050n },
      { rail: 'chain', kind: 'charge', state: 'done', count: 2, amount: 2_500_000n },
      { rail: 'chain', kind: 'charge', state: 'failed', count: 1, amount: 1_000_000n },
      { rail: 'card', kind: 'refund', state: 'done', count: 1, amount: 350n },
      { rail: 'chain', kind: 'refund', state: 'sending', count: 1, amount: 500_000n },
      { rail: 'card', kind: 'refund', state: 'pending', count: 2, amount: 700n },
    ]);
    expect(s.payments).toEqual([
      { rail: 'card', kind: 'charge', outcome: 'done', n: 3 },
      { rail: 'chain', kind: 'charge', outcome: 'done', n: 2 },
      { rail: 'chain', kind: 'charge', outcome: 'failed', n: 1 },
    ]);
    expect(s.paymentDollars).toEqual([
      { rail: 'card', kind: 'charge', dollars: 10.5 },
      { rail: 'chain', kind: 'charge', dollars: 2.5 },
    ]);
    expect(s.refunds).toEqual([{ rail: 'card', outcome: 'done', n: 1 }]);
    expect(s.refundDollars).toEqual([{ rail: 'card', dollars: 3.5 }]);
    expect(s.open).toEqual([
      { rail: 'chain', kind: 'refund', state: 'sending', n: 1 },
      { rail: 'card', kind: 'refund', state: 'pending', n: 2 },
    ]);
  });

  it('converts base units exactly and leaves an unknown rail out', () => {
    expect(dollarsOf('chain', 123_456_789_012_345n)).toBeCloseTo(123_456_789.012345, 6);
    expect(dollarsOf('card', 1n)).toBe(0.01);
    expect(dollarsOf('barter', 5n)).toBeNull();
  });
});
