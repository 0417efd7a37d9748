import { describe, expect, it } from 'vitest';
import { ProgressEvent, progressSubject } from '@cutroom/proto';
import { createManualClock } from '../manual-clock.ts';
import { createProgressPublisher } from './progress-publisher.ts';

const fence = { v: 1 as const, job_id: '0190a5a0-0000-7000-8000-000000000001', attempt_id: '0190a5a0-0000-7000-8000-000000000002', agent_id: 'a1' };
const START = Date.parse('2026-01-01T00:00:00Z');

function setup() {
  const clock = createManualClock(START);
  const sent: { subject: string; event: ProgressEvent }[] = [];
  const pub = createProgressPublisher({ fence, clock, publish: (subject, payload) => sent.push({ subject, event: ProgressEvent.parse(JSON.parse(payload)) }) });
  return { clock, pub, sent, fractions: () => sent.map((s) => s.event.fraction) };
}

describe('createProgressPublisher', () => {
  it('sends the first report at once, as a valid ProgressEvent on the job subject, stamped by the clock', () => {
    const { pub, sent } = setup();
    pub.report('transcribing', 0.1);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      subject: progressSubject(fence.agent_id, fence.job_id),
      event: { stage: 'transcribing', fraction: 0.1, attempt_id: fence.attempt_id, at: '2026-01-01T00:00:00.000Z' },
    });
  });

  it('coalesces a burst: newest wins, at most one per second', async () => {
    const { clock, pub, fractions } = setup();
    pub.report('transcribing', 0.1);
    for (const f of [0.2, 0.4, 0.6, 0.8]) pub.report('transcribing', f);
    expect(fractions()).toEqual([0.1]);
    await clock.advance(999);
    expect(fractions()).toEqual([0.1]);
    await clock.advance(1);
    expect(fractions()).toEqual([0.1, 0.8]);
  });

  it('spaces sends across a long stream of reports', async () => {
    const { clock, pub, sent } = setup();
    for (let ms = 0; ms < 5000; ms += 100) {
      pub.report('extracting_audio', ms / 5000);
      await clock.advance(100);
    }
    expect(sent.length).toBeGreaterThanOrEqual(5);
    expect(sent.length).toBeLessThanOrEqual(6);
  });

  it('flush sends the last pending value immediately, close stops everything', async () => {
    const { clock, pub, fractions } = setup();
    pub.report('transcribing', 0.5);
    pub.report('transcribing', 1);
    pub.flush();
    expect(fractions()).toEqual([0.5, 1]);
    pub.report('transcribing', 1);
    pub.close();
    pub.report('transcribing', 0.2);
    await clock.advance(5000);
    expect(fractions()).toEqual([0.5, 1, 1]);
    expect(clock.pending()).toBe(0);
  });

  it('survives a publish that throws (progress is lossy)', () => {
    const pub = createProgressPublisher({
      fence,
      clock: createManualClock(START),
      publish: () => {
        throw new Error('closed');
      },
    });
    expect(() => pub.report('transcribing', 0.3)).not.toThrow();
  });
});
