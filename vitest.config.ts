import { defineConfig } from 'vitest/config';

// Two projects: unit tests live beside the code; the integration suite in test/ starts real
// Postgres, NATS JetStream, an S3 server, ffmpeg and Whisper, so it runs serially with long timeouts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{shared,proto,coordinator,render-agent,cli}/src/**/*.test.ts', 'test/fakes/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/fakes/**'],
          environment: 'node',
          testTimeout: 180_000,
          hookTimeout: 240_000,
          fileParallelism: false,
          pool: 'forks',
        },
      },
    ],
  },
});
