import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ProgressEvent, progressSubject } from '@cutroom/proto';
import { createProgressPublisher } from './progress-publisher.ts';

const fence = { v: 1 as const, job_id: '0190a5a0-0000-7000-8000-000000000001', attempt_id: '0190a5a0-0000-7000-8000-000000000002', agent_id: 'a1' };

function setup() {
  const sent: { subject: string; event: ProgressEvent }[] = [];
  const pub = createProgressPublisher({ fence, publish: (subject, payload) => sent.push({ subject, event: ProgressEvent.parse(JSON.parse(payload)) }) });
  return { pub, sent, fractions: () => sent.map((s) => s.event.fraction) };
}

describe('createProgressPublisher', () => {
  beforeEach(() => vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') }));
  afterEach(() => vi.useRealTimers());

  it('sends the first report at once, as a valid ProgressEvent on the job subject', () => {
    const { pub, sent } = setup();
    pub.report('transcribing', 0.1);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ subject: progressSubject(fence.job_id), event: { stage: 'transcribing', fraction: 0.1, attempt_id: fence.attempt_id } });
  });

  it('coalesces a burst: newest wins, at most one per second', () => {
    const { pub, fractions } = setup();
    pub.report('transcribing', 0.1);
    for (const f of [0.2, 0.4, 0.6, 0.8]) pub.report('transcribing', f);
    expect(fractions()).toEqual([0.1]);
    vi.advanceTimersByTime(999);
    expect(fractions()).toEqual([0.1]);
    vi.advanceTimersByTime(1);
    expect(fractions()).toEqual([0.1, 0.8]);
  });

  it('spaces sends across a long stream of reports', () => {
    const { pub, sent } = setup();
    for (let ms = 0; ms < 5000; ms += 100) {
      pub.report('extracting_audio', ms / 5000);
      vi.advanceTimersByTime(100);
    }
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(sent.length).toBeLessThanOrEqual(6);
  });

  it('flush sends the last pending value immediately, close stops everything', () => {
    const { pub, fractions } = setup();
    pub.report('transcribing', 0.5);
    pub.report('transcribing', 1);
    pub.flush();
    expect(fractions()).toEqual([0.5, 1]);
    pub.report('transcribing', 1);
    pub.close();
    pub.report('transcribing', 0.2);
    vi.advanceTimersByTime(5000);
    expect(fractions()).toEqual([0.5, 1, 1]);
  });

  it('survives a publish that throws (progress is lossy)', () => {
    const pub = createProgressPublisher({ fence, publish: () => { throw new Error('closed'); } });
    expect(() => pub.report('transcribing', 0.3)).not.toThrow();
  });
});
