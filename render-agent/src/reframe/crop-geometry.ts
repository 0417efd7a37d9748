/**
 * The crop window's size (9:16, or the 4:5 and 1:1 feed shapes) and position in source pixels. Every value that reaches ffmpeg's
 * `crop` is an even integer: for 4:2:0 video crop rounds odd offsets and sizes down to the chroma
 * grid itself, so an odd value would silently move the window by a pixel.
 */

/** Output aspect (width / height) of a vertical clip, the default shape. */
export const VERTICAL_ASPECT = 9 / 16;

/**
 * A source whose aspect is at most the output's (9:16 by default) plus this share is already as
 * narrow as the output: it is scaled to the output, not cropped (a 2 % margin absorbs 1080x1916-style sizes from phone recorders).
 * @default 0.02
 */
export const VERTICAL_TOLERANCE = 0.02;

export interface CropSize {
  width: number;
  height: number;
}

const evenFloor = (v: number): number => Math.floor(v / 2) * 2;
const evenRound = (v: number): number => Math.round(v / 2) * 2;

/**
 * Whether a `width`x`height` source is already as narrow as an output of `aspect` (width / height;
 * 9:16 by default): its aspect is at most `aspect` + VERTICAL_TOLERANCE. Such a source is scaled and
 * padded, never cropped (a 9:16 phone video asked for 1:1 gets bars, not a cut-off head).
 */
export function isVerticalSource(width: number, height: number, aspect = VERTICAL_ASPECT): boolean {
  return width / height <= aspect * (1 + VERTICAL_TOLERANCE);
}

/**
 * The crop window for a source wider than `aspect` (9:16 by default): the full source height (its
 * even floor, equal to the height for every even-sized source) and width = even round(height ×
 * aspect), at most the source width's even floor. 9:16: 1280x720 → 406x720, 1920x1080 → 608x1080;
 * 4:5: 1920x1080 → 864x1080; 1:1: 1920x1080 → 1080x1080.
 */
export function cropWindowSize(sourceWidth: number, sourceHeight: number, aspect = VERTICAL_ASPECT): CropSize {
  const height = Math.max(2, evenFloor(sourceHeight));
  const width = Math.max(2, Math.min(evenRound(height * aspect), evenFloor(sourceWidth)));
  return { width, height };
}

/** Largest even left offset that keeps a `cropWidth` window inside a `sourceWidth` frame. */
export function maxCropX(cropWidth: number, sourceWidth: number): number {
  return Math.max(0, evenFloor(sourceWidth - cropWidth));
}

/** A left offset made valid: rounded to an even integer, clamped to [0, maxCropX]. */
export function clampCropX(x: number, cropWidth: number, sourceWidth: number): number {
  return Math.min(Math.max(0, evenRound(x)), maxCropX(cropWidth, sourceWidth));
}

/** The left offset of the window whose center is `centerX` (source px), clamped. */
export function cropXForCenter(centerX: number, cropWidth: number, sourceWidth: number): number {
  return clampCropX(centerX - cropWidth / 2, cropWidth, sourceWidth);
}

/** The left offset of the window centered in the frame. */
export function centeredCropX(cropWidth: number, sourceWidth: number): number {
  return cropXForCenter(sourceWidth / 2, cropWidth, sourceWidth);
}

/**
 * `subject_x_offset` is in OUTPUT pixels (the subject sits that far right of the output's center);
 * the crop works in source pixels, where one output pixel is cropWidth / outWidth of them.
 */
export function subjectShiftInSource(offsetOutputPx: number, cropWidth: number, outWidth: number): number {
  return (offsetOutputPx * cropWidth) / outWidth;
}

/**
 * Where the window's center goes so the subject centered at `subjectCenterX` lands `shift` source
 * px right of the output's center: the window moves left by `shift`.
 */
export function cropCenterForSubject(subjectCenterX: number, shift: number): number {
  return subjectCenterX - shift;
}
