// Which files make the flows and slow tiers beyond their globs (vitest.config.ts); scripts/run-tests.ts
// reads the same lists to report each tier's wall time when tiers share one run.

/** Unit tests beside the code that encode media with ffmpeg, run Whisper or load model weights. */
export const UNIT_WITH_MEDIA_OR_MODELS = [
  'render-agent/src/pipelines/extract-clip.test.ts',
  'render-agent/src/pipelines/extract-vertical-clip.test.ts',
  'render-agent/src/pipelines/http-transfer.test.ts',
  'render-agent/src/understanding/summarize.test.ts',
  'render-agent/src/understanding/candidate-texts.test.ts',
];

/** Integration files of the slow tier. */
export const SLOW = [
  'test/find-clips-flow.test.ts',
  'test/summarize-flow.test.ts',
  'test/understanding-eval.test.ts',
  'test/text-generator.test.ts',
  'test/chaos.test.ts',
  'test/admin-console.test.ts',
  'test/consent-in-chromium.test.ts',
  'test/cli-flow.test.ts',
  'test/deploy-manifests.test.ts',
  'test/nats-cluster.test.ts',
  'test/replicas.test.ts',
  'test/payments-one-authorization.test.ts',
  'test/api-fuzz.test.ts',
];
