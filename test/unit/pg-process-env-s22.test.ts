// Session 22 review: PGlite's process (a child of the worker that runs callers' SQL) starts without
// the service's settings and secrets, as the stack's auxiliary processes do since session 22
// (core/child-env.ts): no SVC_* (payload keys, provider keys) and no MONGODB_URI (the store's
// password) in its environment; the rest of the worker's environment and the malloc thresholds stay.
// Read from the real process (/proc/<pid>/environ).
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_PG_CHECK_LIMITS, PgCheck, pgProcessEnv } from '../../engines/sql/pg-check.js';

const SECRETS = {
  SVC_OPENAI_API_KEY: 'sk-test-pg-env-s22-do-not-pass',
  SVC_TEMPORAL_PAYLOAD_KEYS: '{"k1":"AAAA"}',
  MONGODB_URI: 'mongodb://svc:hunter2@127.0.0.1:15000/svc',
};
const saved = Object.fromEntries(Object.keys(SECRETS).map((k) => [k, process.env[k]]));
Object.assign(process.env, SECRETS, { PG_ENV_S22_KEPT: 'yes' });

const pg = new PgCheck({ ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, timeoutMs: 60_000 });

afterAll(async () => {
  await pg.shutdown();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  delete process.env.PG_ENV_S22_KEPT;
});

describe("PGlite's process environment", () => {
  it('pgProcessEnv drops every SVC_* and MONGODB_URI, keeps the rest, adds the malloc thresholds', () => {
    expect(pgProcessEnv({ SVC_X: '1', MONGODB_URI: 'm', PATH: '/bin', SVCX: 'kept' })).toEqual({
      PATH: '/bin',
      SVCX: 'kept',
      MALLOC_MMAP_THRESHOLD_: '131072',
      MALLOC_TRIM_THRESHOLD_: '131072',
    });
  });

  it('the real process runs without them (/proc/<pid>/environ)', async () => {
    expect(await pg.start()).toBe(true);
    const pid = pg.processId();
    expect(pid).not.toBeNull();
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const names = environ.map((kv) => kv.split('=')[0]!);
    expect(names.filter((n) => n.startsWith('SVC_') || n === 'MONGODB_URI')).toEqual([]);
    expect(environ.join('\n')).not.toContain('hunter2');
    expect(environ).toContain('PG_ENV_S22_KEPT=yes');
    expect(environ).toContain('MALLOC_MMAP_THRESHOLD_=131072');
  }, 180_000);
});
