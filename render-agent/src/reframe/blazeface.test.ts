import { describe, expect, it } from 'vitest';
import {
  CLOSE_READ,
  closeReadScore,
  closeReadWindow,
  decodeWindow,
  INPUT_SIDE,
  mergeFaces,
  NEAR_SCALE,
  nearWindow,
  nearWindows,
  TILE_OVERLAP,
  TILE_SIDE,
  windowInput,
  windowsOf,
} from './blazeface.ts';

describe('windowsOf', () => {
  it('reads a small frame whole, letterboxed', () => {
    expect(windowsOf(320, 180)).toEqual([{ x: 0, y: 0, side: 320 }]);
  });

  it('reads a 640x360 sample whole and in overlapping tiles flush with its edges', () => {
    const w = windowsOf(640, 360);
    expect(w[0]).toEqual({ x: 0, y: 0, side: 640 });
    const tiles = w.slice(1);
    expect(tiles.every((t) => t.side === TILE_SIDE)).toBe(true);
    expect([...new Set(tiles.map((t) => t.x))]).toEqual([0, 192, 384]);
    expect([...new Set(tiles.map((t) => t.y))]).toEqual([0, 104]);
    // Neighbours overlap by at least TILE_OVERLAP: a face the whole-frame pass misses lies whole in one.
    expect(TILE_SIDE - 192).toBeGreaterThanOrEqual(TILE_OVERLAP);
    expect(tiles).toHaveLength(6);
    for (const t of tiles) expect(t.x + t.side <= 640 && t.y + t.side <= 360).toBe(true);
  });
});

describe('windowInput', () => {
  it('maps bytes to [-1, 1] and leaves the letterbox at 0', () => {
    const rgb = new Uint8Array(4 * 2 * 3).fill(255);
    const input = windowInput(rgb, 4, 2, { x: 0, y: 0, side: 4 });
    expect(input).toHaveLength(INPUT_SIDE * INPUT_SIDE * 3);
    expect(input[0]).toBeCloseTo(1, 5); // top-left: inside the frame
    expect(input[(INPUT_SIDE - 1) * INPUT_SIDE * 3]).toBe(0); // bottom-left: below the frame
  });
});

/** Model outputs with one confident anchor: `logit` at anchor `index` of the 16x16 head, with `box` offsets (px at 256). */
function outputs(index: number, logit: number, box: number[]) {
  const scores16 = new Float32Array(512).fill(-10);
  const scores8 = new Float32Array(384).fill(-10);
  const boxes16 = new Float32Array(512 * 16);
  const boxes8 = new Float32Array(384 * 16);
  scores16[index] = logit;
  boxes16.set(box, index * 16);
  return { 'Identity:0': { data: scores16 }, 'Identity_1:0': { data: scores8 }, 'Identity_2:0': { data: boxes16 }, 'Identity_3:0': { data: boxes8 } };
}

describe('decodeWindow', () => {
  it('places a box at its anchor plus offsets, scaled to the window, in frame pixels', () => {
    // Cell (x 3, y 5) of 16, anchor 1: index (5 * 16 + 3) * 2 + 1; centre (3.5/16, 5.5/16) + (8, -4)/256.
    const index = (5 * 16 + 3) * 2 + 1;
    const box = [8, -4, 32, 40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    const [face, ...rest] = decodeWindow(outputs(index, 3, box), { x: 100, y: 50, side: 512 });
    expect(rest).toEqual([]);
    const cx = 100 + 512 * (3.5 / 16 + 8 / 256);
    const cy = 50 + 512 * (5.5 / 16 - 4 / 256);
    expect(face!.w).toBeCloseTo(64, 5);
    expect(face!.h).toBeCloseTo(80, 5);
    expect(face!.x + face!.w / 2).toBeCloseTo(cx, 5);
    expect(face!.y + face!.h / 2).toBeCloseTo(cy, 5);
    expect(face!.score).toBeCloseTo(1 / (1 + Math.exp(-3)), 5);
    expect(face!.landmarks).toHaveLength(6);
    expect(face!.landmarks![0]![0]).toBeCloseTo(100 + 512 * (3.5 / 16), 5);
  });

  it('drops anchors under the threshold', () => {
    expect(decodeWindow(outputs(0, 0, new Array(16).fill(0)), { x: 0, y: 0, side: 256 })).toEqual([]);
  });
});

describe('mergeFaces', () => {
  it('keeps one face per overlapping group (score-weighted box) and separate faces apart', () => {
    const merged = mergeFaces([
      { x: 0, y: 0, w: 10, h: 10, score: 0.9 },
      { x: 2, y: 0, w: 10, h: 10, score: 0.6 },
      { x: 100, y: 100, w: 20, h: 20, score: 0.7 },
    ]);
    expect(merged).toHaveLength(2);
    expect(merged[0]!.score).toBe(0.9);
    expect(merged[0]!.x).toBeCloseTo((0 * 0.9 + 2 * 0.6) / 1.5, 5);
    expect(merged[1]).toMatchObject({ x: 100, y: 100, w: 20, h: 20, score: 0.7 });
  });
});

describe('the close read', () => {
  it('reads a window centred on the face, the face a fifth of its side', () => {
    expect(CLOSE_READ.scale).toBe(5);
    expect(closeReadWindow({ x: 100, y: 50, w: 20, h: 24 })).toEqual({ x: 50, y: 2, side: 120 });
    // Past the frame's edge is fine: windowInput letterboxes with grey.
    expect(closeReadWindow({ x: 0, y: 0, w: 40, h: 40 })).toEqual({ x: -80, y: -80, side: 200 });
  });

  it('scores the best detection of the same face, 0 when the close read finds none there', () => {
    const face = { x: 100, y: 100, w: 40, h: 40, score: 0.8 };
    expect(
      closeReadScore(face, [
        { ...face, x: 104, score: 0.7 },
        { ...face, x: 102, score: 0.9 },
        { ...face, x: 300, score: 0.99 },
      ]),
    ).toBe(0.9);
    expect(closeReadScore(face, [{ ...face, x: 300, score: 0.99 }])).toBe(0);
    expect(closeReadScore(face, [])).toBe(0);
  });
});

describe('near reads', () => {
  it('looks for a small face in a tile-sized window centred on it, a larger one in a window ten times its size', () => {
    expect(nearWindow({ x: 100, y: 100, w: 20, h: 22 }, 640, 360)).toEqual({ x: 110 - TILE_SIDE / 2, y: 111 - TILE_SIDE / 2, side: TILE_SIDE });
    expect(nearWindow({ x: 300, y: 100, w: 40, h: 40 }, 640, 360)).toEqual({ x: 320 - 200, y: 120 - 200, side: NEAR_SCALE * 40 });
  });

  it('reads the whole frame when the window would be as large', () => {
    expect(nearWindow({ x: 200, y: 50, w: 70, h: 80 }, 640, 360)).toEqual({ x: 0, y: 0, side: 640 });
  });

  it('gives one window a face, none for a face already well inside another window', () => {
    const a = { x: 100, y: 100, w: 20, h: 20 };
    const movedALittle = { x: 130, y: 104, w: 20, h: 20 };
    const farAway = { x: 520, y: 200, w: 20, h: 20 };
    expect(nearWindows([a, movedALittle], 640, 360)).toEqual([nearWindow(a, 640, 360)]);
    expect(nearWindows([a, farAway], 640, 360)).toEqual([nearWindow(a, 640, 360), nearWindow(farAway, 640, 360)]);
    expect(nearWindows([], 640, 360)).toEqual([]);
  });
});
