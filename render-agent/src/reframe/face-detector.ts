import { DEFAULT_MODELS_DIR } from '../understanding/embedder.ts';
import { loadBlazeFace } from './blazeface.ts';
import type { FaceDetector } from './faces.ts';

export type { DetectedFace, FaceDetector } from './faces.ts';

/**
 * The face detectors an agent can run, by name: `blazeface` (blazeface.ts: MediaPipe's full-range
 * BlazeFace as ONNX on onnxruntime, faces from 4 % of the frame width). face-api's tiny detector on
 * TF.js, the one before it, was removed with TF.js once the evaluation had measured both
 * (docs/benchmarks.md; commit 3a202da still runs `npm run eval:reframe -- --detectors=face-api-tiny`).
 */
export const FACE_DETECTORS = ['blazeface'] as const;
export type FaceDetectorName = (typeof FACE_DETECTORS)[number];

/** The process's detector of that name: loaded on the first call, shared by every later one. */
export function loadFaceDetector(_name: FaceDetectorName = 'blazeface'): Promise<FaceDetector> {
  return loadBlazeFace(DEFAULT_MODELS_DIR);
}
