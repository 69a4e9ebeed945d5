// Session 22 (issue 22, set-up hygiene): one environment builder (core/child-env.ts) for every
// process the stack starts that is not the service itself. Temporal, FerretDB, the SMTP sink and
// the Temporal UI gate get the supervisor's environment without SVC_* and MONGODB_URI (plus their
// own variables); the service's processes (API, worker, codec server) still get their settings.
import { readFileSync, rmSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { auxiliaryEnv, isServiceSetting } from '../../core/child-env.js';
import { Stack, testPorts } from '../../infra/stack.js';

const SECRET = 'sk-session22-must-not-reach-aux';
const MONGO_WITH_PASSWORD = 'mongodb://svc:hunter2-s22@db.internal:27017/svc';

const dataDirs: string[] = [];
const stacks: Stack[] = [];
afterEach(() => {
  vi.unstubAllEnvs();
});
afterAll(async () => {
  for (const s of stacks) await s.smtp?.stop();
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

/** A stack built, not started, under a supervisor whose own environment holds a secret (and, if asked, a MONGODB_URI). */
function stackUnder(extra: Record<string, string>, sub: number): Stack {
  vi.stubEnv('SVC_OPENAI_API_KEY', SECRET);
  vi.stubEnv('SVC_S22_CHILD_ENV_MARK', 'service-only');
  for (const [k, v] of Object.entries(extra)) vi.stubEnv(k, v);
  const ports = testPorts(Number(process.env.SVC_TEST_PORT_OFFSET ?? 0) + sub);
  const stack = new Stack({ profile: `test-child-env-s22-${ports.api}`, ports, env: { SVC_RUN_FROM_SOURCE: '1' } });
  dataDirs.push(stack.dataDir);
  stacks.push(stack);
  return stack;
}

const serviceKeys = (env: NodeJS.ProcessEnv | undefined) =>
  Object.keys(env ?? {})
    .filter(isServiceSetting)
    .sort();

describe('auxiliaryEnv', () => {
  it('drops every SVC_* and MONGODB_URI, keeps the rest, adds the process own variables, leaves its input alone', () => {
    const base = {
      PATH: '/bin',
      HOME: '/root',
      SVC_AUDIT_SECRET_KEY: 'x',
      MONGODB_URI: MONGO_WITH_PASSWORD,
      GOGC: '50',
    };
    expect(auxiliaryEnv(base)).toEqual({ PATH: '/bin', HOME: '/root', GOGC: '50' });
    expect(auxiliaryEnv(base, { SVC_TEMPORAL_UI_GATE_PORT: '12000' })).toEqual({
      PATH: '/bin',
      HOME: '/root',
      GOGC: '50',
      SVC_TEMPORAL_UI_GATE_PORT: '12000',
    });
    expect(base.SVC_AUDIT_SECRET_KEY).toBe('x');
  });
});

describe("the stack's auxiliary processes get no service setting or secret", () => {
  it('temporal: no SVC_* and no MONGODB_URI (its Go knobs only)', () => {
    const stack = stackUnder({ MONGODB_URI: MONGO_WITH_PASSWORD }, 32);
    expect(serviceKeys(stack.temporal.spec.env)).toEqual([]);
    expect(stack.temporal.spec.env?.PATH).toBe(process.env.PATH);
  });

  it('ferretdb: no SVC_* (the embedded store runs only without a MONGODB_URI)', () => {
    const stack = stackUnder({}, 33);
    expect(stack.ferret).not.toBeNull();
    expect(serviceKeys(stack.ferret!.spec.env)).toEqual([]);
  });

  it('the SMTP sink: no SVC_* and no MONGODB_URI (it inherited everything until session 22)', () => {
    const stack = stackUnder({ MONGODB_URI: MONGO_WITH_PASSWORD }, 34);
    expect(stack.smtp).not.toBeNull();
    expect(serviceKeys(stack.smtp!.spec.env)).toEqual([]);
    expect(stack.smtp!.spec.env?.HOME).toBe(process.env.HOME);
  });

  it('the Temporal UI gate: its two ports only', () => {
    const stack = stackUnder({ MONGODB_URI: MONGO_WITH_PASSWORD }, 35);
    expect(serviceKeys(stack.uiGate.spec.env)).toEqual(['SVC_TEMPORAL_UI_GATE_PORT', 'SVC_TEMPORAL_UI_UPSTREAM_PORT']);
  });

  it('the service itself (API, worker, codec server) still gets its settings', () => {
    const stack = stackUnder({}, 36);
    for (const p of [stack.api, stack.worker, stack.codec]) {
      expect(p.spec.env?.SVC_S22_CHILD_ENV_MARK, p.spec.name).toBe('service-only');
      expect(p.spec.env?.MONGODB_URI, p.spec.name).toBe(stack.mongodbUri);
    }
  });

  it('the real SMTP sink process, started by its spec, runs without them (/proc/<pid>/environ)', async () => {
    const stack = stackUnder({ MONGODB_URI: MONGO_WITH_PASSWORD }, 37);
    const sink = stack.smtp!;
    sink.spec.readyTimeoutMs = 120_000;
    await sink.start();
    const environ = readFileSync(`/proc/${sink.pid}/environ`, 'utf8').split('\0');
    await sink.stop();
    expect(environ.some((kv) => kv.startsWith('PATH='))).toBe(true);
    expect(environ.filter((kv) => isServiceSetting(kv.split('=')[0]!))).toEqual([]);
    expect(environ.join('\n')).not.toContain(SECRET);
    expect(environ.join('\n')).not.toContain('hunter2-s22');
  }, 150_000);
});
