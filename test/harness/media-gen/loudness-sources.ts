import path from 'node:path';
import { execa } from 'execa';

/**
 * Sources for the loudness and reframing checks of extract_vertical_clip: spoken audio (espeak-ng,
 * deterministic) at two extremes of loudness under a 16:9 picture, and a 9:16 picture with
 * coloured border columns, so a test can see whether the whole picture survived.
 */

/** Integrated loudness the quiet source is set to (LUFS): far under the -14 target, so normalizing it needs ~+21 dB. */
export const QUIET_LUFS = -35;
/**
 * The loud source is speech driven 25 dB into a tanh soft clipper, then 2 dB down: about -7 LUFS
 * with true peaks above 0 dBFS after the AAC encode (a brick-walled master).
 */
const LOUD_CHAIN = 'volume=25dB,asoftclip=type=tanh,volume=-2dB';

/** Width of the red (left) and blue (right) border columns of the vertical source, pixels. */
export const BORDER_PX = 40;

const SPEECH =
  'The quick brown fox jumps over the lazy dog. A vertical clip needs a steady voice, and its loudness must land on the target, ' +
  'whether the recording was whispered or shouted.';

export interface LoudnessSources {
  /** 1280x720, 25 fps, speech at about QUIET_LUFS (stereo AAC). */
  quiet: string;
  /** 1280x720, 25 fps, brick-walled speech, about -7 LUFS, true peak above 0 dBFS. */
  loud: string;
  /** 1080x1920, 25 fps, grey with a red column on the left and a blue one on the right (BORDER_PX wide), speech at a normal level. */
  vertical: string;
  /** Seconds of every source. */
  seconds: number;
}

async function ffmpeg(args: string[]): Promise<string> {
  const r = await execa('ffmpeg', ['-hide_banner', '-nostdin', '-y', ...args]);
  return String(r.stderr);
}

/** Integrated loudness of a file's audio (ebur128), LUFS. */
export async function integratedLufs(file: string): Promise<number> {
  const stderr = await ffmpeg(['-nostats', '-i', file, '-vn', '-af', 'ebur128=framelog=verbose', '-f', 'null', '-']);
  const summary = stderr.slice(stderr.lastIndexOf('Summary:'));
  const m = /\bI:\s*(-?[\d.]+)\s*LUFS/.exec(summary);
  if (!m) throw new Error('ebur128 printed no integrated loudness');
  return Number(m[1]);
}

/** Writes the three sources into `dir` (about 3 s of CPU on two cores). */
export async function makeLoudnessSources(dir: string, seconds = 6): Promise<LoudnessSources> {
  const speech = path.join(dir, 'speech.wav');
  await execa('espeak-ng', ['-w', speech, SPEECH]);
  // Stereo at 48 kHz, exactly `seconds` long (padded with silence or cut).
  const stereo = path.join(dir, 'speech-48k.wav');
  await ffmpeg(['-v', 'error', '-i', speech, '-af', `aresample=48000,aformat=channel_layouts=stereo,apad=whole_dur=${seconds},atrim=0:${seconds}`, stereo]);
  const quietGain = QUIET_LUFS - (await integratedLufs(stereo));

  const picture = (size: string) => `testsrc2=size=${size}:rate=25:duration=${seconds}`;
  const encode = (video: string, audioFilter: string, out: string) =>
    ffmpeg([
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      video,
      '-i',
      stereo,
      '-filter_complex',
      `[1:a]${audioFilter}[a]`,
      '-map',
      '0:v',
      '-map',
      '[a]',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-g',
      '50',
      '-pix_fmt',
      'yuv420p',
      '-c:a',
      'aac',
      '-b:a',
      '192k',
      '-t',
      String(seconds),
      out,
    ]);

  const sources: LoudnessSources = {
    quiet: path.join(dir, 'quiet-16x9.mp4'),
    loud: path.join(dir, 'loud-16x9.mp4'),
    vertical: path.join(dir, 'vertical-9x16.mp4'),
    seconds,
  };
  const border = `drawbox=x=0:y=0:w=${BORDER_PX}:h=ih:color=red:t=fill,drawbox=x=iw-${BORDER_PX}:y=0:w=${BORDER_PX}:h=ih:color=blue:t=fill`;
  await Promise.all([
    encode(picture('1280x720'), `volume=${quietGain.toFixed(2)}dB`, sources.quiet),
    encode(picture('1280x720'), LOUD_CHAIN, sources.loud),
    encode(`color=c=gray:size=1080x1920:rate=25:duration=${seconds},${border}`, 'anull', sources.vertical),
  ]);
  return sources;
}
