import type { DetectedSubject, PixelBox, SubjectsV1 } from '@cutroom/shared/clips/subjects-v1';
import type { VideoStreamInfo } from '../executors/video-probe.ts';
import { AdaptiveReader, stillStride } from './adaptive-sampling.ts';
import { CLIP_AUDIO_RATE, clipAudio } from './clip-audio.ts';
import { type DetectedFace, type FaceDetector, loadFaceDetector } from './face-detector.ts';
import { expectedSamples, SAMPLE_MAX_SIDE, sampleRate, scaledSize } from './sampling.ts';
import { implausibleFace } from './plausibility.ts';
import { SCENE_MAX_SIDE, scanClip } from './scan-clip.ts';
import { type ShotRange, shotsFromCuts } from './shots.ts';
import { type SampleLooks, type ShotSpeaking, speakersByShot } from './speakers.ts';
import { mouthLook } from './speaking.ts';
import { describeSubjects, type FrameFaces, linkDetections } from './track.ts';

export interface DetectSubjectsOptions {
  ffmpegPath: string;
  source: string;
  /** Source seconds. */
  start: number;
  end: number;
  video: VideoStreamInfo;
  /** Samples per second before the MAX_SAMPLES cap (plan.ts asks 4 for every strategy). */
  preferredFps: number;
  signal: AbortSignal;
  /** 0..1 over the sampled frames. */
  onProgress?: (fraction: number) => void;
  /** @default loadFaceDetector() (BlazeFace) */
  detector?: FaceDetector;
  /** Detect on every sample (false), or once per STILL_INTERVAL_S while nothing moves (adaptive-sampling.ts). @default true */
  adaptive?: boolean;
}

export interface SubjectDetection {
  detector: NonNullable<SubjectsV1['detector']>;
  /** Shots in clip seconds, covering [0, end − start]. */
  shots: ShotRange[];
  /** The shot changes kept (clip seconds). */
  cuts: number[];
  /** Subjects, ids by dominance (s1 first). */
  subjects: DetectedSubject[];
  /** Detections dropped as not face-like (plausibility.ts), over all samples. */
  rejectedDetections: number;
  /** Who speaks, by shot index, in the shots of several subjects (speakers.ts); undefined for the others. */
  speaking: (ShotSpeaking | undefined)[];
}

const tenth = (v: number) => Math.round(v * 10) / 10;

/** A detection in sample pixels → a box in source pixels inside the frame, or null when nothing is left. */
export function toSourceBox(face: DetectedFace, scaleX: number, scaleY: number, width: number, height: number): (PixelBox & { score: number }) | null {
  const x0 = Math.max(0, face.x * scaleX);
  const y0 = Math.max(0, face.y * scaleY);
  const x1 = Math.min(width, (face.x + face.w) * scaleX);
  const y1 = Math.min(height, (face.y + face.h) * scaleY);
  if (x1 - x0 < 1 || y1 - y0 < 1) return null;
  const score = Math.round(Math.min(1, Math.max(0, face.score)) * 1000) / 1000;
  return { x: tenth(x0), y: tenth(y0), w: tenth(x1 - x0), h: tenth(y1 - y0), score };
}

/**
 * Samples the clip, finds faces in the samples (every one where the picture moves, one a second
 * where it keeps still), finds shot changes (one ffmpeg pass for both), and links faces into
 * subjects that never cross a shot change.
 */
