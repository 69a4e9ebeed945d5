// PGlite's process runs with V8 flags of its own (session 16, issue 22's memory under the mixed
// load): `--liftoff-only` keeps PostgreSQL's WebAssembly in V8's baseline code (TurboFan's code
// and buffers held ~60–100 MB of the process), `--optimize-for-size` keeps its heaps small.
// SVC_SQL_PG_V8_FLAGS replaces them (empty: V8's defaults). glibc's malloc thresholds are fixed
// at 128 KiB in that process (freed MEMFS buffers go back to the system). The verdicts do not
// depend on either.
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadSqlEngineConfig } from '../../core/config.js';
import {
  DEFAULT_PG_CHECK_LIMITS,
  PG_PROCESS_MALLOC_ENV,
  PG_PROCESS_V8_FLAGS,
  PgCheck,
} from '../../engines/sql/pg-check.js';

const DDL = 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);';
const environOf = (pid: number | null) =>
  pid === null ? [] : readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
const argvOf = (pid: number | null) => (pid === null ? [] : readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));

/** One accepted query, one unknown column, one syntax error: what the check decides. */
async function verdicts(pg: PgCheck) {
  const out = [];
  for (const q of [
    'SELECT w_state, count(*) FROM warehouse GROUP BY w_state',
    'SELECT w_city FROM warehouse',
    'SELEC w_state FROM warehouse',
  ]) {
    const r = await pg.check(q, DDL, { budgetMs: 120_000 });
    out.push(r.ran ? (r.ok ? { ok: true, columns: r.columns } : { ok: false, kind: r.kind, sqlstate: r.sqlstate }) : r);
  }
  return out;
}

const EXPECTED = [
  {
    ok: true,
    columns: [
      { name: 'w_state', type_oid: 25 },
      { name: 'count', type_oid: 20 },
    ],
  },
  { ok: false, kind: 'undefined_column', sqlstate: '42703' },
  { ok: false, kind: 'syntax', sqlstate: '42601' },
];

describe("PGlite's process: V8 flags", () => {
  const byDefault = new PgCheck({ ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, timeoutMs: 60_000 });
  const v8Defaults = new PgCheck({ ...DEFAULT_PG_CHECK_LIMITS, bootWaitMs: 120_000, timeoutMs: 60_000, v8Flags: [] });
  afterAll(async () => {
    await Promise.all([byDefault.shutdown(), v8Defaults.shutdown()]);
  });

  it('by default it runs with --liftoff-only --optimize-for-size, and decides as before', async () => {
    expect(PG_PROCESS_V8_FLAGS).toEqual(['--liftoff-only', '--optimize-for-size']);
    expect(byDefault.processId()).toBeNull();
    expect(await verdicts(byDefault)).toEqual(EXPECTED);
    const argv = argvOf(byDefault.processId());
    expect(argv).toContain('--liftoff-only');
    expect(argv).toContain('--optimize-for-size');
    expect(argv).toContain('--expose-gc');
    // glibc's malloc thresholds fixed at 128 KiB in PGlite's process only.
    expect(PG_PROCESS_MALLOC_ENV).toEqual({ MALLOC_MMAP_THRESHOLD_: '131072', MALLOC_TRIM_THRESHOLD_: '131072' });
    const environ = environOf(byDefault.processId());
    expect(environ).toContain('MALLOC_MMAP_THRESHOLD_=131072');
    expect(environ).toContain('MALLOC_TRIM_THRESHOLD_=131072');
  }, 300_000);

  it('v8Flags [] (SVC_SQL_PG_V8_FLAGS empty): V8 defaults, the same verdicts', async () => {
    expect(await verdicts(v8Defaults)).toEqual(EXPECTED);
    const argv = argvOf(v8Defaults.processId());
    expect(argv).toContain('--expose-gc');
    expect(argv).not.toContain('--liftoff-only');
    expect(argv).not.toContain('--optimize-for-size');
  }, 300_000);

  it('after shutdown no process id', async () => {
    await v8Defaults.shutdown();
    expect(v8Defaults.processId()).toBeNull();
  });
});

describe('SVC_SQL_PG_V8_FLAGS', () => {
  it('unset: the engine keeps its own flags (no v8Flags in the config)', () => {
    expect(loadSqlEngineConfig({}).pgCheck.v8Flags).toBeUndefined();
    expect('v8Flags' in loadSqlEngineConfig({}).pgCheck).toBe(false);
  });

  it('empty: V8 defaults; a list: those flags', () => {
    expect(loadSqlEngineConfig({ SVC_SQL_PG_V8_FLAGS: '' }).pgCheck.v8Flags).toEqual([]);
    expect(loadSqlEngineConfig({ SVC_SQL_PG_V8_FLAGS: '  ' }).pgCheck.v8Flags).toEqual([]);
    expect(
      loadSqlEngineConfig({ SVC_SQL_PG_V8_FLAGS: ' --liftoff-only  --max-semi-space-size=1 ' }).pgCheck.v8Flags,
    ).toEqual(['--liftoff-only', '--max-semi-space-size=1']);
  });

  it('anything but V8 flags is a configuration error naming the value', () => {
    for (const bad of ['liftoff-only', '--require=/tmp/x.js', '--liftoff-only ;rm', '-e', '--x=a b']) {
      expect(() => loadSqlEngineConfig({ SVC_SQL_PG_V8_FLAGS: bad })).toThrow(ConfigError);
    }
    expect(() => loadSqlEngineConfig({ SVC_SQL_PG_V8_FLAGS: '--require=/tmp/x.js' })).toThrow(
      'invalid configuration: SVC_SQL_PG_V8_FLAGS must be V8 flags such as --liftoff-only, got "--require=/tmp/x.js"',
    );
  });
});
