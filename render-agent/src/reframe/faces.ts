/** What a face detector gives (face-detector.ts, blazeface.ts): types only, so the detectors import no detector. */

/** A face in the pixels of the frame it was found in. */
export interface DetectedFace {
  x: number;
  y: number;
  w: number;
  h: number;
  score: number;
  /** Landmarks where the detector gives them (BlazeFace: right eye, left eye, nose, mouth, right ear, left ear), frame pixels. */
  landmarks?: [number, number][];
}

export interface FaceDetector {
  /** For the document's `detector.name`. */
  readonly name: string;
  /** The weights file it runs, where it is one checked file (the document's `detector.model`). */
  readonly model?: { source: string; sha256: string };
  /** A track whose median score is under this is not a face (plausibility.ts); the detector's scale. @default 0 */
  readonly minTrackScore?: number;
  /** Faces in one `width`x`height` frame of packed RGB bytes (`width × height × 3`). */
  detect(rgb: Uint8Array, width: number, height: number): Promise<DetectedFace[]>;
  /**
   * Faces near `near` only (faces of this frame's neighbouring reads, same pixels): a cheaper read for
   * the samples between two whole reads of a moving face; a face that shows up elsewhere is found by
   * the next whole read. Detectors without it are read whole.
   */
  detectNear?(rgb: Uint8Array, width: number, height: number, near: readonly DetectedFace[]): Promise<DetectedFace[]>;
}
