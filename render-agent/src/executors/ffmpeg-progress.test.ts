import { describe, expect, it } from 'vitest';
import { createFfmpegProgressParser } from './ffmpeg-progress.ts';

// Shape captured from ffmpeg 5.1 `-progress pipe:1 -nostats` on a WAV extraction.
const block = (us: string, progress = 'continue') =>
  `bitrate= 256.0kbits/s\ntotal_size=78\nout_time_us=${us}\nout_time_ms=${us}\nout_time=00:00:00.000000\ndup_frames=0\ndrop_frames=0\nspeed=N/A\nprogress=${progress}\n`;

describe('createFfmpegProgressParser', () => {
  it('turns blocks into fractions of the duration', () => {
    const p = createFfmpegProgressParser(10);
    expect(p.push(block('2500000') + block('5000000'))).toEqual([0.25, 0.5]);
    expect(p.push(block('10000000', 'end'))).toEqual([1]);
  });

  it('tolerates chunks split mid-line', () => {
    const p = createFfmpegProgressParser(4);
    const text = block('1000000') + block('3000000');
    const got: number[] = [];
    for (let i = 0; i < text.length; i += 7) got.push(...p.push(text.slice(i, i + 7)));
    expect(got).toEqual([0.25, 0.75]);
  });

  it('handles N/A, unknown duration, and never goes backwards', () => {
    const p = createFfmpegProgressParser(10);
    expect(p.push(block('N/A'))).toEqual([0]);
    expect(p.push(block('6000000') + block('5900000'))).toEqual([0.6, 0.6]);
    const unknown = createFfmpegProgressParser(0);
    expect(unknown.push(block('6000000') + block('7000000', 'end'))).toEqual([0, 1]);
  });

  it('clamps past-the-end times to 1', () => {
    expect(createFfmpegProgressParser(1).push(block('1500000'))).toEqual([1]);
  });
});
