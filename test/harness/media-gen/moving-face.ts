import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { execa } from 'execa';

/**
 * Reframing test media: a real face photo (a crop of `demo/sample5.jpg`, shipped inside the
 * @vladmandic/face-api npm package) over a plain background, with a quiet tone as audio. Where
 * the face is at every moment is known from the overlay expression, so a crop can be checked
 * against it without trusting the detector.
 */

export const FACE_VIDEO_WIDTH = 1280;
export const FACE_VIDEO_HEIGHT = 720;
export const FACE_VIDEO_FPS = 25;

/** The face photo as it is overlaid: 260x300 px (a 520x600 crop of sample5.jpg at half size). */
export const PATCH = { width: 260, height: 300 } as const;
/**
 * Where the face sits inside the patch (px), as face-api's tiny detector boxed it over background A (BlazeFace's box lies within the same slack);
 * its box moves by up to ~20 px with the background and the scale, so compare with that slack.
 */
export const FACE_IN_PATCH = { x: 70, y: 70, w: 150, h: 135 } as const;
/** The patch's top edge in the frame. */
const PATCH_Y = 210;

const BACKGROUND_A = '0x3a4048';
/** Far brighter than A: a cut's scene score is about how much of the picture changes, and by how much. */
const BACKGROUND_B = '0xd8d0b0';

export interface FaceVideo {
  file: string;
  seconds: number;
  /** The face's box in source pixels at source time `t` (from the overlay position, ±2 px). */
  faceAt(t: number): { x: number; y: number; w: number; h: number };
}

const require = createRequire(import.meta.url);

/** sample5.jpg from the face-api package, cropped to one face (the woman on the right) and halved (`scale` 1), or scaled by `scale` more. */
export async function makePatch(dir: string, scale = 1): Promise<string> {
  const photo = join(dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', 'sample5.jpg');
  const out = join(dir, scale === 1 ? 'face-patch.png' : `face-patch-${scale}.png`);
  const size = `${Math.round(PATCH.width * scale)}:${Math.round(PATCH.height * scale)}`;
  await execa('ffmpeg', ['-v', 'error', '-y', '-i', photo, '-vf', `crop=520:600:1238:300,scale=${size}`, out]);
  return out;
}

/** Overlay x as ffmpeg's overlay filter places it: the expression truncated to an even pixel (4:2:0). */
const placed = (x: number) => Math.floor(x) & ~1;

const faceBoxAt = (patchX: number) => ({ x: patchX + FACE_IN_PATCH.x, y: PATCH_Y + FACE_IN_PATCH.y, w: FACE_IN_PATCH.w, h: FACE_IN_PATCH.h });

async function render(dir: string, name: string, seconds: number, background: string, overlayX: string): Promise<string> {
  const patch = await makePatch(dir);
  const out = join(dir, name);
  await execa('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-loop',
    '1',
    '-framerate',
    String(FACE_VIDEO_FPS),
    '-i',
    patch,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=220:sample_rate=48000:duration=${seconds}`,
    '-filter_complex',
    `${background};[bg][0:v]overlay=x='${overlayX}':y=${PATCH_Y}:eval=frame:shortest=1,format=yuv420p[v];[1:a]volume=0.2[a]`,
    '-map',
    '[v]',
    '-map',
    '[a]',
    '-t',
    String(seconds),
    '-c:v',
    'libx264',
    '-preset',
    'ultrafast',
    '-g',
    '50',
    '-c:a',
    'aac',
    '-b:a',
    '64k',
    out,
  ]);
  return out;
}

const size = `${FACE_VIDEO_WIDTH}x${FACE_VIDEO_HEIGHT}`;

/** 7 s: the face glides from the left edge (x = 40) to the right edge at constant speed (≈ 134 px/s). */
export async function makeMovingFaceVideo(dir: string): Promise<FaceVideo> {
  const seconds = 7;
  const x0 = 40;
  const speed = (FACE_VIDEO_WIDTH - PATCH.width - 2 * x0) / seconds;
  const file = await render(dir, 'moving-face.mp4', seconds, `color=c=${BACKGROUND_A}:s=${size}:r=${FACE_VIDEO_FPS}:d=${seconds}[bg]`, `${x0}+${speed}*t`);
  return { file, seconds, faceAt: (t) => faceBoxAt(placed(x0 + speed * t)) };
}

/** The cut in the shot-change video, seconds. */
export const SHOT_CHANGE_AT = 3;

/**
 * 6 s, two shots: 0–3 s the face still in the left part of the frame over one background, then a
 * hard cut to another background with the face still in the right part (the right 70 % of the
 * first shot and the left 70 % of the second are empty).
 */
export async function makeShotChangeVideo(dir: string): Promise<FaceVideo> {
  const seconds = 6;
  const left = 100;
  const right = FACE_VIDEO_WIDTH - 100 - PATCH.width;
  const bg =
    `color=c=${BACKGROUND_A}:s=${size}:r=${FACE_VIDEO_FPS}:d=${SHOT_CHANGE_AT}[b0];` +
    `color=c=${BACKGROUND_B}:s=${size}:r=${FACE_VIDEO_FPS}:d=${seconds - SHOT_CHANGE_AT}[b1];[b0][b1]concat=n=2:v=1:a=0[bg]`;
  const file = await render(dir, 'shot-change.mp4', seconds, bg, `if(lt(t,${SHOT_CHANGE_AT}),${left},${right})`);
  return { file, seconds, faceAt: (t) => faceBoxAt(t < SHOT_CHANGE_AT ? left : right) };
}
