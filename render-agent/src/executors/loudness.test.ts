import { describe, expect, it } from 'vitest';
import { PipelineError } from '../errors.ts';
import {
  buildEbur128Args,
  buildMeasureLoudnessArgs,
  isLinear,
  LIMITER_CEILING_DBTP,
  type LoudnessMeasurement,
  limitedGainFilter,
  linearGainFilter,
  MAX_LIMITED_MEASURES,
  parseEbur128Summary,
  planLoudness,
  SILENCE_LUFS,
  SILENCE_PEAK_DBTP,
} from './loudness.ts';

const after = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

const EBUR128_STDERR = `[info] size=N/A time=00:00:03.00 bitrate=N/A speed= 128x    
[Parsed_ebur128_0 @ 0x556e1e8fc440] [info] Summary:

  Integrated loudness:
    I:         -14.1 LUFS
    Threshold: -24.2 LUFS

  Loudness range:
    LRA:         3.4 LU
    Threshold: -34.5 LUFS
    LRA low:   -16.6 LUFS
    LRA high:  -13.2 LUFS

  True peak:
    Peak:       -1.9 dBFS
`;

describe('buildMeasureLoudnessArgs', () => {
  const args = buildMeasureLoudnessArgs({ input: '/work/a b/-source', start: 12.5, duration: 30 });

  it('seeks the input to the clip range and reads it as a guarded local file', () => {
    const input = args.indexOf('-i');
    expect(args[input + 1]).toBe('file:/work/a b/-source');
    expect(after(args, '-ss')).toBe('12.500000');
    expect(after(args, '-t')).toBe('30.000000');
    expect(args.indexOf('-ss')).toBeLessThan(input);
    expect(args.indexOf('-t')).toBeLessThan(input);
    expect(args.indexOf('-protocol_whitelist')).toBeLessThan(input);
    expect(args.indexOf('-format_whitelist')).toBeLessThan(input);
  });

  it('measures the first audio stream as the 48 kHz stereo the encode writes, with the true-peak meter, writing nothing', () => {
    expect(after(args, '-map')).toBe('0:a:0');
    expect(args).toContain('-vn');
    expect(after(args, '-af')).toBe('aformat=channel_layouts=stereo,aresample=48000,ebur128=peak=true:framelog=verbose');
    expect(args.slice(-3)).toEqual(['-f', 'null', '-']);
  });

  it('logs at info with level tags (ebur128 prints its summary at info) and reports progress on stdout', () => {
    expect(after(args, '-loglevel')).toBe('level+info');
    expect(after(args, '-progress')).toBe('pipe:1');
    expect(args).toContain('-nostats');
  });

  it('puts a pre-filter (ending at the output rate) between the stereo conversion and the meter', () => {
    const pre = buildMeasureLoudnessArgs({ input: 'x', start: 0, duration: 1, preFilter: limitedGainFilter(3) });
    expect(after(pre, '-af')).toBe(`aformat=channel_layouts=stereo,${limitedGainFilter(3)},ebur128=peak=true:framelog=verbose`);
  });
});

const measured = (over: Partial<LoudnessMeasurement> = {}): LoudnessMeasurement => ({ integratedLufs: -20, truePeakDbtp: -10, ...over });
const SILENT: LoudnessMeasurement = { integratedLufs: SILENCE_LUFS, truePeakDbtp: SILENCE_PEAK_DBTP };

describe('isLinear', () => {
  it('admits a gain that keeps the true peak under the target', () => {
    // -10 dBTP + 6 dB = -4 dBTP ≤ -1.5
    expect(isLinear(measured())).toBe(true);
    expect(isLinear(measured({ truePeakDbtp: -7.5 }))).toBe(true); // exactly -1.5
    expect(isLinear(measured({ truePeakDbtp: -7.49 }))).toBe(false);
    // A cut: -6 LUFS with a peak of 0 dBTP, 8 dB down → -8 dBTP.
    expect(isLinear(measured({ integratedLufs: -6, truePeakDbtp: 0 }))).toBe(true);
  });

  it('asks for the extra headroom when told', () => {
    expect(isLinear(measured({ truePeakDbtp: -7.5 }), 0.5)).toBe(false);
    expect(isLinear(measured({ truePeakDbtp: -8 }), 0.5)).toBe(true);
  });

  it('refuses silence', () => {
    expect(isLinear(SILENT)).toBe(false);
    expect(isLinear(measured({ integratedLufs: Number.NEGATIVE_INFINITY }))).toBe(false);
  });
});

describe('linearGainFilter', () => {
  it('is one static gain, then the output rate', () => {
    expect(linearGainFilter(-7.94321)).toBe('volume=-7.943dB,aresample=48000');
  });
});

describe('limitedGainFilter', () => {
  it('applies the gain, then limits at 4x oversampling under the ceiling, in sync, without auto-level', () => {
    const f = limitedGainFilter(21.7123);
    expect(f.startsWith('volume=21.712dB,aresample=192000,alimiter=')).toBe(true);
    expect(f).toContain(':level=false');
    expect(f).toContain(':latency=true');
    expect(f.endsWith(',aresample=48000')).toBe(true);
    const limit = Number(/limit=([\d.]+)/.exec(f)![1]);
    expect(20 * Math.log10(limit)).toBeCloseTo(LIMITER_CEILING_DBTP, 3);
    expect(LIMITER_CEILING_DBTP).toBeLessThan(-1.5);
  });
});

