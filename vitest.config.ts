import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/sequencer.js';

// Test tiers and how they are scheduled (docs/testing.md has the map of which tier proves what).
//
// Vitest runs "groups" one after another (sequence.groupOrder); inside a group, files of every
// project share one pool of `maxWorkers` processes. Group 0 holds everything that can run side
// by side: the unit and sandbox files, and the black-box HTTP files that only create their own
// tenants, keys and extra processes. Group 1 holds the `*.serial.test.ts` HTTP files, one at a
// time: they stop, kill or restart a component of the shared stack, fill a capacity that is
// shared by every tenant (upload slots, the batch job pool) or put the stack under a load test,
// so nothing else may run beside them.
//
// Most of an HTTP file's time is waiting (on the stack, on time-outs, on extra processes
// starting), so group 0 runs more files than there are cores; SVC_TEST_MAX_WORKERS overrides.
const PARALLEL = Number(process.env.SVC_TEST_MAX_WORKERS ?? 4);
const SERIAL_HTTP = 'test/http/**/*.serial.test.ts';
const http = {
  // One private stack (Temporal, FerretDB, worker, API) for both HTTP projects, started once.
  globalSetup: ['test/http/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 180_000,
};

export default defineConfig({
  test: {
    // Longest files first across projects (test/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          testTimeout: 30_000,
          maxWorkers: PARALLEL,
        },
      },
      {
        test: {
          // In-process tier: the real Koa app with a scripted Temporal client, no stack
          // (test/inproc/harness.ts): validation matrices and error mapping in milliseconds.
          name: 'inproc',
          include: ['test/inproc/**/*.test.ts'],
          testTimeout: 30_000,
          maxWorkers: PARALLEL,
        },
      },
      {
        test: {
          // Workflow tier: workflows on @temporalio/testing against the project's own temporal
          // CLI, with scripted activities; no stack needed.
          name: 'workflow',
          include: ['test/workflow/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 240_000,
          maxWorkers: PARALLEL,
        },
      },
      {
        test: {
          name: 'sandbox',
          include: ['test/sandbox/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 1_800_000,
          maxWorkers: PARALLEL,
        },
      },
      {
        test: {
          // Black-box HTTP tests against the real stack, several files at a time.
          name: 'http',
          include: ['test/http/**/*.test.ts'],
          exclude: [SERIAL_HTTP],
          ...http,
          maxWorkers: PARALLEL,
        },
      },
      {
        test: {
          // Black-box HTTP tests that need the stack to themselves: alone, after group 0.
          name: 'http-serial',
          include: [SERIAL_HTTP],
          ...http,
          // Stops the parallel phase's shared extra processes first (test/http/extra-process.ts).
          setupFiles: ['test/http/serial-setup.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
