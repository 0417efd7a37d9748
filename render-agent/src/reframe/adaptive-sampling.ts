import type { DetectedFace } from './faces.ts';

/**
 * Detection runs on every sample only where the picture moves. The scan still decodes every
 * sample (follow: 4 a second), but the detector (≈ 0.1 s a sample on a CPU, most of reframing's
 * time) reads one sample per STILL_INTERVAL_S first; when the faces of two such samples differ
 * (a face came or went, or one moved or changed size), the samples between them are read too.
 * A talking head is read once a second, a walking subject at the full rate: wholly once a second,
 * and between those reads only near the faces the reads around the sample found (the detector's
 * `detectNear`: a window a face, not the whole frame and its tiles).
 */

/** Seconds between detections while nothing moves. @default 1 */
export const STILL_INTERVAL_S = 1;

/**
 * While the faces move, the stride reads alternate: a whole one, then one near the faces; a face
 * that comes into the picture is found within WHOLE_EVERY × STILL_INTERVAL_S.
 */
export const WHOLE_EVERY = 2;

/**
 * A face moved when its centre moved more than this share of the sample width between two
 * detections STILL_INTERVAL_S apart, or its width changed by more than MOVE.size. The follow
 * crop's dead zone is 10 % of a 9:16 window (≈ 3.2 % of a 16:9 frame), so a face that moves
 * less than 1.5 % a second stays inside it between two reads.
 */
export const MOVE = { centre: 0.015, size: 0.2 } as const;

/** Samples between detections while still: one per STILL_INTERVAL_S, at least 1 (every sample). */
export function stillStride(sampleInterval: number): number {
  return Math.max(1, Math.round(STILL_INTERVAL_S / sampleInterval));
}

/**
 * Whether the faces differ between two reads: another count, or a face whose nearest counterpart
 * is further than MOVE.centre × width or differs in width by more than MOVE.size.
 */
export function facesMoved(before: readonly DetectedFace[], after: readonly DetectedFace[], sampleWidth: number): boolean {
  if (before.length !== after.length) return true;
  const centre = (f: DetectedFace) => [f.x + f.w / 2, f.y + f.h / 2] as const;
  for (const a of after) {
    const [ax, ay] = centre(a);
    let nearest: DetectedFace | null = null;
    let best = Number.POSITIVE_INFINITY;
    for (const b of before) {
      const [bx, by] = centre(b);
      const d = Math.hypot(ax - bx, ay - by);
      if (d < best) {
        best = d;
        nearest = b;
      }
    }
    if (!nearest || best > MOVE.centre * sampleWidth) return true;
    if (Math.abs(a.w - nearest.w) > MOVE.size * Math.max(a.w, nearest.w)) return true;
  }
  return false;
}

export interface Read {
  index: number;
  faces: DetectedFace[];
}

/**
 * Feeds samples in order; reads (detects) every `stride`-th one wholly, and the ones in between when
 * facesMoved says the two reads around them differ, those near the faces of the read before each
 * (and of the whole read after them, where one showed up): `read` gets each sample it must detect
 * (with `near` for the reads between) and gives its faces (already filtered for plausibility);
 * `emit` gets the reads in sample order. Samples waiting for the next read are kept (at most
 * stride − 1 of them).
 */
export class AdaptiveReader {
  private readonly pending: { rgb: Uint8Array; index: number }[] = [];
  private last: Read | null = null;
  /** The last whole read's sample index, and whether the faces moved between the last two stride reads. */
  private lastWhole = Number.NEGATIVE_INFINITY;
  private moving = false;
  /** Samples read (detected), for the document's frames_sampled. */
  reads = 0;
  /** Of those, the ones read near known faces only (the document's near_reads). */
  nearReads = 0;

  private readonly stride: number;
  private readonly sampleWidth: number;
  private readonly read: (rgb: Uint8Array, index: number, near?: readonly DetectedFace[]) => Promise<DetectedFace[]>;
  private readonly emit: (r: Read) => void;

  constructor(
    stride: number,
    sampleWidth: number,
    read: (rgb: Uint8Array, index: number, near?: readonly DetectedFace[]) => Promise<DetectedFace[]>,
    emit: (r: Read) => void,
  ) {
    this.stride = stride;
    this.sampleWidth = sampleWidth;
    this.read = read;
    this.emit = emit;
  }

  /** The latest read at or before the last sample pushed (its faces are where they are now while they keep still). */
  get lastRead(): Read | null {
    return this.last;
  }

  async push(rgb: Uint8Array, index: number): Promise<void> {
    if (this.last !== null && index - this.last.index < this.stride) {
      this.pending.push({ rgb, index });
      return;
    }
    await this.readNow(rgb, index);
  }

  /** The scan ended: the last waiting sample is read (so the clip's end is seen), and those before it when it moved. */
  async finish(): Promise<void> {
    const tail = this.pending.pop();
    if (tail) await this.readNow(tail.rgb, tail.index);
  }

  private async readNow(rgb: Uint8Array, index: number): Promise<void> {
    // While faces move, every other stride read is near them too: a whole read (for a face that
    // comes) at least every WHOLE_EVERY strides.
    const near = this.moving && this.last !== null && this.last.faces.length > 0 && index - this.lastWhole < WHOLE_EVERY * this.stride;
    const faces = near ? await this.readOne(rgb, index, this.last!.faces) : await this.readOne(rgb, index);
    if (!near) this.lastWhole = index;
    const between = this.pending.splice(0);
    this.moving = this.last !== null && facesMoved(this.last.faces, faces, this.sampleWidth);
    if (this.last !== null && between.length > 0 && this.moving) {
      let before = this.last.faces;
      for (const s of between) {
        // Where the faces were a sample ago, and where they are at the next whole read (a face that came).
        const read: Read = { index: s.index, faces: await this.readOne(s.rgb, s.index, [...before, ...faces]) };
        this.emit(read);
        before = read.faces;
      }
    }
    this.last = { index, faces };
    this.emit(this.last);
  }

  private async readOne(rgb: Uint8Array, index: number, near?: readonly DetectedFace[]): Promise<DetectedFace[]> {
    this.reads++;
    if (near) this.nearReads++;
    return near ? this.read(rgb, index, near) : this.read(rgb, index);
  }
}
