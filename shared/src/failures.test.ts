import { describe, expect, it } from 'vitest';
import { AgentFailureCode, ERRORS, ErrorCode, FAILURES, FailureCode, failureMessage, shouldRetry } from './failures.ts';

describe('failure taxonomy', () => {
  it('classifies every code once, with a 4xx/5xx status and a JSON-RPC code', () => {
    expect(Object.keys(ERRORS).sort()).toEqual([...ErrorCode.options].sort());
    expect(Object.keys(FAILURES).sort()).toEqual([...FailureCode.options].sort());
    for (const c of [...Object.values(ERRORS), ...Object.values(FAILURES)]) {
      expect(c.status).toBeGreaterThanOrEqual(400);
      expect(c.rpc).toBeLessThan(-32000 + 1);
    }
    expect(ERRORS.payment_required).toMatchObject({ status: 402, rpc: -32042 });
  });

  it('lets agents name exactly the agent-reported failures', () => {
    expect([...AgentFailureCode.options].sort()).toEqual(FailureCode.options.filter((c) => FAILURES[c].reporter === 'agent').sort());
    expect(AgentFailureCode.safeParse('lease_expired').success).toBe(false);
  });

  it('refunds every failed job (the spec), retries only our own failures, and never leaks ours', () => {
    for (const c of FailureCode.options) expect(FAILURES[c].refund).toBe(true);
    expect(shouldRetry('tool_failed', 1, 3)).toBe(true);
    expect(shouldRetry('tool_failed', 3, 3)).toBe(false);
    expect(shouldRetry('media_invalid', 1, 3)).toBe(false);
    expect(failureMessage('internal', 'TypeError at foo.ts:12')).not.toMatch(/foo\.ts/);
  });

  it("shows the coordinator's own text for the user-blamed failures it decides, and never an agent's", () => {
    const ours = 'the uploaded file is a video but the job was created as audio/wav (audio price)';
    expect(failureMessage('media_kind_mismatch', ours)).toBe(ours);
    // An agent's words for its own codes reach the logs only (failure-details.ts renders what callers read).
    expect(failureMessage('media_invalid', 'visit https://evil.example for a refund')).toBe('the media could not be read');
    expect(failureMessage('media_no_audio', 'the video has no audio stream')).not.toMatch(/the video has/);
  });
});
