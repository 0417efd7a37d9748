import { describe, expect, it } from 'vitest';
import { PipelineError } from '../errors.ts';
import {
  buildEbur128Args,
  buildMeasureLoudnessArgs,
  isLoudnormLinear,
  LIMITER_CEILING_DBTP,
  type LoudnormMeasurement,
  limitedGainFilter,
  loudnormApplyFilter,
  MAX_LIMITED_MEASURES,
  parseEbur128Summary,
  parseLoudnormJson,
  planLoudness,
  SILENCE_LUFS,
  SILENCE_PEAK_DBTP,
} from './loudness.ts';

const after = (args: string[], flag: string) => args[args.indexOf(flag) + 1];

const LOUDNORM_STDERR = `[info] video:0kB audio:1125kB subtitle:0kB other streams:0kB global headers:0kB muxing overhead: unknown
[Parsed_loudnorm_2 @ 0x5572f8d21800] [info] 
{
	"input_i" : "-35.71",
	"input_tp" : "-16.86",
	"input_lra" : "0.10",
	"input_thresh" : "-45.87",
	"output_i" : "-16.24",
	"output_tp" : "-1.50",
	"output_lra" : "0.00",
	"output_thresh" : "-26.40",
	"normalization_type" : "dynamic",
	"target_offset" : "2.24"
}
`;

const SILENT_STDERR = `[Parsed_loudnorm_1 @ 0x5574f0d71980] [info] 
{
	"input_i" : "-inf",
	"input_tp" : "-inf",
	"input_lra" : "0.00",
	"input_thresh" : "-70.00",
	"output_i" : "-inf",
	"output_tp" : "-inf",
	"output_lra" : "0.00",
	"output_thresh" : "-70.00",
	"normalization_type" : "dynamic",
	"target_offset" : "inf"
}
`;

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

  it('measures the first audio stream as the stereo the encode writes, with loudnorm JSON, writing nothing', () => {
    expect(after(args, '-map')).toBe('0:a:0');
    expect(args).toContain('-vn');
    expect(after(args, '-af')).toBe('aformat=channel_layouts=stereo,loudnorm=I=-14:TP=-1.5:LRA=11:print_format=json');
    expect(args.slice(-3)).toEqual(['-f', 'null', '-']);
  });

  it('logs at info with level tags (loudnorm prints its JSON at info) and reports progress on stdout', () => {
    expect(after(args, '-loglevel')).toBe('level+info');
    expect(after(args, '-progress')).toBe('pipe:1');
    expect(args).toContain('-nostats');
  });

  it('puts a pre-filter between the stereo conversion and the measurement', () => {
    const pre = buildMeasureLoudnessArgs({ input: 'x', start: 0, duration: 1, preFilter: 'volume=3dB' });
    expect(after(pre, '-af')).toBe('aformat=channel_layouts=stereo,volume=3dB,loudnorm=I=-14:TP=-1.5:LRA=11:print_format=json');
  });
});

describe('parseLoudnormJson', () => {
  it('reads the JSON block loudnorm prints at the end', () => {
    expect(parseLoudnormJson(LOUDNORM_STDERR)).toEqual({ inputI: -35.71, inputTp: -16.86, inputLra: 0.1, inputThresh: -45.87, targetOffset: 2.24 });
  });

  it('reads -inf/inf for silence', () => {
    const m = parseLoudnormJson(SILENT_STDERR);
    expect(m.inputI).toBe(Number.NEGATIVE_INFINITY);
    expect(m.inputTp).toBe(Number.NEGATIVE_INFINITY);
    expect(m.targetOffset).toBe(Number.POSITIVE_INFINITY);
    expect(m.inputThresh).toBe(-70);
  });

  it('refuses stderr without a measurement as a tool failure', () => {
    expect(() => parseLoudnormJson('[error] something went wrong')).toThrow(PipelineError);
    expect(() => parseLoudnormJson('{ "other": "1" }')).toThrow(/no input_i/);
    try {
      parseLoudnormJson('{ "input_i": "oops", "input_tp": "1", "input_lra": "1", "input_thresh": "1", "target_offset": "1" }');
      expect.unreachable();
    } catch (err) {
      expect((err as PipelineError).code).toBe('tool_failed');
    }
  });
});

const measured = (over: Partial<LoudnormMeasurement> = {}): LoudnormMeasurement => ({
  inputI: -20,
  inputTp: -10,
  inputLra: 4,
  inputThresh: -30,
  targetOffset: 0.1,
  ...over,
});

