import { defineConfig } from 'vitest/config';
import HeavyFirstSequencer from './test/setup/heavy-first-sequencer.ts';
import { SLOW, UNIT_WITH_MEDIA_OR_MODELS } from './test/setup/tiers.ts';

// Three tiers (CONTRIBUTING.md "Test tiers and the time budget"), one vitest project each; which
// file runs where is decided here and in the lists of test/setup/tiers.ts, nowhere else.
//
// - fast: pure logic and the engine on PGlite with the manual clock (one migrated template per
//   run: test/setup/pglite-template.global.ts). No ffmpeg encodes, no model weights, no services.
// - flows: the integration flows on real Postgres, NATS JetStream, MinIO, ffmpeg and Whisper (one
//   Postgres and one MinIO per run, a database and a bucket per file: test/setup/services.global.ts),
//   and the unit tests beside the code that encode media or load a model.
// - slow: the local text-model flows, chaos, the browser console, the CLI in a terminal, the deploy
//   manifests, the NATS cluster, replicas, and the fuzz slices.

const integration = {
  environment: 'node' as const,
  testTimeout: 180_000,
  hookTimeout: 240_000,
  // Several files at once (scripts/run-tests.ts sets how many): each starts its own coordinator,
  // agents and nats-server, and most of a flow's wall time is waiting (leases, sweeps, blocks,
  // polls), so files overlap well even on two cores. The shared Postgres and MinIO serve them all.
  pool: 'forks' as const,
  // A worker keeps its module cache from file to file (each file still starts its own stack; what
  // the code keeps at module level is registries filled at import and caches of loaded models, which
  // files may share): importing the coordinator, the SDKs and the harness cost 2.5-6 s a file, about
  // 150 s of a full run's 59 files on two cores.
  isolate: false,
  globalSetup: ['test/setup/services.global.ts'],
};

export default defineConfig({
  test: {
    // The longest integration files start first (test/setup/heavy-first-sequencer.ts).
    sequence: { sequencer: HeavyFirstSequencer },
    projects: [
      {
        test: {
          name: 'fast',
          include: ['{shared,proto,coordinator,render-agent,cli}/src/**/*.test.ts', 'test/fakes/**/*.test.ts', 'scripts/**/*.test.ts'],
          exclude: UNIT_WITH_MEDIA_OR_MODELS,
          environment: 'node',
          globalSetup: ['test/setup/pglite-template.global.ts'],
          // Files share their worker's module cache (not re-imported per file): import time was most of this tier.
          isolate: false,
        },
      },
      {
        test: {
          name: 'flows',
          include: ['test/**/*.test.ts', ...UNIT_WITH_MEDIA_OR_MODELS],
          exclude: ['test/fakes/**', ...SLOW],
          ...integration,
        },
      },
      {
        test: {
          name: 'slow',
          include: SLOW,
          ...integration,
        },
      },
    ],
  },
});
