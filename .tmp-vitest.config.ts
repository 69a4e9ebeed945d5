import { defineConfig } from 'vitest/config';
export default defineConfig({
  test: {
    name: 'http7',
    include: ['test/http/**/*.test.ts'],
    globalSetup: ['./.tmp-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
});
