/**
 * `npm run eval:reframe [-- --detectors=blazeface] [--modes=follow,auto] [--shots=a,b] [--every] [--json=out.json]`
 *
 * `--every`: detect on every sample instead of adaptively (one a second while the faces keep still).
 *
 * The reframing evaluation (scripts/eval/reframe-set.ts): each composed shot through the agent's
 * own planReframe (sampling, detection, tracking, crop path) with each detector and strategy,
 * scored against where the face really is (scripts/eval/reframe-score.ts). Tuning and held-out
 * shots are reported apart. Media and packages are cached in $CUTROOM_CACHE/eval-reframe.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExtractVerticalClipParams } from '../proto/src/index.ts';
import { probeVideo } from '../render-agent/src/executors/video-probe.ts';
import { FACE_DETECTORS, type FaceDetectorName, loadFaceDetector } from '../render-agent/src/reframe/face-detector.ts';
import { planReframe } from '../render-agent/src/reframe/plan.ts';
import { MACHINE_CACHE } from '../test/harness/transcript-cache.ts';
import { composeShot } from './eval/reframe-compose.ts';
import { CONTROL_SHOTS, PERSON_SHOTS, SHOT_SECONDS, FRAME } from './eval/reframe-set.ts';
import { type ControlScore, type PersonScore, scoreControl, scorePerson } from './eval/reframe-score.ts';

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const detectors = (arg('detectors')?.split(',') ?? [...FACE_DETECTORS]) as FaceDetectorName[];
const modes = (arg('modes')?.split(',') ?? ['follow', 'auto']) as Array<'follow' | 'auto'>;
const only = arg('shots')?.split(',');
const every = process.argv.includes('--every');
const cache = join(MACHINE_CACHE, 'eval-reframe');

export interface ReframeRow {
  shot: string;
  part: 'tuning' | 'held-out';
  kind: 'person' | 'control';
  detector: FaceDetectorName;
  mode: 'follow' | 'auto';
  seconds: number;
  score: PersonScore | ControlScore;
  detectorName: string;
  /** Samples the detector read (the document's frames_sampled). */
  reads: number;
  chosen: string | null;
  /** The document's chosen_because. */
  because: string | null;
}

export async function evaluateReframe(o: {
  detectors: FaceDetectorName[];
  modes: Array<'follow' | 'auto'>;
  only?: string[];
  /** Detect on every sample (planReframe's adaptive: false). @default false */
  every?: boolean;
  onRow?: (r: ReframeRow) => void;
}): Promise<ReframeRow[]> {
  const rows: ReframeRow[] = [];
  const shots = [...PERSON_SHOTS, ...CONTROL_SHOTS].filter((s) => !o.only || o.only.includes(s.name));
  mkdirSync(cache, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'cutroom-eval-reframe-'));
  try {
    for (const shot of shots) {
      const composed = await composeShot(shot, cache);
      const video = await probeVideo('ffprobe', composed.file);
      for (const name of o.detectors) {
        const detector = await loadFaceDetector(name);
        for (const mode of o.modes) {
          const params: ExtractVerticalClipParams = {
            start: 0,
            end: SHOT_SECONDS,
            profile: 'vidA-primary',
            aspect: '9:16',
            subject: mode,
            subject_id: null,
            subject_box: null,
            t_ref: null,
            subject_x_offset: 0,
          };
          const t0 = performance.now();
          const doc = await planReframe({
            ffmpegPath: 'ffmpeg',
            source: composed.file,
            start: 0,
            end: SHOT_SECONDS,
            video,
            params,
            outWidth: 1080,
            outHeight: 1920,
            workDir: work,
            signal: new AbortController().signal,
            detector,
            ...(o.every && { adaptive: false }),
          });
          const seconds = (performance.now() - t0) / 1000;
          const score = composed.faceAt ? scorePerson(doc, composed.faceAt, SHOT_SECONDS, FRAME.fps) : scoreControl(doc);
          const row: ReframeRow = {
            shot: shot.name,
            part: shot.part,
            kind: composed.faceAt ? 'person' : 'control',
            detector: name,
            mode,
            seconds,
            score,
            detectorName: detector.name,
            reads: doc.detector?.frames_sampled ?? 0,
            chosen: doc.chosen_subject_id,
            because: doc.chosen_because ?? null,
          };
          rows.push(row);
          o.onRow?.(row);
        }
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return rows;
}

const pct = (v: number) => `${Math.round(v * 100)} %`;

/** The table of docs/benchmarks.md: per part, detector and strategy. */
export function reframeTable(rows: readonly ReframeRow[]): string {
  const out = [
    '| part | detector | strategy | person shots: face inside the crop, mean (worst) | shots at ≥ 95 % | face off the crop centre, mean % of its width | largest move, % of crop width | controls: subjects | controls: crop motion, px | s per 6-s shot |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const keys = [...new Set(rows.map((r) => `${r.part}|${r.detector}|${r.mode}`))];
  for (const key of keys) {
    const [part, detector, mode] = key.split('|');
    const group = rows.filter((r) => r.part === part && r.detector === detector && r.mode === mode);
    // auto holds one window per shot: judged only where the face stays within one crop width.
    const people = group.filter((r) => r.kind === 'person' && (mode === 'follow' || (r.score as PersonScore).withinOneCrop)).map((r) => r.score as PersonScore);
    const controls = group.filter((r) => r.kind === 'control').map((r) => r.score as ControlScore);
    const inside = people.map((p) => p.inside);
    out.push(
      `| ${part} | ${detector} | ${mode} | ${people.length ? `${pct(inside.reduce((a, b) => a + b, 0) / inside.length)} (${pct(Math.min(...inside))})` : '-'} | ${people.filter((p) => p.inside >= 0.95).length}/${people.length} | ${people.length ? ((people.reduce((a, p) => a + p.offCentre, 0) / people.length) * 100).toFixed(1) : '-'} | ${people.length ? (Math.max(...people.map((p) => p.largestMove)) * 100).toFixed(1) : '-'} | ${controls.reduce((a, c) => a + c.subjects, 0)} on ${controls.length} | ${controls.length ? Math.max(...controls.map((c) => c.motion)) : '-'} | ${(group.reduce((a, r) => a + r.seconds, 0) / group.length).toFixed(1)} |`,
    );
  }
  return out.join('\n');
}

if (import.meta.main) {
  const rows = await evaluateReframe({
    detectors,
    modes,
    ...(only ? { only } : {}),
    every,
    onRow: (r) =>
      console.log(
        `  ${r.part.padEnd(8)} ${r.shot.padEnd(24)} ${r.detector.padEnd(13)} ${r.mode.padEnd(6)} ${r.seconds.toFixed(1).padStart(5)} s ${String(r.reads).padStart(3)} reads  ${
          r.kind === 'person'
            ? `inside ${pct((r.score as PersonScore).inside)}, off centre ${((r.score as PersonScore).offCentre * 100).toFixed(1)} %, largest move ${((r.score as PersonScore).largestMove * 100).toFixed(1)} %, subjects ${(r.score as PersonScore).subjects}, chosen ${r.chosen}`
            : `subjects ${(r.score as ControlScore).subjects}, motion ${(r.score as ControlScore).motion} px`
        }`,
      ),
  });
  console.log(`\n${reframeTable(rows)}`);
  const json = arg('json');
  if (json) writeFileSync(json, JSON.stringify(rows, null, 2));
}
