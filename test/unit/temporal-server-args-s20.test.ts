// Session 20 (issue 22): the Temporal dev server's command line comes from one function
// (infra/stack.ts temporalServerArgs), and SVC_TEMPORAL_EXTRA_ARGS appends flags to it: how
// bench/temporal-growth.ts runs a stack with a candidate `--sqlite-pragma` or dynamic-config value.
import { describe, expect, it } from 'vitest';
import { temporalServerArgs, testPorts } from '../../infra/stack.js';

const ports = testPorts(400);

/** The value following each occurrence of `flag`. */
const values = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

describe('temporalServerArgs', () => {
  it('starts the dev server on the stack ports with its file, WAL and synchronous=normal', () => {
    const args = temporalServerArgs(ports, '/data/temporal.sqlite');
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(values(args, '--port')).toEqual([String(ports.temporal)]);
    expect(values(args, '--ui-port')).toEqual([String(ports.temporalUiUpstream)]);
    expect(values(args, '--db-filename')).toEqual(['/data/temporal.sqlite']);
    expect(values(args, '--sqlite-pragma')).toEqual(['journal_mode=wal', 'synchronous=normal']);
    expect(values(args, '--search-attribute')).toEqual([
      'SvcOrgId=Keyword',
      'SvcEngine=Keyword',
      'SvcItemCount=Int',
      'SvcBatchStatus=Keyword',
    ]);
    expect(args.at(-1)).toBe(`http://127.0.0.1:${ports.codec}`);
  });

  it('appends the extra flags in order, split on white space', () => {
    const base = temporalServerArgs(ports, '/d/t.sqlite');
    const args = temporalServerArgs(
      ports,
      '/d/t.sqlite',
      '  --sqlite-pragma  cache_size=-65536\n--dynamic-config-value history.cacheMaxSize=4096 ',
    );
    expect(args.slice(0, base.length)).toEqual(base);
    expect(args.slice(base.length)).toEqual([
      '--sqlite-pragma',
      'cache_size=-65536',
      '--dynamic-config-value',
      'history.cacheMaxSize=4096',
    ]);
  });

  it('adds nothing for an empty or blank value', () => {
    const base = temporalServerArgs(ports, '/d/t.sqlite');
    expect(temporalServerArgs(ports, '/d/t.sqlite', '')).toEqual(base);
    expect(temporalServerArgs(ports, '/d/t.sqlite', '  \t ')).toEqual(base);
  });

  it('refuses any other flag, a pragma the stack sets for crash safety, or a flag without its value (session 20 review)', () => {
    for (const extra of [
      '--ip 0.0.0.0',
      '--db-filename /tmp/other.sqlite',
      '--ui-codec-endpoint http://elsewhere',
      '--sqlite-pragma synchronous=off',
      '--sqlite-pragma JOURNAL_MODE=memory',
      '--sqlite-pragma',
      '--dynamic-config-value',
      '--sqlite-pragma cache_size=-65536 --headless',
      'cache_size=-65536',
    ])
      expect(() => temporalServerArgs(ports, '/d/t.sqlite', extra), extra).toThrow(
        /^SVC_TEMPORAL_EXTRA_ARGS takes only /,
      );
  });
});
