import { LOUDNESS_TARGET } from '@cutroom/shared/clips/profiles';
import { PipelineError } from '../errors.ts';
import { ffmpegSeconds, PASS_PREAMBLE, runFfmpegPass } from './ffmpeg-pass.ts';
import { asFileUrl, INPUT_GUARD_ARGS } from './media-path.ts';

/**
 * Loudness normalization of a cut to LOUDNESS_TARGET (-14 LUFS integrated, -1.5 dBTP), in two
 * passes: measure the clip's range with ffmpeg's ebur128 meter (BS.1770 integrated loudness and
 * true peak), then apply a gain that the render pass carries in its audio chain. Every chain
 * starts by converting to the 48 kHz stereo the encode writes, so what is measured is what is
 * encoded (a 5.1 downmix changes loudness; mono → stereo does not).
 *
 * Which gain (measured on speech, see test/vertical-render.test.ts):
 * - `linear`: one static gain to the target when the true peak it gives stays CODEC_HEADROOM_DB
 *   under the ceiling (the AAC encode adds up to a few tenths of a dB of true peak).
 * - `limited`: otherwise: the gain to the target, then a true-peak limiter (alimiter at 4x
 *   oversampling, ceiling 0.5 dB under the target), re-measured and corrected (the limiter takes
 *   back some loudness) until within CORRECTION_TOLERANCE_LU, at most MAX_LIMITED_MEASURES times.
 * - `silent`: digital silence (or under the -70 LUFS gate): no gain; reported as -70 LUFS.
 *
 * Why ebur128 and not loudnorm (which measured and applied the gain until 2026-11): loudnorm
 * resamples to 192 kHz to meter, which made a measuring pass over a 65 s clip take 2.6 s against
 * ebur128's 0.5 s, and a clip took up to four passes (10-12 s of a 30 s job); its linear mode is
 * the same static gain as `volume`, and its dynamic mode, which the spec does not ask for, missed
 * by 1.7 LU on short clips. The target's loudness range is not enforced: a static gain keeps the
 * speaker's dynamics, as broadcasters' R128 normalization does.
 */

/** What one measuring pass read: integrated loudness and true peak, SILENCE_* floors for silence. */
export interface LoudnessMeasurement {
  integratedLufs: number;
  truePeakDbtp: number;
}

/** The absolute gate of BS.1770: anything quieter measures as silence. */
export const SILENCE_LUFS = -70;
/** Reported true peak for digital silence (ebur128 prints -inf; JSON has no -Infinity). */
export const SILENCE_PEAK_DBTP = -99;
/** Headroom under the true-peak target that the encode's overshoot may use. */
export const CODEC_HEADROOM_DB = 0.5;
/** The limited path stops correcting once its measured loudness is this close to the target. */
export const CORRECTION_TOLERANCE_LU = 0.15;
/** Most loudness measurements of the limited chain (each one an audio-only pass over the clip). */
export const MAX_LIMITED_MEASURES = 3;
/** The limited path never adds more than this over the linear gain, however much the limiter takes back. */
export const MAX_EXTRA_GAIN_DB = 6;

const T = LOUDNESS_TARGET;
/** Every chain starts here: the stereo the encode writes (AAC_ARGS `-ac 2`). */
const TO_STEREO = 'aformat=channel_layouts=stereo';
/** The rate the encode takes (the limiter runs at 192 kHz). */
const TO_OUTPUT_RATE = 'aresample=48000';
/** The meter: BS.1770 integrated loudness and true peak (4x oversampled), per-frame lines at verbose so not printed. */
const METER = 'ebur128=peak=true:framelog=verbose';

const dbToLinear = (db: number) => 10 ** (db / 20);
const fixed = (n: number, digits = 2) => n.toFixed(digits);

export interface LoudnessRange {
  /** Local path of the source. */
  input: string;
  /** Source seconds. */
  start: number;
  /** Seconds from `start`. */
  duration: number;
}

/**
 * Arguments of one measuring pass over the clip's range (input seek, audio only, no output file).
 * `preFilter` (which ends at the output rate) replaces the plain rate conversion between the
 * stereo conversion and the meter: the limited path measures its own chain's output that way.
 */
export function buildMeasureLoudnessArgs(r: LoudnessRange & { preFilter?: string | null }): string[] {
  const chain = [TO_STEREO, r.preFilter || TO_OUTPUT_RATE, METER].join(',');
  return [
    ...PASS_PREAMBLE,
    ...INPUT_GUARD_ARGS,
    '-ss',
    ffmpegSeconds(r.start),
    '-t',
    ffmpegSeconds(r.duration),
    '-i',
    asFileUrl(r.input),
    '-map',
    '0:a:0',
    '-vn',
    '-sn',
    '-dn',
    '-af',
    chain,
    '-f',
    'null',
    '-',
  ];
}

