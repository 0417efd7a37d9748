import { describe, expect, it } from 'vitest';
import { observeAttemptStats } from './completion.ts';
import { parsePromText, samplesOf } from './prom-text.ts';
import { createCoordinatorMetrics } from './registry.ts';

describe('observeAttemptStats', () => {
  it('records encode speed per encoder and job type, and Whisper speed per model and device', async () => {
    const m = createCoordinatorMetrics();
    observeAttemptStats(m, 'extract_vertical_clip', { encode: { encoder: 'h264_nvenc', frames: 900, wall_seconds: 3 } });
    observeAttemptStats(m, 'summarize', {
      transcription: { model: 'large-v3 "x"', device: 'cuda', media_seconds: 600, wall_seconds: 20 },
    });
    const e = parsePromText(await m.registry.metrics());
    const enc = { job_type: 'extract_vertical_clip', encoder: 'h264_nvenc' };
    expect(samplesOf(e, 'cutroom_encode_frames_per_second_sum', enc)[0]!.value).toBe(300);
    expect(samplesOf(e, 'cutroom_encode_frames_total', enc)[0]!.value).toBe(900);
    expect(samplesOf(e, 'cutroom_encode_wall_seconds_total', enc)[0]!.value).toBe(3);
    // A label value from an agent keeps to a safe set.
    expect(samplesOf(e, 'cutroom_transcription_realtime_ratio_sum', { model: 'large-v3__x_', device: 'cuda' })[0]!.value).toBe(30);
  });

  it('records no ratio without a positive wall time, nor without stats', async () => {
    const m = createCoordinatorMetrics();
    observeAttemptStats(m, 'extract_clip', { encode: { encoder: 'libx264', frames: 10, wall_seconds: 0 } });
    observeAttemptStats(m, 'transcribe', { transcription: { model: 'tiny.en', device: 'cpu', media_seconds: 5, wall_seconds: 0 } });
    observeAttemptStats(m, 'transcribe', undefined);
    const e = parsePromText(await m.registry.metrics());
    expect(e.samples).toEqual([]);
  });
});
