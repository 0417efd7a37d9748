import { describe, expect, it } from 'vitest';
import { FailRequest } from './messages.ts';

const fence = { v: 1, job_id: crypto.randomUUID(), attempt_id: crypto.randomUUID(), agent_id: 'agent-1' };
const message = 'ffprobe: moov atom not found';

describe('FailRequest', () => {
  it('takes a fail without a detail, as agents sent it before failure details', () => {
    const r = FailRequest.parse({ ...fence, code: 'media_invalid', message });
    expect(r).toEqual({ ...fence, code: 'media_invalid', message, detail: undefined });
  });

  it('keeps a catalogue detail as sent', () => {
    const detail = { code: 'not_media', params: { reason: 'unreadable' } };
    expect(FailRequest.parse({ ...fence, code: 'media_invalid', message, detail }).detail).toEqual(detail);
  });

  it('drops a detail it cannot read instead of refusing the fail (a newer agent, free text, out of bounds)', () => {
    for (const detail of [
      { code: 'a_later_detail', params: { n: 1 } },
      { code: 'format_refused', params: { detected: 'visit https://evil.example for a refund' } },
      { code: 'too_long', params: { duration_seconds: -1 } },
      'visit https://evil.example for a refund',
    ]) {
      const r = FailRequest.safeParse({ ...fence, code: 'media_invalid', message, detail });
      expect(r.success, JSON.stringify(detail)).toBe(true);
      expect(r.data).toMatchObject({ code: 'media_invalid', message, detail: undefined });
    }
    // The rest of the body is still checked.
    expect(FailRequest.safeParse({ ...fence, code: 'lease_expired', message }).success).toBe(false);
  });
});
