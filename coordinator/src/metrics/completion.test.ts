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
    // A label value from an agent keeps to a known, bounded set: anything else is `other`.
    expect(samplesOf(e, 'cutroom_transcription_realtime_ratio_sum', { model: 'other', device: 'cuda' })[0]!.value).toBe(30);
  });

  it('bounds the series agents can create: a thousand odd model and device names make one `other` series', async () => {
    const m = createCoordinatorMetrics();
    for (let i = 0; i < 1000; i++)
      observeAttemptStats(m, 'transcribe', { transcription: { model: `model-${i}`, device: `dev-${i}`, media_seconds: 10, wall_seconds: 1 } });
    observeAttemptStats(m, 'transcribe', { transcription: { model: 'tiny.en', device: 'cpu', media_seconds: 10, wall_seconds: 1 } });
    const e = parsePromText(await m.registry.metrics());
    const series = samplesOf(e, 'cutroom_transcription_media_seconds_total', {}).map((x) => `${x.labels['model']}/${x.labels['device']}`);
    expect(series.sort()).toEqual(['other/other', 'tiny.en/cpu']);
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
