import { describe, expect, it } from 'vitest';
import { type StageEvent, stageSeconds } from './stage-durations.ts';

const at = (s: number) => new Date(Date.UTC(2026, 10, 1, 0, 0, s));
const ev = (toStatus: StageEvent['toStatus'], reason: string, s: number): StageEvent => ({ toStatus, reason, createdAt: at(s) });

describe('stageSeconds', () => {
  it('splits a transcribe job into queued, extracting_audio and transcribing; the caller’s upload time is not counted', () => {
    const got = stageSeconds([
      ev('pending', 'created', 0),
      ev('uploading', 'prepaid (billing disabled)', 1),
      ev('extracting_audio', 'upload completed', 20),
      ev('extracting_audio', 'claimed by a1', 23),
      ev('transcribing', 'stage', 30),
      ev('completed', 'completed', 90),
    ]);
    expect(Object.fromEntries(got)).toEqual({ queued: 3, extracting_audio: 7, transcribing: 60 });
  });

  it('sums a stage visited twice and counts the wait after a requeue as queued', () => {
    const got = stageSeconds([
      ev('extracting_audio', 'upload completed', 0),
      ev('extracting_audio', 'claimed by a1', 2),
      ev('transcribing', 'stage', 4),
      ev('extracting_audio', 'lease expired', 34),
      ev('extracting_audio', 'claimed by a2', 40),
      ev('transcribing', 'stage', 41),
      ev('completed', 'completed', 51),
    ]);
    expect(Object.fromEntries(got)).toEqual({ queued: 8, extracting_audio: 3, transcribing: 40 });
  });

  it('reads a cut: queued then analyzing from its claim', () => {
    const got = stageSeconds([
      ev('pending', 'created', 0),
      ev('analyzing', 'paid (evm)', 5),
      ev('analyzing', 'claimed by a1', 6),
      ev('completed', 'completed', 16),
    ]);
    expect(Object.fromEntries(got)).toEqual({ queued: 1, analyzing: 10 });
  });

  it('is empty for fewer than two events and never negative', () => {
    expect(stageSeconds([ev('completed', 'completed', 0)]).size).toBe(0);
    expect(Object.fromEntries(stageSeconds([ev('analyzing', 'claimed by a', 10), ev('completed', 'completed', 9)]))).toEqual({ analyzing: 0 });
  });
});