/** ffmpeg prints `-inf`/`inf` for silence; Number() would make them NaN. */
function parseLevel(value: unknown, field: string): number {
  const text = String(value).trim();
  if (text === '-inf') return Number.NEGATIVE_INFINITY;
  if (text === 'inf' || text === '+inf') return Number.POSITIVE_INFINITY;
  const n = Number(text);
  if (text === '' || Number.isNaN(n)) throw new PipelineError('tool_failed', `ebur128 printed an unreadable ${field}: ${text.slice(0, 40)}`);
  return n;
}

export interface MeasureLoudnessOptions extends LoudnessRange {
  ffmpegPath: string;
  /** Chain applied before measuring (the limited path's gain and limiter); none for the first pass. */
  preFilter?: string | null;
  signal: AbortSignal;
  onProgress?: (fraction: number) => void;
}

/** Pass 1 (and the limited path's re-measurements): the meter over the clip's range. */
export async function measureLoudness(o: MeasureLoudnessOptions): Promise<LoudnessMeasurement> {
  const stderr = await runFfmpegPass({
    ffmpegPath: o.ffmpegPath,
    args: buildMeasureLoudnessArgs(o),
    durationSeconds: o.duration,
    signal: o.signal,
    ...(o.onProgress ? { onProgress: o.onProgress } : {}),
    step: 'measuring_loudness',
    names: { [o.input]: 'source' },
  });
  return parseEbur128Summary(stderr);
}

/** Whether the clip is digital silence (or under the absolute gate): it gets no gain. */
export function isSilent(m: Pick<LoudnessMeasurement, 'integratedLufs'>): boolean {
  return !Number.isFinite(m.integratedLufs) || m.integratedLufs <= SILENCE_LUFS;
}

/**
 * Whether a static gain to the target keeps the true peak `headroomDb` under the ceiling. Silence
 * never does (it gets no gain).
 */
export function isLinear(m: LoudnessMeasurement, headroomDb = 0): boolean {
  if (isSilent(m) || !Number.isFinite(m.truePeakDbtp)) return false;
  return m.truePeakDbtp + (T.integratedLufs - m.integratedLufs) <= T.truePeakDbtp - headroomDb + 1e-9;
}

/** The linear path's chain after the stereo conversion: one static gain, at the output rate. */
export function linearGainFilter(gainDb: number): string {
  return `volume=${fixed(gainDb, 3)}dB,${TO_OUTPUT_RATE}`;
}

/** The ceiling of the limited path: the true-peak target less the encode's headroom. */
export const LIMITER_CEILING_DBTP = T.truePeakDbtp - CODEC_HEADROOM_DB;

/**
 * The limited path: `gainDb`, then a lookahead limiter at 4x oversampling, so that it catches the
 * peaks between samples (the true peak) and not only the samples; 5 ms attack, 50 ms release, no
 * auto-level, its lookahead delay compensated (audio stays in sync with the picture).
 */
export function limitedGainFilter(gainDb: number): string {
  const limit = dbToLinear(LIMITER_CEILING_DBTP).toFixed(6);
  return `volume=${fixed(gainDb, 3)}dB,aresample=192000,alimiter=limit=${limit}:attack=5:release=50:level=false:latency=true,${TO_OUTPUT_RATE}`;
}

export type LoudnessMode = 'linear' | 'limited' | 'silent';

export interface LoudnessPlan {
  mode: LoudnessMode;
  /** The render pass's whole audio chain (`-af`). */
  filter: string;
  /** The clip's loudness before normalization (LUFS; SILENCE_LUFS for silence). */
  inputIntegratedLufs: number;
  /** Gain applied before any limiting, dB (0 for silence). */
  gainDb: number;
  /** The limited path's last measurement of its own output, LUFS (null for the other modes). */
  expectedLufs: number | null;
  /** How many measuring passes the plan took. */
  measures: number;
}

/** One measuring pass over the clip, with an optional chain before the measurement. */
export type MeasureLoudnessFn = (preFilter: string | null) => Promise<LoudnessMeasurement>;

/**
 * Decides the render's audio chain from measurements (see the top of this file). `measure` runs
 * one pass (the pipeline wraps each in its stage limit), so this is testable without ffmpeg.
 */
