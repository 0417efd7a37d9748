import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PipelineError } from '../errors.ts';
import { DEFAULT_MODELS_DIR } from '../understanding/embedder.ts';
import { loadBlazeFace } from './blazeface.ts';
import type { FaceDetector } from './faces.ts';

/**
 * The face detector interface, and the older of the two detectors: faces with @vladmandic/face-api's tiny face detector (≈ 190 KB of weights inside the npm
 * package) on TensorFlow.js's wasm backend: no native addon, no GPU, nothing fetched at run time.
 *
 * - `dist/face-api.node-wasm.js` is the build that `require`s `@tensorflow/tfjs` and
 *   `@tensorflow/tfjs-backend-wasm` (the other node builds want the tfjs-node addon). Both are
 *   loaded on first use, so an agent that never reframes never loads tfjs.
 * - The wasm binaries (`tfjs-backend-wasm{,-simd,-threaded-simd}.wasm`) ship in
 *   `@tensorflow/tfjs-backend-wasm/dist/`; `setWasmPaths` gets that folder, resolved from this
 *   module, so Emscripten reads them from disk instead of a CDN.
 * - The weights are read with `loadFromDisk` from `@vladmandic/face-api/model/`.
 * Frames arrive as raw RGB bytes and become int32 tensors directly; no canvas is involved.
 */

/**
 * The detector's square input side (a multiple of 32). A 640x360 sample becomes 416x416 after
 * padding, so a face about 45 px tall in a 1080p frame (≈ 30 px at 416) is still found.
 * @default 416
 */
export const INPUT_SIZE = 416;

/** Detections scoring below this are dropped. @default 0.5 */
export const SCORE_THRESHOLD = 0.5;

export type { DetectedFace, FaceDetector } from './faces.ts';

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

/**
 * The detectors an agent can run: `blazeface` (the default: blazeface.ts, on onnxruntime, faces
 * from 4 % of the frame width) and `face-api-tiny` (the one before it, kept for the reframing
 * evaluation's comparison: docs/benchmarks.md).
 */
export const FACE_DETECTORS = ['blazeface', 'face-api-tiny'] as const;
export type FaceDetectorName = (typeof FACE_DETECTORS)[number];

let loadingTiny: Promise<FaceDetector> | undefined;

/** The process's detector of that name: loaded on the first call, shared by every later one. */
export function loadFaceDetector(name: FaceDetectorName = 'blazeface'): Promise<FaceDetector> {
  if (name === 'blazeface') return loadBlazeFace(DEFAULT_MODELS_DIR);
  loadingTiny ??= loadTiny().catch((err: unknown) => {
    loadingTiny = undefined; // a later attempt may try again
    throw err;
  });
  return loadingTiny;
}

async function loadTiny(): Promise<FaceDetector> {
  try {
    const { default: faceapi } = await import('@vladmandic/face-api/dist/face-api.node-wasm.js');
    // face-api re-exports the very tfjs and wasm-backend instances it runs on as `tf`; its typings
    // only declare tfjs-core's ops there, so the engine calls are typed from the packages themselves.
    const tf = faceapi.tf as unknown as typeof import('@tensorflow/tfjs') & typeof import('@tensorflow/tfjs-backend-wasm');
    tf.setWasmPaths(`${join(packageDir('@tensorflow/tfjs-backend-wasm'), 'dist')}/`);
    if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs wasm backend did not initialize');
    await tf.ready();
    await faceapi.nets.tinyFaceDetector.loadFromDisk(join(packageDir('@vladmandic/face-api'), 'model'));
    const options = new faceapi.TinyFaceDetectorOptions({ inputSize: INPUT_SIZE, scoreThreshold: SCORE_THRESHOLD });
    return {
      name: `face-api ${faceapi.version} tiny_face_detector (tfjs ${tf.version_core} wasm, input ${INPUT_SIZE})`,
      async detect(rgb, width, height) {
        if (rgb.length !== width * height * 3) throw new Error(`expected ${width}x${height} RGB bytes, got ${rgb.length}`);
        const tensor = faceapi.tf.tensor3d(rgb, [height, width, 3], 'int32');
        try {
          const found = await faceapi.detectAllFaces(tensor, options);
          return found.map((d) => ({ x: d.box.x, y: d.box.y, w: d.box.width, h: d.box.height, score: d.score }));
        } finally {
          tensor.dispose();
        }
      },
    };
  } catch (err) {
    throw new PipelineError('tool_failed', `the face detector could not be loaded: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