/** A stand-in for ffmpeg: the limiter gives back `slope` dB of loudness per dB of gain over the linear one. */
function fakeMeasure(first: LoudnessMeasurement, slope: number) {
  const calls: (string | null)[] = [];
  const measure = async (pre: string | null) => {
    calls.push(pre);
    if (pre === null) return first;
    const gain = Number(/volume=(-?[\d.]+)dB/.exec(pre)![1]);
    const linear = -14 - first.integratedLufs;
    return { truePeakDbtp: LIMITER_CEILING_DBTP, integratedLufs: first.integratedLufs + linear + (gain - linear) * slope - 0.6 * (1 - slope) };
  };
  return { calls, measure };
}

describe('planLoudness', () => {
  it('goes linear when the peak leaves the headroom: one pass, one static gain in the chain', async () => {
    const { calls, measure } = fakeMeasure(measured({ integratedLufs: -6, truePeakDbtp: 1.5 }), 1);
    const plan = await planLoudness(measure);
    expect(calls).toEqual([null]);
    expect(plan).toMatchObject({ mode: 'linear', inputIntegratedLufs: -6, gainDb: -8, measures: 1 });
    expect(plan.filter).toBe('aformat=channel_layouts=stereo,volume=-8.000dB,aresample=48000');
  });

  it('limits and corrects when the gain would push the true peak over: the rendered gain was measured on target', async () => {
    const { calls, measure } = fakeMeasure(measured({ integratedLufs: -35.5, truePeakDbtp: -16.9 }), 0.5);
    const plan = await planLoudness(measure);
    expect(plan.mode).toBe('limited');
    expect(plan.inputIntegratedLufs).toBe(-35.5);
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.length).toBeLessThanOrEqual(1 + MAX_LIMITED_MEASURES);
    expect(plan.measures).toBe(calls.length);
    expect(Math.abs(plan.expectedLufs! + 14)).toBeLessThanOrEqual(0.15);
    expect(plan.gainDb).toBeGreaterThan(21.5);
    expect(plan.filter).toBe(`aformat=channel_layouts=stereo,${limitedGainFilter(plan.gainDb)}`);
  });

  it('stops after one limited measure when it already lands on target', async () => {
    // A peak within the headroom after the gain: linear refused, the limiter takes back nothing.
    const { calls, measure } = fakeMeasure(measured({ integratedLufs: -20, truePeakDbtp: -7.2 }), 1);
    const plan = await planLoudness(measure);
    expect(calls).toHaveLength(2);
    expect(plan).toMatchObject({ mode: 'limited', gainDb: 6, measures: 2 });
  });

  it('never adds more than MAX_EXTRA_GAIN_DB over the linear gain, and renders the best measured gain', async () => {
    const { measure } = fakeMeasure(measured({ integratedLufs: -30, truePeakDbtp: 0 }), 0.01);
    const plan = await planLoudness(measure);
    expect(plan.gainDb).toBeLessThanOrEqual(16 + 6);
    expect(plan.measures).toBe(1 + MAX_LIMITED_MEASURES);
  });

  it('gives silence no gain and reports the gate', async () => {
    const { calls, measure } = fakeMeasure(parseEbur128Summary(EBUR128_STDERR.replace('-14.1 LUFS', '-70.0 LUFS').replace('-1.9 dBFS', '-inf dBFS')), 1);
    const plan = await planLoudness(measure);
    expect(calls).toEqual([null]);
    expect(plan).toEqual({
      mode: 'silent',
      filter: 'aformat=channel_layouts=stereo,aresample=48000',
      inputIntegratedLufs: SILENCE_LUFS,
      gainDb: 0,
      expectedLufs: null,
      measures: 1,
    });
  });
});

describe('ebur128', () => {
  it('scans the whole file with true peak on and per-frame lines hidden', () => {
    const args = buildEbur128Args('/w/clip.mp4');
    expect(args[args.indexOf('-i') + 1]).toBe('file:/w/clip.mp4');
    expect(after(args, '-af')).toBe('ebur128=peak=true:framelog=verbose');
    expect(args).not.toContain('-ss');
  });

  it('reads integrated loudness and true peak from the Summary', () => {
    expect(parseEbur128Summary(EBUR128_STDERR)).toEqual({ integratedLufs: -14.1, truePeakDbtp: -1.9 });
  });

  it('turns silence into finite floors', () => {
    const silent = EBUR128_STDERR.replace('-14.1 LUFS', '-70.0 LUFS').replace('-1.9 dBFS', '-inf dBFS');
    expect(parseEbur128Summary(silent)).toEqual({ integratedLufs: SILENCE_LUFS, truePeakDbtp: SILENCE_PEAK_DBTP });
  });

  it('refuses output without a summary', () => {
    expect(() => parseEbur128Summary('[info] nothing here')).toThrow(/no ebur128 summary/);
    expect(() => parseEbur128Summary('[info] nothing here')).toThrow(PipelineError);
    expect(() => parseEbur128Summary('Summary:\n  Integrated loudness:\n')).toThrow(/no integrated loudness/);
  });
});
