import { execa } from 'execa';

/**
 * Test media whose content says where it came from: every video frame carries its own index as
 * 16 black/white blocks (binary, most significant bit on the left) across the top half, and the
 * audio is a stereo pair whose left channel is a continuous tone and whose right channel is a
 * short burst every MARKER_PERIOD seconds. A cut can then be checked by decoding it: which source
 * frame each output frame is, and where the source's time markers landed in the output audio.
 */

/** Left channel: a continuous sine of this frequency (Hz) and peak amplitude. */
export const TONE_HZ = 440;
export const TONE_AMPLITUDE = 0.5;
/** Right channel: a burst of MARKER_HZ lasting MARKER_SECONDS at every multiple of MARKER_PERIOD. */
export const MARKER_PERIOD = 0.5;
export const MARKER_SECONDS = 0.005;
export const MARKER_HZ = 3000;
export const SAMPLE_RATE = 48_000;

const BITS = 16;

export interface FrameCounterOptions {
  seconds: number;
  /** A rate ffmpeg reads: `30`, `30000/1001`. */
  fps: string;
  /** A multiple of 16, so each bit block is a whole number of pixels. */
  width: number;
  height: number;
  /** Frames between keyframes (and the minimum), so a keyframe-based cut is visibly wrong. @default 250 */
  gop?: number;
}

/**
 * Writes an H.264/AAC mp4 at `out`: frame n shows n in binary (see the file comment) over a test
 * pattern, with the tone/marker audio. Keyframes only every `gop` frames, no scene-cut keyframes.
 */
export async function makeFrameCounterVideo(out: string, o: FrameCounterOptions): Promise<void> {
  if (o.width % BITS !== 0) throw new Error(`width must be a multiple of ${BITS}`);
  const gop = String(o.gop ?? 250);
  const half = Math.floor(o.height / 4) * 2;
  // geq on a 16×1 picture is cheap; scaling it up with `neighbor` keeps the blocks sharp.
  const bits = `color=black:s=${BITS}x1:r=${o.fps},format=gray,geq=lum='if(mod(floor(N/pow(2,${BITS - 1}-X)),2),255,0)',format=yuv420p,scale=${o.width}:${half}:flags=neighbor,setsar=1`;
  const pattern = `testsrc=s=${o.width}x${o.height - half}:r=${o.fps},format=yuv420p,setsar=1`;
  const audio = `aevalsrc='${TONE_AMPLITUDE}*sin(2*PI*${TONE_HZ}*t)|if(lt(mod(t,${MARKER_PERIOD}),${MARKER_SECONDS}),0.8*sin(2*PI*${MARKER_HZ}*t),0)':s=${SAMPLE_RATE}:c=stereo`;
  await execa('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    bits,
    '-f',
    'lavfi',
    '-i',
    pattern,
    '-f',
    'lavfi',
    '-i',
    audio,
    '-filter_complex',
    '[0:v][1:v]vstack[v]',
    '-map',
    '[v]',
    '-map',
    '2:a',
    '-t',
    String(o.seconds),
    '-c:v',
    'libx264',
    // B-frames (veryfast has 3): decode order differs from display order, as in real uploads.
    '-preset',
    'veryfast',
    '-crf',
    '23',
    '-g',
    gop,
    '-keyint_min',
    gop,
    '-sc_threshold',
    '0',
    '-pix_fmt',
    'yuv420p',
    '-c:a',
    'aac',
    '-b:a',
    '192k',
    out,
  ]);
}

/**
 * The frame index coded into every frame of `file`, in decode order as shown (no frame dropped or
 * repeated: `-fps_mode passthrough`). Each block is averaged over its area, then thresholded.
 */
export async function readFrameNumbers(file: string): Promise<number[]> {
  const r = await execa(
    'ffmpeg',
    ['-v', 'error', '-i', file, '-map', '0:v:0', '-vf', `scale=${BITS}:2:flags=area,format=gray`, '-fps_mode', 'passthrough', '-f', 'rawvideo', 'pipe:1'],
    { encoding: 'buffer', maxBuffer: 1e9 },
  );
  const raw = r.stdout;
  const frameBytes = BITS * 2;
  const numbers: number[] = [];
  for (let off = 0; off + frameBytes <= raw.length; off += frameBytes) {
    let n = 0;
    for (let b = 0; b < BITS; b++) n = n * 2 + ((raw[off + b] ?? 0) >= 128 ? 1 : 0);
    numbers.push(n);
  }
  return numbers;
}

/**
 * The first audio stream of `file` as 48 kHz float samples: both channels mixed to mono, or one
 * channel (0 = left, the tone; 1 = right, the markers) when given.
 */
export async function audioSamples(file: string, channel?: 0 | 1): Promise<Float32Array> {
  const pick = channel === undefined ? ['-ac', '1'] : ['-af', `pan=mono|c0=c${channel}`];
  const r = await execa('ffmpeg', ['-v', 'error', '-i', file, '-map', '0:a:0', ...pick, '-ar', String(SAMPLE_RATE), '-f', 'f32le', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 1e9,
  });
  const bytes = r.stdout;
  // Copy into an aligned buffer: the pipe's Buffer may start at any byte offset.
  return new Float32Array(new Uint8Array(bytes).buffer, 0, Math.floor(bytes.length / 4));
}

/**
 * Onsets of the marker bursts in a right-channel signal, seconds: the first sample above
 * `threshold` after at least `quietSeconds` below it.
 */
export function markerOnsets(samples: Float32Array, threshold = 0.2, quietSeconds = 0.1): number[] {
  const onsets: number[] = [];
  let lastLoud = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < samples.length; i++) {
    if (Math.abs(samples[i] ?? 0) < threshold) continue;
    if (i - lastLoud > quietSeconds * SAMPLE_RATE) onsets.push(i / SAMPLE_RATE);
    lastLoud = i;
  }
  return onsets;
}