export async function planLoudness(measure: MeasureLoudnessFn): Promise<LoudnessPlan> {
  const first = await measure(null);
  if (isSilent(first)) {
    return { mode: 'silent', filter: `${TO_STEREO},${TO_OUTPUT_RATE}`, inputIntegratedLufs: SILENCE_LUFS, gainDb: 0, expectedLufs: null, measures: 1 };
  }
  const linearGain = T.integratedLufs - first.integratedLufs;
  if (isLinear(first, CODEC_HEADROOM_DB)) {
    return {
      mode: 'linear',
      filter: `${TO_STEREO},${linearGainFilter(linearGain)}`,
      inputIntegratedLufs: first.integratedLufs,
      gainDb: linearGain,
      expectedLufs: null,
      measures: 1,
    };
  }
  // The limiter only ever takes loudness away, and takes more the more gain it gets: start at the
  // linear gain, step by the miss over the slope seen so far (secant; 1 before there are two points).
  const tried: { gain: number; lufs: number }[] = [];
  let gain = linearGain;
  for (let n = 0; n < MAX_LIMITED_MEASURES; n++) {
    const m = await measure(limitedGainFilter(gain));
    tried.push({ gain, lufs: m.integratedLufs });
    const miss = T.integratedLufs - m.integratedLufs;
    if (Math.abs(miss) <= CORRECTION_TOLERANCE_LU) break;
    const prev = tried.at(-2);
    const slope = prev && gain !== prev.gain ? clamp((m.integratedLufs - prev.lufs) / (gain - prev.gain), 0.1, 1) : 1;
    const next = clamp(gain + miss / slope, linearGain - MAX_EXTRA_GAIN_DB, linearGain + MAX_EXTRA_GAIN_DB);
    if (Math.abs(next - gain) < 0.01) break;
    gain = next;
  }
  // Render a gain that was measured: the closest to the target.
  const best = tried.reduce((a, b) => (Math.abs(T.integratedLufs - b.lufs) < Math.abs(T.integratedLufs - a.lufs) ? b : a));
  return {
    mode: 'limited',
    filter: `${TO_STEREO},${limitedGainFilter(best.gain)}`,
    inputIntegratedLufs: first.integratedLufs,
    gainDb: best.gain,
    expectedLufs: best.lufs,
    measures: 1 + tried.length,
  };
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** What ebur128 measured over a whole file: integrated loudness (LUFS) and true peak (dBTP). */
export type Ebur128Result = LoudnessMeasurement;

/** Arguments of a whole-file ebur128 scan (true peak on; per-frame lines at verbose, so not printed). */
export function buildEbur128Args(file: string): string[] {
  return [...PASS_PREAMBLE, ...INPUT_GUARD_ARGS, '-i', asFileUrl(file), '-map', '0:a:0', '-vn', '-sn', '-dn', '-af', METER, '-f', 'null', '-'];
}

/**
 * ebur128's Summary → integrated loudness and true peak. Silence prints `-70.0 LUFS` and a peak of
 * `-inf dBFS`; both come back as the SILENCE_* floors, so the result is always finite (JSON-safe).
 */
export function parseEbur128Summary(stderr: string): Ebur128Result {
  const at = stderr.lastIndexOf('Summary:');
  if (at < 0) throw new PipelineError('tool_failed', 'ffmpeg printed no ebur128 summary');
  const summary = stderr.slice(at);
  const i = /\bI:\s*(-?inf|-?\d+(?:\.\d+)?)\s*LUFS/.exec(summary)?.[1];
  const peak = /\bPeak:\s*(-?inf|-?\d+(?:\.\d+)?)\s*dB/.exec(summary)?.[1];
  if (i === undefined || peak === undefined) throw new PipelineError('tool_failed', 'the ebur128 summary has no integrated loudness or true peak');
  const lufs = parseLevel(i, 'integrated loudness');
  const tp = parseLevel(peak, 'true peak');
  return {
    integratedLufs: Number.isFinite(lufs) ? Math.max(lufs, SILENCE_LUFS) : SILENCE_LUFS,
    truePeakDbtp: Number.isFinite(tp) ? Math.max(tp, SILENCE_PEAK_DBTP) : SILENCE_PEAK_DBTP,
  };
}

/**
 * Measures a finished file's loudness as delivered (its first audio stream, whole): what the
 * completion reports and what the tests check against the target.
 */
export async function measureEbur128(ffmpegPath: string, file: string, signal: AbortSignal, durationSeconds = 0): Promise<Ebur128Result> {
  const stderr = await runFfmpegPass({
    ffmpegPath,
    args: buildEbur128Args(file),
    durationSeconds,
    signal,
    step: 'measuring_clip_loudness',
    names: { [file]: 'clip' },
  });
  return parseEbur128Summary(stderr);
}
