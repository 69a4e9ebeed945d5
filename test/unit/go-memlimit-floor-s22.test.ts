// Session 22 (issue 22, set-up hygiene): SVC_TEMPORAL_GOMEMLIMIT / SVC_STORE_GOMEMLIMIT below
// 64 MiB stop the stack at start with the knob's own message (infra/go-runtime.ts): a soft
// ceiling below the process's live heap keeps Go's collector running without pause.
import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { goRuntimeEnv, MIN_GOMEMLIMIT_BYTES } from '../../infra/go-runtime.js';
import { Stack, testPorts } from '../../infra/stack.js';

const dataDirs: string[] = [];
afterAll(() => {
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
});

describe('the GOMEMLIMIT floor', () => {
  it('is 64 MiB', () => {
    expect(MIN_GOMEMLIMIT_BYTES).toBe(67_108_864n);
  });

  it('refuses a ceiling below 64 MiB on either process, naming the knob, the floor and the value', () => {
    for (const [proc, knob] of [
      ['temporal', 'SVC_TEMPORAL_GOMEMLIMIT'],
      ['store', 'SVC_STORE_GOMEMLIMIT'],
    ] as const)
      for (const v of ['1', '64', '1B', '4096KiB', '1MiB', '63MiB', '67108863B', '65535KiB'])
        expect(() => goRuntimeEnv(proc, { [knob]: v }, {}), `${knob}=${v}`).toThrow(
          `${knob} must be at least 64MiB (a ceiling below the process's live heap keeps Go's collector running without pause), or off; got ${JSON.stringify(v)}`,
        );
  });

  it('takes 64 MiB and more, in any unit, and off', () => {
    for (const v of ['64MiB', '67108864B', '65536KiB', '67108864', '1GiB', '2GiB', 'off'])
      expect(goRuntimeEnv('store', { SVC_STORE_GOMEMLIMIT: v }, {}).GOMEMLIMIT, v).toBe(v);
  });

  it('a stack with a ceiling below it stops before anything starts', () => {
    const ports = testPorts(Number(process.env.SVC_TEST_PORT_OFFSET ?? 0) + 38);
    const build = (env: Record<string, string>) => {
      const s = new Stack({
        profile: `test-go-floor-s22-${ports.api}`,
        ports,
        env: { SVC_RUN_FROM_SOURCE: '1', ...env },
      });
      dataDirs.push(s.dataDir);
      return s;
    };
    expect(() => build({ SVC_STORE_GOMEMLIMIT: '32MiB' })).toThrow(/^SVC_STORE_GOMEMLIMIT must be at least 64MiB/);
    expect(() => build({ SVC_TEMPORAL_GOMEMLIMIT: '16MiB' })).toThrow(
      /^SVC_TEMPORAL_GOMEMLIMIT must be at least 64MiB/,
    );
    expect(build({ SVC_STORE_GOMEMLIMIT: '64MiB' }).ferret!.spec.env.GOMEMLIMIT).toBe('64MiB');
  });
});
