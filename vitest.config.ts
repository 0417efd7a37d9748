import { defineConfig } from 'vitest/config';

// Three tiers (CONTRIBUTING.md "Test tiers and the time budget"), one vitest project each; which
// file runs where is decided here and nowhere else.
//
// - fast: pure logic and the engine on PGlite with the manual clock (one migrated template per
//   run: test/setup/pglite-template.global.ts). No ffmpeg encodes, no model weights, no services.
// - flows: the integration flows on real Postgres, NATS JetStream, MinIO, ffmpeg and Whisper (one
//   Postgres and one MinIO per run, a database and a bucket per file: test/setup/services.global.ts),
//   and the unit tests beside the code that encode media or load a model.
// - slow: the local text-model flows, chaos, the browser console, the CLI in a terminal, the deploy
//   manifests, the NATS cluster, replicas, and the fuzz slices.

/** Unit tests beside the code that encode media with ffmpeg, run Whisper or load model weights. */
const UNIT_WITH_MEDIA_OR_MODELS = [
  'render-agent/src/pipelines/extract-clip.test.ts',
  'render-agent/src/pipelines/extract-vertical-clip.test.ts',
  'render-agent/src/pipelines/http-transfer.test.ts',
  'render-agent/src/understanding/summarize.test.ts',
  'render-agent/src/understanding/candidate-texts.test.ts',
  'render-agent/src/understanding/list-grounding.test.ts',
];

/** Integration files of the slow tier. */
const SLOW = [
  'test/find-clips-flow.test.ts',
  'test/summarize-flow.test.ts',
  'test/text-generator.test.ts',
  'test/chaos.test.ts',
  'test/admin-console.test.ts',
  'test/cli-flow.test.ts',
  'test/deploy-manifests.test.ts',
  'test/nats-cluster.test.ts',
  'test/replicas.test.ts',
  'test/payments-one-authorization.test.ts',
  'test/api-fuzz.test.ts',
];

const integration = {
  environment: 'node' as const,
  testTimeout: 180_000,
  hookTimeout: 240_000,
  // Files run one at a time: each starts its own coordinator, agents and nats-server, and on two
  // cores ffmpeg and Whisper already use them; the shared Postgres and MinIO serve them all.
  fileParallelism: false,
  pool: 'forks' as const,
  globalSetup: ['test/setup/services.global.ts'],
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'fast',
          include: ['{shared,proto,coordinator,render-agent,cli}/src/**/*.test.ts', 'test/fakes/**/*.test.ts'],
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
