import { Errors } from 'mppx';
import { describe, expect, it } from 'vitest';
import { PROBLEM_TYPES, PaymentProblem } from '../types.ts';
import { PROBLEM_STATUS, PROBLEM_TITLES, paymentProblem, problemBody, problemFromError, problemTypeUrl } from './problem.ts';

describe('problem+json bodies', () => {
  it('builds the PaymentRequired402 body', () => {
    expect(problemBody('payment-required', 'Payment is required (transcribe job 3f).', { challengeId: 'abc' })).toEqual({
      type: 'https://paymentauth.org/problems/payment-required',
      title: 'Payment Required',
      status: 402,
      detail: 'Payment is required (transcribe job 3f).',
      challengeId: 'abc',
    });
  });

  it('omits challengeId when there is none', () => {
    expect(problemBody('method-unsupported', 'x')).not.toHaveProperty('challengeId');
    expect(problemBody('method-unsupported', 'x').status).toBe(400);
  });

  it("a problem that is not a 402 carries the spec's {error} beside the problem fields; a 402 stays the spec's PaymentRequired402", () => {
    expect(problemBody('method-unsupported', 'payment method tempo is not accepted here')).toEqual({
      type: 'https://paymentauth.org/problems/method-unsupported',
      title: 'Method Unsupported',
      status: 400,
      detail: 'payment method tempo is not accepted here',
      error: 'payment method tempo is not accepted here',
    });
    expect(problemFromError(new PaymentProblem('method-unsupported', 'x402 is not accepted here'))).toMatchObject({
      status: 400,
      error: 'x402 is not accepted here',
    });
    for (const t of PROBLEM_TYPES.filter((t) => PROBLEM_STATUS[t] === 402)) expect(problemBody(t, 'd')).not.toHaveProperty('error');
  });

  it('has a title and a status for every problem type', () => {
    for (const t of PROBLEM_TYPES) {
      expect(PROBLEM_TITLES[t]).toMatch(/^[A-Z]/);
      expect([400, 402]).toContain(PROBLEM_STATUS[t]);
      expect(problemTypeUrl(t)).toBe(`https://paymentauth.org/problems/${t}`);
    }
  });

  it('matches mppx Errors type URLs, titles and statuses', () => {
    const pairs = [
      ['payment-required', new Errors.PaymentRequiredError()],
      ['malformed-credential', new Errors.MalformedCredentialError()],
      ['invalid-challenge', new Errors.InvalidChallengeError()],
      ['verification-failed', new Errors.VerificationFailedError()],
      ['payment-insufficient', new Errors.PaymentInsufficientError()],
      ['payment-expired', new Errors.PaymentExpiredError()],
      ['method-unsupported', new Errors.PaymentMethodUnsupportedError()],
    ] as const;
    for (const [type, err] of pairs) {
      const theirs = err.toProblemDetails('id1');
      const ours = problemBody(type, theirs.detail, { challengeId: 'id1' });
      expect(ours).toEqual({
        type: theirs.type,
        title: theirs.title,
        status: theirs.status,
        detail: theirs.detail,
        challengeId: 'id1',
        // Ours adds the spec's {error} where the status is not 402 (problem+json allows extension members).
        ...(theirs.status !== 402 && { error: theirs.detail }),
      });
    }
  });

  it('paymentProblem carries the draft status and the challenge id', () => {
    const p = paymentProblem('verification-failed', 'bad signature', { challengeId: 'c1' });
    expect(p).toBeInstanceOf(PaymentProblem);
    expect(p.status).toBe(402);
    expect(p.challengeId).toBe('c1');
    expect(problemFromError(p)).toEqual({
      type: 'https://paymentauth.org/problems/verification-failed',
      title: 'Verification Failed',
      status: 402,
      detail: 'bad signature',
      challengeId: 'c1',
    });
    expect(problemFromError(p, 'fresh').challengeId).toBe('fresh');
  });
});
