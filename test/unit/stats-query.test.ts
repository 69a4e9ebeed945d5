// The /verify/stats query language and the mapping of sandbox results (no Docker needed).
import { describe, expect, it } from 'vitest';
import { parseStatsQuery } from '../../engines/stats/query.js';
import { interpret } from '../../activities/stats/run.js';
import { verifyStatsClaim } from '../../activities/stats/verify.js';
import type { SandboxResult } from '../../activities/sandbox/runner.js';

describe('parseStatsQuery', () => {
  it.each([
    ['count', { op: 'count', columns: [], comparator: null, value: null }, 'count'],
    ['count()', { op: 'count', columns: [], comparator: null, value: null }, 'count'],
    ['COUNT(qty) >= 3', { op: 'count', columns: ['qty'], comparator: '>=', value: '3' }, 'count(qty) >= 3'],
    ['mean(price) > 10', { op: 'mean', columns: ['price'], comparator: '>', value: '10' }, 'mean(price) > 10'],
    [
      'avg( price )=-1.5e2',
      { op: 'mean', columns: ['price'], comparator: '==', value: '-1.5e2' },
      'mean(price) == -1.5e2',
    ],
    ['std(x) != .5', { op: 'stdev', columns: ['x'], comparator: '!=', value: '.5' }, 'stdev(x) != .5'],
    ['corr(a, "b c")', { op: 'corr', columns: ['a', 'b c'], comparator: null, value: null }, 'corr(a, "b c")'],
    ['median(`mean`)', { op: 'median', columns: ['mean'], comparator: null, value: null }, 'median("mean")'],
  ])('%s', (query, spec, normalized) => {
    expect(parseStatsQuery(query)).toEqual({ ok: true, spec, normalized });
  });

  it.each([
    ['', 'The query is empty.'],
    [
      'mode(x)',
      'Unsupported query: expected one of count, mean, median, stdev, variance, min, max, sum, corr at position 0.',
    ],
    ['mean(x) > 1 and max(y) < 2', 'Unexpected text at position 12: one comparison per query.'],
    ['mean(x', 'The query ends too early.'],
    ['mean(x) > y', 'Expected a number at position 10.'],
    ['corr(x)', 'Expected "," at position 6.'],
    ['mean("x)', 'Unterminated quoted column name at position 5.'],
    ['mean(x) ~ 3', 'Unexpected character "~" at position 8.'],
  ])('refuses %j', (query, message) => {
    expect(parseStatsQuery(query)).toEqual({ ok: false, kind: 'unsupported', message });
  });

  it.each([
    ['__class__', 'dunder'],
    ['mean(x)\nimport os', 'import'],
    ['exec(x)', 'eval_exec'],
    ['os.system(1)', 'file_or_process'],
    ['lambda: 1', 'lambda'],
    ['mean(x); count', 'statement_separator'],
  ])('refuses code by policy: %j', (query, rule) => {
    expect(parseStatsQuery(query)).toMatchObject({ ok: false, kind: 'security_policy', rule });
  });

  it('does not apply the policy to quoted column names', () => {
    expect(parseStatsQuery('mean("import __x")')).toMatchObject({ ok: true, spec: { columns: ['import __x'] } });
  });
});

const result = (over: Partial<SandboxResult>): SandboxResult => ({
  exitCode: 0,
  stdout: '',
  stderr: '',
  timedOut: false,
  oomKilled: false,
  outputTruncated: false,
  durationMs: 42,
  containerId: 'c',
  ...over,
});

describe('interpret (sandbox result → run)', () => {
  it('maps the program output and the container failures', () => {
    expect(
      interpret(result({ stdout: '{"ok": true, "observed": 2.5, "holds": true, "rows": 4, "used_values": 4}' })),
    ).toEqual({
      kind: 'ok',
      observed: 2.5,
      holds: true,
      rows: 4,
      usedValues: 4,
      durationMs: 42,
    });
    expect(
      interpret(result({ stdout: '{"ok": false, "kind": "validation", "message": "Unknown column \'x\'."}' })),
    ).toEqual({
      kind: 'validation',
      message: "Unknown column 'x'.",
      durationMs: 42,
    });
    expect(interpret(result({ timedOut: true, exitCode: 137 })).kind).toBe('execution');
    expect(interpret(result({ oomKilled: true, exitCode: 137 }))).toMatchObject({
      kind: 'execution',
      message: 'The computation ran out of memory.',
    });
    expect(interpret(result({ exitCode: 3, stderr: 'runtime_unavailable: No module named pandas\n' })).kind).toBe(
      'runtime',
    );
    expect(interpret(result({ exitCode: 1, stderr: 'Traceback' }))).toMatchObject({
      kind: 'execution',
      message: 'The computation failed (exit status 1).',
    });
    expect(interpret(result({ stdout: 'not json' })).kind).toBe('execution');
  });
});

describe('verifyStatsClaim before the sandbox', () => {
  const input = { query: '', columns: ['a', 'b'], datasetSha256: 'f'.repeat(64) };
  const noLoad = async (): Promise<Buffer> => {
    throw new Error('the CSV must not be loaded');
  };

  it('blocks an unknown column without loading the data', async () => {
    const v = await verifyStatsClaim({ ...input, query: 'mean(c)' }, noLoad);
    expect(v.securityPolicy).toBe(false);
    expect(v.diagnostic).toMatchObject({
      status: 'BLOCKED',
      proof_ref: null,
      is_authoritative: false,
      developer_fields: {
        constraint_id: 'stats_verifier.validation_error',
        is_valid: false,
        error: 'unknown_column',
        columns: ['a', 'b'],
        sandbox_type: 'docker',
      },
    });
  });

  it('flags a policy block for the HTTP layer (403)', async () => {
    const v = await verifyStatsClaim({ ...input, query: 'eval(a)' }, noLoad);
    expect(v.securityPolicy).toBe(true);
    expect(v.diagnostic.developer_fields).toMatchObject({
      constraint_id: 'stats_verifier.validation_error',
      security_policy: 'eval_exec',
    });
  });
});