export async function detectSubjects(o: DetectSubjectsOptions): Promise<SubjectDetection> {
  const duration = o.end - o.start;
  const detector = o.detector ?? (await loadFaceDetector());
  const rate = sampleRate(duration, o.preferredFps);
  const sample = scaledSize(o.video.width, o.video.height, SAMPLE_MAX_SIDE);
  const scene = scaledSize(o.video.width, o.video.height, SCENE_MAX_SIDE);
  const expected = expectedSamples(duration, rate);
  const scaleX = o.video.width / sample.width;
  const scaleY = o.video.height / sample.height;
  const frames: FrameFaces[] = [];
  /** The boxes each read sample found (source px), by sample index. */
  const readsAt = new Map<number, PixelBox[]>();
  /** Where a read found several faces, their mouths in every sample until the next read (speaking.ts). */
  const looks: SampleLooks[] = [];
  const timeOf = (index: number) => Math.round(index * rate.interval * 1e6) / 1e6;
  const toSource = (f: DetectedFace) => toSourceBox(f, scaleX, scaleY, o.video.width, o.video.height);
  let rejected = 0;
  // Detection on one sample a second while the faces keep still, on every sample where they move (adaptive-sampling.ts).
  const stride = o.adaptive === false ? 1 : stillStride(rate.interval);
  const reader = new AdaptiveReader(
    stride,
    sample.width,
    async (rgb, _index, near) => {
      const found =
        near && detector.detectNear
          ? await detector.detectNear(rgb, sample.width, sample.height, near)
          : await detector.detect(rgb, sample.width, sample.height);
      o.signal.throwIfAborted();
      // Only what may be a face goes on (plausibility.ts); the rest is counted.
      const faces = found.filter((f) => implausibleFace(f, sample.width, f.landmarks) === null);
      rejected += found.length - faces.length;
      return faces;
    },
    ({ index, faces }) => {
      const t = timeOf(index);
      if (t > duration) return;
      const boxes = faces.flatMap((f) => toSource(f) ?? []);
      frames.push({ t, faces: boxes });
      readsAt.set(index, boxes);
    },
  );
  const scan = await scanClip({
    ffmpegPath: o.ffmpegPath,
    source: o.source,
    start: o.start,
    duration,
    rate,
    sample,
    scene,
    signal: o.signal,
    onFrame: async (rgb, index) => {
      // A sample the reader only keeps runs no detector: the abort is checked here as well.
      o.signal.throwIfAborted();
      await reader.push(rgb, index);
      const last = reader.lastRead;
      if (last && last.faces.length >= 2 && timeOf(index) <= duration) {
        const faces = last.faces.flatMap((f) => {
          const box = toSource(f);
          const look = box && mouthLook(rgb, sample.width, sample.height, f);
          return box && look ? [{ box, look }] : [];
        });
        looks.push({ index, t: timeOf(index), readIndex: last.index, readT: timeOf(last.index), faces });
      }
      o.onProgress?.(Math.min(1, (index + 1) / expected));
    },
  });
  await reader.finish();
  const { cuts, shots } = shotsFromCuts(scan.cuts, duration);
  const tracks = linkDetections(frames, { cuts, ...(detector.minTrackScore ? { minTrackScore: detector.minTrackScore } : {}) });
  const subjects = describeSubjects(tracks, frames.length, o.video.width * o.video.height);
  // The sound is read only where someone must be told apart from someone else.
  const several = shots.some((shot) => subjects.filter((x) => x.boxes.some((b) => b.t >= shot.start && b.t <= shot.end)).length >= 2);
  const audio = several ? await clipAudio({ ffmpegPath: o.ffmpegPath, source: o.source, start: o.start, duration, signal: o.signal }) : null;
  const speaking = several ? speakersByShot({ shots, subjects, looks, readsAt, audio, rate: CLIP_AUDIO_RATE }) : shots.map(() => undefined);
  return {
    detector: {
      name: detector.name,
      ...(detector.model && { model: detector.model }),
      ...(detector.minTrackScore !== undefined && { min_confidence: detector.minTrackScore }),
      sample_interval_s: rate.interval,
      ...(stride > 1 && { still_interval_s: Math.round(stride * rate.interval * 1000) / 1000 }),
      frames_sampled: frames.length,
      ...(reader.nearReads > 0 && { near_reads: reader.nearReads }),
    },
    shots,
    cuts,
    subjects,
    rejectedDetections: rejected,
    speaking,
  };
}
