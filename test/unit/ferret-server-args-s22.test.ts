// Session 22 (issue 22, docs/store-access.md §15): FerretDB's command line comes from one function
// (infra/stack.ts ferretServerArgs). Its debug listener (pprof) stays off in every dev and test
// stack; a benchmark may open it on a loopback port (bench/data-scale.ts --store-pprof), and
// nothing else about the launch changes with it.
import { describe, expect, it } from 'vitest';
import { ferretServerArgs, testPorts } from '../../infra/stack.js';

const ports = testPorts(500);

describe('ferretServerArgs', () => {
  it('keeps the debug listener off by default, with the stack port, store folder and pragmas', () => {
    const args = ferretServerArgs(ports, '/data/p', 'normal');
    expect(args).toContain('--debug-addr=-');
    expect(args.filter((a) => a.startsWith('--debug-addr'))).toHaveLength(1);
    expect(args).toContain(`--listen-addr=127.0.0.1:${ports.ferret}`);
    expect(args).toContain('--handler=sqlite');
    expect(args).toContain('--telemetry=disable');
    expect(args).toContain('--state-dir=/data/p/ferretdb-state');
    const url = args.find((a) => a.startsWith('--sqlite-url=')) as string;
    expect(url.startsWith('--sqlite-url=file:/data/p/ferretdb/?')).toBe(true);
    expect(url).toContain('synchronous(normal)');
    expect(ferretServerArgs(ports, '/data/p', 'full').find((a) => a.startsWith('--sqlite-url='))).toContain(
      'synchronous(full)',
    );
  });

  it('opens pprof on the loopback port a benchmark asks for, and changes nothing else', () => {
    const off = ferretServerArgs(ports, '/data/p', 'normal');
    const on = ferretServerArgs(ports, '/data/p', 'normal', 31234);
    expect(on).toContain('--debug-addr=127.0.0.1:31234');
    expect(on).not.toContain('--debug-addr=-');
    expect(on.filter((a) => !a.startsWith('--debug-addr'))).toEqual(off.filter((a) => !a.startsWith('--debug-addr')));
  });

  it.each([0, -1, 70000, 1.5, Number.NaN])('refuses a debug port of %s', (port) => {
    expect(() => ferretServerArgs(ports, '/data/p', 'normal', port)).toThrow(/debug port/);
  });
});
