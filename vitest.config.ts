import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'sandbox',
          include: ['test/sandbox/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 1_800_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          // Black-box HTTP tests against a real stack (Temporal, FerretDB, worker, API)
          // started once by the global setup on test ports.
          name: 'http',
          include: ['test/http/**/*.test.ts'],
          globalSetup: ['test/http/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
