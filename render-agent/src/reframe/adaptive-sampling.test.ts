import { describe, expect, it } from 'vitest';
import { AdaptiveReader, facesMoved, type Read, stillStride } from './adaptive-sampling.ts';
import type { DetectedFace } from './faces.ts';

const face = (x: number, w = 40): DetectedFace => ({ x, y: 100, w, h: w, score: 0.9 });
const WIDTH = 640;

/** Runs samples 0..n-1 through a reader whose detector answers `facesAt(index)`; returns what it read and emitted. */
async function run(n: number, stride: number, facesAt: (i: number) => DetectedFace[]) {
  const read: number[] = [];
  const near = new Map<number, number[]>();
  const emitted: Read[] = [];
  const reader = new AdaptiveReader(
    stride,
    WIDTH,
    async (_rgb, index, nearFaces) => {
      read.push(index);
      if (nearFaces)
        near.set(
          index,
          nearFaces.map((f) => f.x),
        );
      return facesAt(index);
    },
    (r) => emitted.push(r),
  );
  for (let i = 0; i < n; i++) await reader.push(new Uint8Array(1), i);
  await reader.finish();
  return { read, near, emitted: emitted.map((r) => r.index), reads: reader.reads, nearReads: reader.nearReads };
}

describe('stillStride', () => {
  it('reads one sample a second while still, every sample when they are a second or more apart', () => {
    expect(stillStride(0.25)).toBe(4);
    expect(stillStride(0.5)).toBe(2);
    expect(stillStride(1)).toBe(1);
    expect(stillStride(1.5)).toBe(1);
  });
});

describe('facesMoved', () => {
  it('is false for the same faces nudged a little, true for a move, a new face or a size change', () => {
    expect(facesMoved([face(100)], [face(105)], WIDTH)).toBe(false);
    expect(facesMoved([], [], WIDTH)).toBe(false);
    expect(facesMoved([face(100)], [face(100 + 0.02 * WIDTH)], WIDTH)).toBe(true);
    expect(facesMoved([face(100)], [face(100), face(400)], WIDTH)).toBe(true);
    expect(facesMoved([face(100)], [], WIDTH)).toBe(true);
    expect(facesMoved([face(100, 40)], [face(95, 52)], WIDTH)).toBe(true);
    // Two faces, each matched to its nearest: still.
    expect(facesMoved([face(100), face(400)], [face(402), face(101)], WIDTH)).toBe(false);
  });
});

describe('AdaptiveReader', () => {
  it('reads one sample in four while the face keeps still, and the last sample at the end', async () => {
    const r = await run(10, 4, () => [face(200)]);
    expect(r.read).toEqual([0, 4, 8, 9]);
    expect(r.emitted).toEqual([0, 4, 8, 9]);
    expect(r.reads).toBe(4);
  });

  it('reads every sample between two reads that differ, and emits in sample order', async () => {
    // Still until sample 4, walking from sample 5 on (10 px a sample, 1.6 % of the width).
    const x = (i: number) => (i <= 4 ? 200 : 200 + 10 * (i - 4));
    const r = await run(13, 4, (i) => [face(x(i))]);
    expect(r.read).toEqual([0, 4, 8, 5, 6, 7, 12, 9, 10, 11]);
    expect(r.emitted).toEqual([0, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    // The samples between two stride reads that differ are read near the face a sample before and at
    // the stride read after; while it moves, every other stride read is near it too (12, after 8).
    expect(r.nearReads).toBe(7);
    expect([...r.near.keys()]).toEqual([5, 6, 7, 12, 9, 10, 11]);
    expect(r.near.get(5)).toEqual([x(4), x(8)]);
    expect(r.near.get(6)).toEqual([x(5), x(8)]);
    expect(r.near.get(12)).toEqual([x(8)]);
    expect(r.near.get(9)).toEqual([x(8), x(12)]);
    expect([0, 4, 8].every((i) => !r.near.has(i))).toBe(true);
  });

  it('while a face moves, reads wholly every other stride, so a face that comes is found within two', async () => {
    // A walks from sample 0 on; B comes at sample 13 and stays.
    const a = (i: number) => face(100 + 10 * i);
    const emittedFaces = new Map<number, number>();
    const reader = new AdaptiveReader(
      4,
      WIDTH,
      async (_rgb, i, near) => {
        const all = i >= 13 ? [a(i), face(500)] : [a(i)];
        // A near read sees only what lies near the faces it was given.
        return near ? all.filter((f) => near.some((n) => Math.abs(n.x - f.x) < 200)) : all;
      },
      (r) => emittedFaces.set(r.index, r.faces.length),
    );
    for (let i = 0; i < 21; i++) await reader.push(new Uint8Array(1), i);
    await reader.finish();
    const r = await run(21, 4, (i) => (i >= 13 ? [a(i), face(500)] : [a(i)]));
    expect(r.read.filter((i) => !r.near.has(i))).toEqual([0, 4, 12, 20]);
    expect(r.near.get(8)).toEqual([a(4).x]);
    // B is missed by the near read at 16 and found by the whole read at 20, a stride after it came;
    // the samples between 16 and 20 are read near it too.
    expect([13, 14, 15, 16].map((i) => emittedFaces.get(i))).toEqual([1, 1, 1, 1]);
    expect([17, 18, 19, 20].map((i) => emittedFaces.get(i))).toEqual([2, 2, 2, 2]);
  });

  it('reads between when a face appears, not when nothing is there', async () => {
    const r = await run(9, 4, (i) => (i >= 6 ? [face(300)] : []));
    expect(r.read).toEqual([0, 4, 8, 5, 6, 7]);
    expect(r.emitted).toEqual([0, 4, 5, 6, 7, 8]);
    // Before it came there was nothing: it is looked for where the next whole read found it.
    expect(r.near.get(5)).toEqual([300]);
    expect(r.near.get(7)).toEqual([300, 300]);
  });

  it('reads every sample with a stride of 1', async () => {
    expect((await run(5, 1, () => [face(200)])).read).toEqual([0, 1, 2, 3, 4]);
  });
});
