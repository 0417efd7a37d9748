import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The integration files that take longest (seconds as whole files in a full run on two cores, imports
 * and hooks included: scripts/run-tests.ts's ten slowest),
 * longest first. With several files in flight, a long file that starts last is the run's tail; these
 * start first, and the short files fill the other workers around them.
 */
export const HEAVY_FILES: readonly string[] = [
  'test/summarize-flow.test.ts', // ~180: the local text model on CPU, one request per chapter
  'test/products-flow.test.ts', // ~160: two find_clips runs, three 50-s 9:16 clips
  'test/understanding-eval.test.ts', // ~110: summarize and find_clips with the text model
  'test/find-clips-flow.test.ts', // ~110: 7.7 min of talk, the text model
  'test/chaos.test.ts', // ~100
  'test/bad-media.test.ts', // ~70: four hours of silence through Whisper
  'test/bundle-flow.test.ts', // ~70
  'test/find-clips-core.test.ts', // ~60: 12.8 min of talk through Whisper
  'test/render-agent-loop.test.ts', // ~60
  'test/cli-flow.test.ts', // ~55
];

/** Vitest's own order (its duration cache when it has one, else larger files first), the heavy files ahead of it. */
export default class HeavyFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (f: TestSpecification) => {
      const i = HEAVY_FILES.indexOf(relative(f.project.config.root, f.moduleId));
      return i === -1 ? HEAVY_FILES.length : i;
    };
    // Array.prototype.sort is stable: the rest keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