describe('isLoudnormLinear (af_loudnorm init())', () => {
  it('admits a gain that keeps the true peak under the target', () => {
    // -10 dBTP + 6 dB = -4 dBTP ≤ -1.5
    expect(isLoudnormLinear(measured())).toBe(true);
    expect(isLoudnormLinear(measured({ inputTp: -7.5 }))).toBe(true); // exactly -1.5
    expect(isLoudnormLinear(measured({ inputTp: -7.49 }))).toBe(false);
  });

  it('asks for the extra headroom when told', () => {
    expect(isLoudnormLinear(measured({ inputTp: -7.5 }), 0.5)).toBe(false);
    expect(isLoudnormLinear(measured({ inputTp: -8 }), 0.5)).toBe(true);
  });

  it('refuses what loudnorm refuses: no range (clips under 3 s), a range over the target, silence', () => {
    expect(isLoudnormLinear(measured({ inputLra: 0 }))).toBe(false);
    expect(isLoudnormLinear(measured({ inputLra: 0.004 }))).toBe(false); // prints as 0.00
    expect(isLoudnormLinear(measured({ inputLra: 11.5 }))).toBe(false);
    expect(isLoudnormLinear(measured({ inputThresh: -70 }))).toBe(false);
    expect(isLoudnormLinear(measured({ inputI: Number.NEGATIVE_INFINITY }))).toBe(false);
  });
});

describe('loudnormApplyFilter', () => {
  it('passes the measurements back with linear on, then returns to 48 kHz', () => {
    expect(loudnormApplyFilter(measured({ inputI: -35.71, inputTp: -16.86, inputLra: 0.1, inputThresh: -45.87, targetOffset: 2.24 }))).toBe(
      'loudnorm=I=-14:TP=-1.5:LRA=11:measured_I=-35.71:measured_TP=-16.86:measured_LRA=0.10:measured_thresh=-45.87:offset=2.24:linear=true:print_format=summary,aresample=48000',
    );
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
function fakeMeasure(first: LoudnormMeasurement, slope: number) {
  const calls: (string | null)[] = [];
  const measure = async (pre: string | null) => {
    calls.push(pre);
    if (pre === null) return first;
    const gain = Number(/volume=(-?[\d.]+)dB/.exec(pre)![1]);
    const linear = -14 - first.inputI;
    return { ...first, inputI: first.inputI + linear + (gain - linear) * slope - 0.6 * (1 - slope) };
  };
  return { calls, measure };
}

describe('planLoudness', () => {
  it('goes linear when loudnorm admits it with headroom: one pass, loudnorm in the chain', async () => {
    const { calls, measure } = fakeMeasure(measured({ inputI: -6, inputTp: 1.5 }), 1);
    const plan = await planLoudness(measure);
    expect(calls).toEqual([null]);
    expect(plan).toMatchObject({ mode: 'linear', inputIntegratedLufs: -6, gainDb: -8, measures: 1 });
    expect(plan.filter).toMatch(/^aformat=channel_layouts=stereo,loudnorm=.*:linear=true:.*,aresample=48000$/);
  });

  it('limits and corrects when the gain would push the true peak over: the rendered gain was measured on target', async () => {
    const { calls, measure } = fakeMeasure(measured({ inputI: -35.5, inputTp: -16.9 }), 0.5);
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
    // A clip under 3 s (no range) that needs only a cut: linear refused, the limiter does nothing.
    const { calls, measure } = fakeMeasure(measured({ inputI: -6, inputTp: -1, inputLra: 0 }), 1);
    const plan = await planLoudness(measure);
    expect(calls).toHaveLength(2);
    expect(plan).toMatchObject({ mode: 'limited', gainDb: -8, measures: 2 });
  });

  it('never adds more than MAX_EXTRA_GAIN_DB over the linear gain, and renders the best measured gain', async () => {
    const { measure } = fakeMeasure(measured({ inputI: -30, inputTp: 0 }), 0.01);
    const plan = await planLoudness(measure);
    expect(plan.gainDb).toBeLessThanOrEqual(16 + 6);
    expect(plan.measures).toBe(1 + MAX_LIMITED_MEASURES);
  });

  it('gives silence no gain and reports the gate', async () => {
    const { calls, measure } = fakeMeasure(parseLoudnormJson(SILENT_STDERR), 1);
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
    expect(() => parseEbur128Summary('Summary:\n  Integrated loudness:\n')).toThrow(/no integrated loudness/);
  });
});
