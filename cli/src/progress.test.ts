import { describe, expect, it } from 'vitest';
import { createUi } from './progress.ts';

/** A stream that keeps what is written, and a clock the test moves. */
function harness() {
  const written: string[] = [];
  const stream = { write: (s: string) => written.push(s), isTTY: false } as unknown as NodeJS.WriteStream;
  let t = 0;
  return { written, stream, now: () => t, advance: (ms: number) => (t += ms) };
}

describe('plain progress lines', () => {
  it('prints an upload line per 10% at most every 2 s, then the total', () => {
    const h = harness();
    const ui = createUi('plain', h.stream, h.now);
    const bar = ui.upload(1000);
    for (let b = 50; b <= 1000; b += 50) {
      h.advance(500);
      bar.update(b);
    }
    bar.finish();
    expect(h.written[0]).toBe('upload: 0% of 1000 B\n');
    expect(h.written.length).toBeGreaterThan(3);
    expect(h.written.length).toBeLessThan(8);
    expect(h.written.at(-1)).toBe('upload: 100% 1000 B in 10s (100 B/s)\n');
    expect(h.written.slice(1, -1).every((l) => /^upload: \d+% .* ETA /.test(l))).toBe(true);
  });

  it('prints each stage, progress in steps, and the end', () => {
    const h = harness();
    const p = createUi('plain', h.stream, h.now).processing();
    p.stage('extracting_audio');
    h.advance(100);
    p.stage('transcribing', 0.05);
    h.advance(100);
    p.stage('transcribing', 0.1); // too soon after the last line
    h.advance(3000);
    p.stage('transcribing', 0.6);
    p.finish('completed');
    expect(h.written).toEqual([
      'processing: extracting audio\n',
      'processing: transcribing 5%\n',
      'processing: transcribing 60%\n',
      'processing: completed 100%\n',
    ]);
  });

  it('prints messages but no progress with CUTROOM_PROGRESS=none', () => {
    const h = harness();
    const ui = createUi('none', h.stream, h.now);
    ui.upload(10).finish();
    ui.processing().finish('completed');
    ui.info('hello');
    expect(h.written).toEqual(['hello\n']);
  });
});
