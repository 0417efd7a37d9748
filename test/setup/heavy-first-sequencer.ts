import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The integration files that take longest (seconds alone on two cores, measured for issue 22),
 * longest first. With several files in flight, a long file that starts last is the run's tail; these
 * start first, and the short files fill the other workers around them.
 */
export const HEAVY_FILES: readonly string[] = [
  'test/products-flow.test.ts', // ~300: two find_clips runs, three 2-minute 9:16 clips
  'test/summarize-flow.test.ts', // ~280: 12.8 min of talk, the local text model on CPU
  'test/bundle-flow.test.ts', // ~110
  'test/chaos.test.ts', // ~90
  'test/find-clips-flow.test.ts', // ~85
  'test/bad-media.test.ts', // ~75: four hours of silence through Whisper
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
