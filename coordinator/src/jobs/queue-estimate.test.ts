import { describe, expect, it } from 'vitest';
import { DEFAULT_ATTEMPT_SECONDS, estimateStart, figuresOf, median, MIN_SAMPLES } from './queue-estimate.ts';
import { JOB_TYPE_DEFINITIONS } from '../job-types/agent-types.ts';

const now = new Date('2026-11-01T00:00:00Z');
const at = (secondsAgo: number) => new Date(now.getTime() - secondsAgo * 1000);
const typical = (t: string) => ({ transcribe: 30, summarize: 100 })[t] ?? 60;

describe('queue estimates', () => {
  it('every agent-run type has default figures', () => {
    for (const t of Object.keys(JOB_TYPE_DEFINITIONS)) expect(DEFAULT_ATTEMPT_SECONDS[t], t).toBeGreaterThan(0);
  });

  it("takes a type's own median once it has enough attempts, the defaults before", () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    const few = { attemptSeconds: Array.from({ length: MIN_SAMPLES - 1 }, () => 10), measuredSeconds: 20, mediaMinutes: 2 };
    expect(figuresOf('transcribe', few)).toMatchObject({ basis: 'defaults', attemptSeconds: DEFAULT_ATTEMPT_SECONDS['transcribe'] });
    const enough = { attemptSeconds: [10, 50, 20], measuredSeconds: 80, mediaMinutes: 16 };
    expect(figuresOf('transcribe', enough)).toEqual({ basis: 'recent jobs', attemptSeconds: 20, secondsPerMediaMinute: 5 });
  });

  it('starts a job when the running and the queued ahead have gone through the agents of its kind', () => {
    // One agent: a transcribe 10 s into its 30, then two queued ahead (30 + 100).
    const one = estimateStart(
      { kind: 'transcribe', slots: 1, running: [{ jobType: 'transcribe', startedAt: at(10) }], ahead: ['transcribe', 'summarize'] },
      now,
      typical,
    );
    expect(one).toEqual(new Date(now.getTime() + (20 + 30 + 100) * 1000));
    // Two agents share the same line: 20 | 30 → the 100 goes after the 20; the next free slot is at 30.
    const two = estimateStart(
      { kind: 'transcribe', slots: 2, running: [{ jobType: 'transcribe', startedAt: at(10) }], ahead: ['transcribe', 'summarize'] },
      now,
      typical,
    );
    expect(two).toEqual(new Date(now.getTime() + 30 * 1000));
    // Nothing ahead and a free agent: now.
    expect(estimateStart({ kind: 'transcribe', slots: 1, running: [], ahead: [] }, now, typical)).toEqual(now);
  });

  it('counts an attempt past its typical time as ending soon, and answers null with no agent for the kind', () => {
    const late = estimateStart({ kind: 'transcribe', slots: 1, running: [{ jobType: 'transcribe', startedAt: at(600) }], ahead: [] }, now, typical);
    expect(late).toEqual(new Date(now.getTime() + 3 * 1000));
    expect(estimateStart({ kind: 'transcribe', slots: 0, running: [], ahead: ['transcribe'] }, now, typical)).toBeNull();
  });
});
