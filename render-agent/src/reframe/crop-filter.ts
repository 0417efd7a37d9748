import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CropPoint, SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';

/** The crop filter's instance name: sendcmd addresses it alone, whatever else the graph holds. */
export const CROP_INSTANCE = 'crop@reframe';

/** The sendcmd script's file name in the work folder. */
export const CROP_COMMANDS_FILE = 'reframe-crop.cmd';

/**
 * A value for a filter option inside a filtergraph description, escaped for both levels that
 * parse it: the option parser (`\`, `'`, `:`) and then the graph parser (`\`, `'`, `[`, `]`,
 * `,`, `;`), each by a backslash (ffmpeg-filters, "Notes on filtergraph escaping").
 */
export function escapeFilterValue(value: string): string {
  const optionLevel = value.replace(/[\\':]/g, (c) => `\\${c}`);
  return optionLevel.replace(/[\\'[\],;]/g, (c) => `\\${c}`);
}

/**
 * The sendcmd script for a moving window: one line per change, `TIME crop@reframe x X, … y Y;`.
 * Each command is sent half a frame before its frame's time: sendcmd fires when a frame's time
 * reaches the interval's start, and `n / fps` rounded to text could land a hair after frame n's
 * own timestamp and move the window one frame late.
 */
export function buildCropCommands(path: readonly CropPoint[], fps: number): string {
  const lead = 0.5 / fps;
  const lines = path.slice(1).map((p) => `${Math.max(0, p.t - lead).toFixed(6)} ${CROP_INSTANCE} x ${p.x}, ${CROP_INSTANCE} y ${p.y};`);
  return `# cutroom reframe: crop window top-left per change (source px, clip seconds)\n${lines.join('\n')}\n`;
}

/**
 * The video filter text that cuts the window out of the source, in source pixels, to go before
 * the scale to the output size (the graph must see clip time: the first frame at 0, as an input
 * seek gives).
 * - scaled_only (a vertical source): `''`, no crop.
 * - one position: `crop=W:H:X:Y`.
 * - a moving window: `sendcmd=f=<workDir/reframe-crop.cmd>,crop@reframe=W:H:X0:Y0`, the script
 *   (written here) moving the crop's `x`/`y` at each point of the path; ffmpeg 5.1's crop takes
 *   `x`/`y` as runtime commands, so the whole clip renders in one pass.
 */
export async function cropFilter(doc: SubjectsV1, fps: number, workDir: string): Promise<string> {
  if (doc.crop.scaled_only) return '';
  const { width, height, path } = doc.crop;
  const first = path[0]!;
  if (path.every((p) => p.x === first.x && p.y === first.y)) return `crop=${width}:${height}:${first.x}:${first.y}`;
  const file = join(workDir, CROP_COMMANDS_FILE);
  await writeFile(file, buildCropCommands(path, fps));
  return `sendcmd=f=${escapeFilterValue(file)},${CROP_INSTANCE}=${width}:${height}:${first.x}:${first.y}`;
}
