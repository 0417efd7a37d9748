import { describe, expect, it } from 'vitest';
import { greyPatch, loudnessDb, mouthActivity, mouthLook, patchChange, SPEAKING, speakerOf, speakingScore, voicedThresholdDb } from './speaking.ts';

const W = 64;
const H = 48;
/** A grey frame with a dark horizontal bar (a closed mouth) or a dark block (an open one) at (cx, cy). */
function frame(cx: number, cy: number, open: boolean, noseShade = 120): Uint8Array {
  const rgb = new Uint8Array(W * H * 3).fill(180);
  const put = (x: number, y: number, v: number) => rgb.fill(v, (y * W + x) * 3, (y * W + x) * 3 + 3);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      if (Math.abs(x - cx) <= 5 && Math.abs(y - cy) <= (open ? 3 : 0)) put(x, y, 40);
      if (Math.abs(x - cx) <= 1 && y >= cy - 10 && y <= cy - 6) put(x, y, noseShade); // the nose, above
    }
  return rgb;
}
const face = {
  x: 12,
  y: 4,
  w: 40,
  h: 40,
  score: 0.9,
  landmarks: [
    [24, 14],
    [40, 14],
    [32, 22],
    [32, 30],
    [14, 18],
    [50, 18],
  ] as [number, number][],
};

describe('patches', () => {
  it('normalizes a patch to zero mean, and sees a mouth open where it was closed', () => {
    const p = greyPatch(frame(32, 30, false), W, H, { x: 20, y: 23, w: 24, h: 14 });
    expect(p).toHaveLength(SPEAKING.patch.w * SPEAKING.patch.h);
    expect(Math.abs(p.reduce((a, b) => a + b, 0) / p.length)).toBeLessThan(1e-5);
    const closed = mouthLook(frame(32, 30, false), W, H, face)!;
    const open = mouthLook(frame(32, 30, true), W, H, face)!;
    expect(patchChange(closed.mouth, closed.mouth)).toBe(0);
    expect(mouthActivity(closed, open)).toBeGreaterThan(0.3);
    expect(mouthActivity(closed, mouthLook(frame(32, 30, false), W, H, face)!)).toBe(0);
  });

  it('takes off what the eyes-to-nose patch changed too (a head or the light moving, not the mouth)', () => {
    const a = mouthLook(frame(32, 30, false), W, H, face)!;
    // The whole picture shifted by 3 px: mouth and nose both change.
    const b = mouthLook(frame(35, 30, false, 60), W, H, face)!;
    expect(mouthActivity(a, b)).toBeLessThan(patchChange(a.mouth, b.mouth));
  });

  it('needs landmarks', () => {
    expect(mouthLook(frame(32, 30, false), W, H, { x: 12, y: 4, w: 40, h: 40, score: 0.9 })).toBeNull();
  });
});

describe('loudness and voice', () => {
  const rate = 8000;
  // 1 s of near silence, 1 s of a loud tone, 1 s of near silence.
  const samples = new Int16Array(3 * rate).map((_, i) => (i >= rate && i < 2 * rate ? Math.round(8000 * Math.sin(i / 3)) : (i % 7) - 3));
  it('measures dBFS over an interval', () => {
    expect(loudnessDb(samples, rate, 1.2, 1.8)).toBeGreaterThan(-16);
    expect(loudnessDb(samples, rate, 0.2, 0.8)).toBeLessThan(-70);
    expect(loudnessDb(samples, rate, 5, 6)).toBe(-120);
  });

  it('puts the voiced threshold over the quiet floor, and never under the absolute minimum', () => {
    const t = voicedThresholdDb(samples, rate);
    expect(t).toBe(SPEAKING.voicedMinDb);
    expect(loudnessDb(samples, rate, 1.2, 1.8)).toBeGreaterThan(t);
    // A clip with a hum under the voice: the floor is the hum's level plus the margin.
    const hum = samples.map((v, i) => v + Math.round(600 * Math.sin(i / 5)));
    expect(voicedThresholdDb(hum, rate)).toBeGreaterThan(SPEAKING.voicedMinDb);
  });
});

describe('who speaks', () => {
  const iv = (activity: number, voiced: boolean) => ({ activity, voiced });
  const talker = [...Array(6).fill(iv(0.4, true)), ...Array(6).fill(iv(0.05, false))];
  const still = [...Array(6).fill(iv(0.03, true)), ...Array(6).fill(iv(0.02, false))];
  const chewer = [...Array(6).fill(iv(0.1, true)), ...Array(6).fill(iv(0.4, false))];

  it('scores mouth movement with the voice against movement without it', () => {
    expect(speakingScore(talker).score).toBeCloseTo(0.35);
    expect(speakingScore(chewer).score).toBeCloseTo(-0.3);
    // Too few quiet intervals to tell talking from a mouth that always moves.
    expect(speakingScore(talker.slice(0, 8))).toEqual({ score: null, voiced: 6, unvoiced: 2 });
  });

  it('names the face that clearly speaks, and none when two do or none does', () => {
    const scores = (...lists: ReturnType<typeof iv>[][]) => new Map(lists.map((l, i) => [`s${i + 1}`, speakingScore(l)]));
    expect(speakerOf(scores(still, talker))).toBe('s2');
    expect(speakerOf(scores(chewer, talker))).toBe('s2');
    expect(speakerOf(scores(still, still))).toBeNull();
    expect(speakerOf(scores(talker, talker))).toBeNull();
    // A face that could not be judged (seen moving, or too briefly) is not known to be quiet.
    expect(speakerOf(scores(talker, talker.slice(0, 3)))).toBeNull();
  });
});
