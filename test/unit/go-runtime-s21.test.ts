// Session 21 (issue 22): the Go runtime settings of the stack's Go processes (infra/go-runtime.ts):
// SVC_TEMPORAL_GOMAXPROCS / _GOGC / _GOMEMLIMIT reach the Temporal dev server, SVC_STORE_* reach
// FerretDB, each process gets only its own, bad values stop the stack at start, and the real
// binaries, spawned by the stack's own process specs, run with them (/proc/<pid>/environ).
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { GO_RUNTIME_DEFAULTS, goRuntimeEnv } from '../../infra/go-runtime.js';
import { ManagedProcess, Stack, testPorts } from '../../infra/stack.js';

// Ports of this file's own (never started) stack: the suite's offset + 30.
const ports = testPorts(Number(process.env.SVC_TEST_PORT_OFFSET ?? 0) + 30);
const dataDirs: string[] = [];
afterAll(() => {
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

/** A stack built but not started (no process runs until up()); the service from source (no build). */
function stackWith(env: Record<string, string>, mongodbUri?: string): Stack {
  const stack = new Stack({
    profile: `test-go-runtime-s21-${ports.api}`,
    ports,
    env: { SVC_RUN_FROM_SOURCE: '1', ...env },
    ...(mongodbUri ? { mongodbUri } : {}),
  });
  dataDirs.push(stack.dataDir);
  return stack;
}

const GO = ['GOMAXPROCS', 'GOGC', 'GOMEMLIMIT'] as const;
const goVars = (env: NodeJS.ProcessEnv) => Object.fromEntries(GO.filter((k) => k in env).map((k) => [k, env[k]]));
/** What this process's own environment has (the Go processes inherit it under the knobs). */
const inherited = goVars(process.env);

describe('goRuntimeEnv', () => {
  it('sets each knob on its own process only, over the inherited environment, without changing it', () => {
    const base = { PATH: '/bin', GOGC: '50' };
    const knobs = {
      SVC_TEMPORAL_GOMAXPROCS: '1',
      SVC_TEMPORAL_GOGC: '200',
      SVC_TEMPORAL_GOMEMLIMIT: '256MiB',
      SVC_STORE_GOGC: ' 400 ',
    };
    expect(goVars(goRuntimeEnv('temporal', knobs, base))).toEqual({
      GOMAXPROCS: '1',
      GOGC: '200',
      GOMEMLIMIT: '256MiB',
    });
    expect(goRuntimeEnv('temporal', knobs, base).PATH).toBe('/bin');
    expect(goVars(goRuntimeEnv('store', knobs, base))).toEqual({
      ...GO_RUNTIME_DEFAULTS.store,
      GOGC: '400',
    });
    expect(base).toEqual({ PATH: '/bin', GOGC: '50' });
  });

  it('unset or empty knobs give the defaults; GOMAXPROCS=auto removes the variable (Go counts the CPUs)', () => {
    for (const proc of ['temporal', 'store'] as const) {
      expect(goVars(goRuntimeEnv(proc, {}, {}))).toEqual(GO_RUNTIME_DEFAULTS[proc]);
      expect(
        goVars(goRuntimeEnv(proc, { SVC_TEMPORAL_GOMAXPROCS: '', SVC_STORE_GOMAXPROCS: '', SVC_STORE_GOGC: '' }, {})),
      ).toEqual(GO_RUNTIME_DEFAULTS[proc]);
      const prefix = proc === 'temporal' ? 'SVC_TEMPORAL_' : 'SVC_STORE_';
      const env = goRuntimeEnv(proc, { [`${prefix}GOMAXPROCS`]: 'auto' }, { GOMAXPROCS: '7' });
      expect('GOMAXPROCS' in env).toBe(false);
      expect(goRuntimeEnv(proc, { [`${prefix}GOGC`]: 'off', [`${prefix}GOMEMLIMIT`]: 'off' }, {})).toMatchObject({
        GOGC: 'off',
        GOMEMLIMIT: 'off',
      });
    }
  });

  it('takes every size Go takes, up to 2^63-1 bytes (session 21 review)', () => {
    // Session 22: not below 64 MiB (test/unit/go-memlimit-floor-s22.test.ts).
    for (const v of ['8388607TiB', '8589934591GiB', '8796093022207MiB', '9999999999999B', '67108864B'])
      expect(goRuntimeEnv('store', { SVC_STORE_GOMEMLIMIT: v }, {}).GOMEMLIMIT, v).toBe(v);
  });

  it('the sizes at the edge are the ones the real Go binary takes or aborts on (session 21 review)', () => {
    const ferretdb = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../.tools/bin/ferretdb');
    for (const v of ['8388607TiB', '8388608TiB', '8589934592GiB', '8796093022207MiB', '8796093022208MiB']) {
      const run = spawnSync(ferretdb, ['--version'], { env: { GOMEMLIMIT: v }, encoding: 'utf8', timeout: 30_000 });
      const goTakes = !/malformed GOMEMLIMIT/.test(run.stderr);
      let weTake = true;
      try {
        goRuntimeEnv('store', { SVC_STORE_GOMEMLIMIT: v }, {});
      } catch {
        weTake = false;
      }
      expect(weTake, v).toBe(goTakes);
    }
  });

  it('refuses a value Go would misread or ignore, naming the knob', () => {
    for (const [knob, value] of [
      ['SVC_TEMPORAL_GOMAXPROCS', '0'],
      ['SVC_TEMPORAL_GOMAXPROCS', '-1'],
      ['SVC_STORE_GOMAXPROCS', '1.5'],
      ['SVC_STORE_GOMAXPROCS', '257'],
      ['SVC_TEMPORAL_GOGC', '0'],
      ['SVC_TEMPORAL_GOGC', 'fast'],
      ['SVC_STORE_GOGC', '-5'],
      ['SVC_TEMPORAL_GOMEMLIMIT', '512mb'],
      ['SVC_STORE_GOMEMLIMIT', '512 MiB'],
      ['SVC_STORE_GOMEMLIMIT', '0'],
      // Past 2^63-1 bytes Go aborts the process at start ("malformed GOMEMLIMIT"; session 21 review).
      ['SVC_STORE_GOMEMLIMIT', '8388608TiB'],
      ['SVC_TEMPORAL_GOMEMLIMIT', '9999999999999TiB'],
      ['SVC_STORE_GOMEMLIMIT', '8589934592GiB'],
    ] as const) {
      const proc = knob.startsWith('SVC_TEMPORAL_') ? 'temporal' : 'store';
      expect(() => goRuntimeEnv(proc, { [knob]: value }, {}), `${knob}=${value}`).toThrow(
        new RegExp(`^${knob} must be`),
      );
    }
  });
});

describe("the stack's Go processes (session 21)", () => {
  it("the process specs carry the knobs; the service's secrets still stay out of them", () => {
    const stack = stackWith({ SVC_TEMPORAL_GOMAXPROCS: '1', SVC_STORE_GOGC: '300', SVC_STORE_GOMEMLIMIT: '1GiB' });
    expect(goVars(stack.temporal.spec.env)).toEqual({ ...inherited, ...GO_RUNTIME_DEFAULTS.temporal, GOMAXPROCS: '1' });
    expect(goVars(stack.ferret!.spec.env)).toEqual({
      ...inherited,
      ...GO_RUNTIME_DEFAULTS.store,
      GOGC: '300',
      GOMEMLIMIT: '1GiB',
    });
    expect(stack.env.SVC_API_KEY_LOOKUP_SECRET).toBeTruthy();
    expect(stack.temporal.spec.env.SVC_API_KEY_LOOKUP_SECRET).toBeUndefined();
    expect(stack.ferret!.spec.env.SVC_API_KEY_LOOKUP_SECRET).toBeUndefined();
  });

  it("secrets in the supervisor's own environment (npm run dev takes its shell's SVC_*) stay out of them (session 21 review)", () => {
    const base = { PATH: '/usr/bin', SVC_OPENAI_API_KEY: 'sk-shell-secret', MONGODB_URI: 'mongodb://u:pw@db/svc' };
    for (const proc of ['temporal', 'store'] as const) {
      const env = goRuntimeEnv(proc, {}, base);
      expect(env.PATH).toBe('/usr/bin');
      expect(Object.keys(env).filter((k) => k.startsWith('SVC_') || k === 'MONGODB_URI')).toEqual([]);
      expect(JSON.stringify(env)).not.toMatch(/sk-shell-secret|pw@/);
    }
    expect(base.SVC_OPENAI_API_KEY).toBe('sk-shell-secret'); // the supervisor's own is untouched
    vi.stubEnv('SVC_ANTHROPIC_API_KEY', 'sk-ant-shell-secret');
    try {
      const stack = stackWith({});
      expect(stack.temporal.spec.env.SVC_ANTHROPIC_API_KEY).toBeUndefined();
      expect(stack.ferret!.spec.env.SVC_ANTHROPIC_API_KEY).toBeUndefined();
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("the adopted defaults: FerretDB with GOGC=400 under a 2 GiB ceiling; Temporal on Go's own", () => {
    expect(GO_RUNTIME_DEFAULTS).toEqual({ temporal: {}, store: { GOGC: '400', GOMEMLIMIT: '2GiB' } });
    const stack = stackWith({});
    expect(goVars(stack.ferret!.spec.env)).toEqual({ ...inherited, GOGC: '400', GOMEMLIMIT: '2GiB' });
    expect(goVars(stack.temporal.spec.env)).toEqual(inherited);
  });

  it('the defaults reach both processes when no knob is set', () => {
    const stack = stackWith({});
    expect(goVars(stack.temporal.spec.env)).toMatchObject(GO_RUNTIME_DEFAULTS.temporal);
    expect(goVars(stack.ferret!.spec.env)).toMatchObject(GO_RUNTIME_DEFAULTS.store);
  });

  it('a bad value stops the stack before anything starts', () => {
    expect(() => stackWith({ SVC_TEMPORAL_GOMAXPROCS: 'two' })).toThrow(/^SVC_TEMPORAL_GOMAXPROCS must be/);
    expect(() => stackWith({ SVC_STORE_GOMEMLIMIT: '1G' })).toThrow(/^SVC_STORE_GOMEMLIMIT must be/);
  });

  it('an external MONGODB_URI starts no FerretDB, so its knobs have no process to reach', () => {
    const stack = stackWith({ SVC_STORE_GOMAXPROCS: '1' }, 'mongodb://127.0.0.1:1/svc');
    expect(stack.ferret).toBeNull();
    expect(stack.processes.map((p) => p.spec.name)).not.toContain('ferretdb');
  });

  it('the real temporal and ferretdb binaries, spawned by their stack specs, run with the values', async () => {
    const stack = stackWith({
      SVC_TEMPORAL_GOMAXPROCS: '1',
      SVC_TEMPORAL_GOGC: '250',
      SVC_STORE_GOMAXPROCS: '1',
      SVC_STORE_GOMEMLIMIT: '768MiB',
    });
    for (const [proc, want] of [
      [stack.temporal, { ...inherited, ...GO_RUNTIME_DEFAULTS.temporal, GOMAXPROCS: '1', GOGC: '250' }],
      [stack.ferret!, { ...inherited, ...GO_RUNTIME_DEFAULTS.store, GOMAXPROCS: '1', GOMEMLIMIT: '768MiB' }],
    ] as const) {
      let seen: Record<string, string> | null = null;
      // The stack's own spec (binary, arguments, environment); ready once its environment is read.
      const p = new ManagedProcess(
        {
          ...proc.spec,
          name: `${proc.spec.name}-environ`,
          ready: async (m) => {
            const text = readFileSync(`/proc/${m.pid}/environ`, 'utf8');
            seen = Object.fromEntries(
              text
                .split('\0')
                .filter((kv) => /^GO(MAXPROCS|GC|MEMLIMIT)=/.test(kv))
                .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
            );
            return true;
          },
        },
        stack.dataDir,
      );
      try {
        await p.start();
      } finally {
        await p.stop('SIGKILL', 5000);
      }
      expect(seen, proc.spec.name).toEqual(want);
    }
  });
});
