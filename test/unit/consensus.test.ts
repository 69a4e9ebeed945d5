// The pure parts of /verify/consensus: query classification, the statistic rewrite, the
// arithmetic translation (JSON tree and logic DSL), answer agreement, and the aggregate
// deadline with injected engines (no sandbox, no Z3 needed here).
import { describe, expect, it } from 'vitest';
import {
  answersAgree,
  combine,
  engineConfidence,
  numericValue,
  type Answer,
} from '../../activities/consensus/agreement.js';
import { encodeForZ3 } from '../../activities/consensus/arith.js';
import { inProcessConsensusMath, translateArithmetic } from '../../activities/consensus/pure-math.js';
import { classifyQuery, statisticExpression } from '../../activities/consensus/query.js';
import { closedValue, runMathEngine } from '../../activities/consensus/math-engine.js';
import { enginesFor, requiredPercent, runConsensus, toChainEntry } from '../../activities/consensus/run.js';
import type { EngineRun } from '../../activities/consensus/types.js';

const num = (text: string, precision: Answer['precision'] = 'exact'): Answer => ({ kind: 'number', text, precision });
const bool = (text: 'true' | 'false', precision: Answer['precision'] = 'exact'): Answer => ({
  kind: 'boolean',
  text,
  precision,
});

describe('classifyQuery', () => {
  it.each([
    ['2 + 2', '2 + 2'],
    ['(x+1)^2 = x^2 + 2*x + 1', '(x+1)^2 = x^2 + 2*x + 1'],
    ['sqrt(2) * sqrt(2) = 2', 'sqrt(2) * sqrt(2) = 2'],
  ])('%s is arithmetic', (q, expression) => {
    expect(classifyQuery(q)).toEqual({ kind: 'arithmetic', expression, statistic: null });
  });

  it.each([
    'What is 2 + 2?',
    'two plus two equals four',
    'compute the square root of two',
    'x = "abc"',
    'total = price * quantity',
  ])('%s is natural language', (q) => {
    expect(classifyQuery(q).kind).toBe('natural_language');
  });

  it('rewrites statistics of literal lists by definition', () => {
    expect(classifyQuery('mean(1, 2, 3, 4) = 2.5')).toEqual({
      kind: 'arithmetic',
      expression: '(1 + 2 + 3 + 4) / 4 = 2.5',
      statistic: { fn: 'mean', values: ['1', '2', '3', '4'], claimed: '2.5' },
    });
    expect(classifyQuery('median([3, 1, 2, 10])')).toMatchObject({
      expression: '(2 + 3) / 2',
      statistic: { fn: 'median', claimed: null },
    });
    expect(classifyQuery('MEDIAN(5, -1, 3)')).toMatchObject({ expression: '3' });
    expect(classifyQuery('avg(-1.5, 2)')).toMatchObject({ expression: '((-1.5) + 2) / 2' });
    expect(statisticExpression({ fn: 'variance', values: ['1', '2', '4'], claimed: null })).toBe(
      '((1 - (7/3))^2 + (2 - (7/3))^2 + (4 - (7/3))^2) / 2',
    );
    expect(statisticExpression({ fn: 'stdev', values: ['2', '4'], claimed: '1.4' })).toBe(
      'sqrt(((2 - (3/1))^2 + (4 - (3/1))^2) / 1) = 1.4',
    );
  });

  it('refuses a statistic of more than 50 values (use /verify/stats)', () => {
    const q = `mean(${Array.from({ length: 51 }, (_, i) => i).join(', ')})`;
    expect(classifyQuery(q).kind).toBe('natural_language');
  });
});

describe('translateArithmetic and the Z3 encoding', () => {
  it('turns the math parse into a JSON tree', () => {
    expect(translateArithmetic('-(2^3) + x/4 = abs(x) - 0.25')).toEqual({
      ok: true,
      shape: 'equation',
      variables: ['x'],
      sides: [
        {
          op: 'add',
          args: [
            {
              op: 'neg',
              arg: {
                op: 'pow',
                args: [
                  { op: 'num', value: '2' },
                  { op: 'num', value: '3' },
                ],
              },
            },
            {
              op: 'div',
              args: [
                { op: 'var', name: 'x' },
                { op: 'num', value: '4' },
              ],
            },
          ],
        },
        {
          op: 'sub',
          args: [
            { op: 'abs', arg: { op: 'var', name: 'x' } },
            { op: 'num', value: '0.25' },
          ],
        },
      ],
    });
  });

  it('separates refusals (guards) from what the small arithmetic does not cover', () => {
    expect(translateArithmetic('2 = 3 = 4')).toMatchObject({ ok: false, kind: 'refused' });
    expect(translateArithmetic('sin(pi)')).toEqual({
      ok: false,
      kind: 'unsupported',
      message: 'Not supported by this engine: the constant pi.',
    });
    expect(translateArithmetic('log(8, 2)')).toEqual({
      ok: false,
      kind: 'unsupported',
      message: 'Not supported by this engine: the function log().',
    });
  });

  it('encodes an equation as the negated claim over Real variables, with decimal literals', () => {
    const t = translateArithmetic('(x + 1)^2 = x^2 + 2*x + 1');
    if (!t.ok) throw new Error('translation failed');
    expect(encodeForZ3(t)).toEqual({
      ok: true,
      mode: 'negated_claim',
      query: '(VAR x Real) (NOT (EQ (POW (PLUS x 1.0) 2) (PLUS (PLUS (POW x 2) (MULT 2.0 x)) 1.0)))',
    });
  });

  it('encodes a closed expression as a value, and refuses sqrt and non-integer exponents', () => {
    const t = translateArithmetic('1/3 + 2^-2');
    if (!t.ok) throw new Error('translation failed');
    expect(encodeForZ3(t)).toEqual({
      ok: true,
      mode: 'value',
      query:
        '(VAR consensus_value_of_expression Real) (EQ consensus_value_of_expression (PLUS (DIV 1.0 3.0) (DIV 1.0 (POW 2.0 2))))',
    });
    const s = translateArithmetic('sqrt(2)');
    const p = translateArithmetic('2^0.5');
    if (!s.ok || !p.ok) throw new Error('translation failed');
    expect(encodeForZ3(s)).toMatchObject({ ok: false, message: expect.stringContaining('sqrt()') });
    expect(encodeForZ3(p)).toMatchObject({ ok: false, message: expect.stringContaining('integer literals') });
  });
});

describe('the math engine in a consensus', () => {
  it('VERIFIED only for a proven identity, with its proof', () => {
    const r = runMathEngine('2^10 = 1024');
    expect(r).toMatchObject({ engine: 'math', status: 'VERIFIED', method: 'canonical_form', answer: bool('true') });
    expect(r.proof?.engine).toBe('math');
    expect(r.proof?.artifact.method).toBe('canonical_form');
  });

  it('exact and decimal values of closed expressions', () => {
    expect(closedValue('1/3 + 1/6')).toEqual(num('0.5'));
    expect(closedValue('2/3')).toEqual(num('2/3'));
    expect(closedValue('sqrt(2)')?.precision).toBe('decimal');
    expect(closedValue('sqrt(2)')?.text.startsWith('1.41421356237309504880168872420969807856967187537694')).toBe(true);
    expect(runMathEngine('2 + 2 = 5')).toMatchObject({ status: 'UNVERIFIABLE', answer: bool('false') });
    expect(runMathEngine('1/0')).toMatchObject({ status: 'BLOCKED', answer: null });
  });
});

describe('agreement', () => {
  it('compares numbers in decimal arithmetic with a tolerance by precision', () => {
    expect(answersAgree(num('1/3'), num('0.3333333333333333333333333333333333333333333333333', 'decimal'))).toBe(true);
    expect(answersAgree(num('1/3'), num('0.3333333333', 'decimal'))).toBe(false);
    expect(answersAgree(num('0.3'), num('0.30000000000000004', 'float'))).toBe(true);
    expect(answersAgree(num('0.3'), num('0.30000000000000004'))).toBe(false);
    expect(answersAgree(bool('true'), bool('true', 'sampled'))).toBe(true);
    expect(answersAgree(bool('true'), num('1'))).toBe(false);
    expect(numericValue('-7/2')?.toString()).toBe('-3.5');
    expect(numericValue('abc')).toBeNull();
  });

  it('classifies UNANIMOUS, MAJORITY, SPLIT and NONE, and scores confidence over every engine', () => {
    expect(
      combine([
        { answer: bool('true'), confidence: 100 },
        { answer: bool('true', 'sampled'), confidence: 95 },
      ]),
    ).toEqual({
      status: 'UNANIMOUS',
      winners: [0, 1],
      finalAnswer: 'true',
      confidence: 97.5,
    });
    expect(
      combine([
        { answer: num('2'), confidence: 100 },
        { answer: num('2'), confidence: 100 },
        { answer: null, confidence: 0 },
      ]),
    ).toMatchObject({
      status: 'MAJORITY',
      confidence: 66.67,
    });
    expect(
      combine([
        { answer: num('2'), confidence: 100 },
        { answer: num('3'), confidence: 100 },
      ]),
    ).toMatchObject({ status: 'SPLIT', finalAnswer: '2', confidence: 50 });
    expect(combine([{ answer: null, confidence: 0 }])).toEqual({
      status: 'NONE',
      winners: [],
      finalAnswer: '',
      confidence: 0,
    });
    // The exact member's text represents the group.
    expect(
      combine([
        { answer: num('0.5', 'float'), confidence: 95 },
        { answer: num('1/2'), confidence: 100 },
      ]).finalAnswer,
    ).toBe('1/2');
  });

  it('engine confidence by status and precision', () => {
    expect(engineConfidence('VERIFIED', bool('true'))).toBe(100);
    expect(engineConfidence('UNVERIFIABLE', num('1'))).toBe(100);
    expect(engineConfidence('UNVERIFIABLE', num('1.41', 'decimal'))).toBe(99);
    expect(engineConfidence('UNVERIFIABLE', bool('true', 'sampled'))).toBe(95);
    expect(engineConfidence('BLOCKED', null)).toBe(0);
    expect(requiredPercent(0.57)).toBe(57);
    expect(requiredPercent(0.95)).toBe(95);
  });

  it('never lets an advisory engine be VERIFIED in the chain', () => {
    const run: EngineRun = {
      engine: 'python',
      method: 'fractions',
      status: 'VERIFIED',
      answer: bool('true'),
      message: 'x',
      advisory: true,
    };
    expect(toChainEntry({ run, latencyMs: 3 })).toMatchObject({
      status: 'UNVERIFIABLE',
      confidence: 100,
      success: true,
      advisory: true,
    });
  });
});

describe('runConsensus with injected engines', () => {
  const verified = (engine: EngineRun['engine']): EngineRun => ({
    engine,
    method: 'm',
    status: 'VERIFIED',
    answer: bool('true'),
    message: 'ok',
    advisory: false,
  });
  const never = () => new Promise<EngineRun>(() => undefined);

  it('engines per mode', () => {
    expect(enginesFor('single', true)).toEqual(['math']);
    expect(enginesFor('high', false)).toEqual(['math', 'python']);
    expect(enginesFor('maximum', false)).toEqual(['math', 'python', 'z3']);
    expect(enginesFor('maximum', true)).toEqual(['math', 'python', 'z3', 'stats']);
  });

  it('engines that miss the aggregate deadline become BLOCKED entries; the others still count', async () => {
    const started = Date.now();
    const c = await runConsensus('2 + 2 = 4', 'maximum', {
      math: inProcessConsensusMath,
      z3TimeoutMs: 1000,
      deadlineMs: 300,
      engines: { math: () => verified('math'), python: never, z3: never },
    });
    expect(Date.now() - started).toBeLessThan(10_000); // the 300 ms deadline ended the engines that never answer (else: the test's 30 s time-out)
    expect(c.chain.map((e) => [e.engine, e.status, e.method, e.success])).toEqual([
      ['math', 'VERIFIED', 'm', true],
      ['python', 'BLOCKED', 'deadline', false],
      ['z3', 'BLOCKED', 'deadline', false],
    ]);
    expect(c.chain[1]?.result).toBe('The engine did not answer within the 0 s consensus deadline.');
    expect(c).toMatchObject({
      status: 'UNVERIFIABLE',
      agreement: 'SPLIT',
      confidence: 33.33,
      finalAnswer: 'true',
      sandboxFailure: null,
    });
  });

  it('an engine that throws is a BLOCKED entry, never a verdict', async () => {
    const c = await runConsensus('2 + 2 = 4', 'high', {
      math: inProcessConsensusMath,
      z3TimeoutMs: 1000,
      engines: {
        math: () => verified('math'),
        python: async () => {
          throw new TypeError('boom');
        },
      },
    });
    expect(c.chain[1]).toMatchObject({
      engine: 'python',
      status: 'BLOCKED',
      method: 'internal',
      result: 'The engine failed (TypeError).',
    });
    expect(c.status).toBe('UNVERIFIABLE');
  });

  it('VERIFIED only when every engine VERIFIED the same answer', async () => {
    const all = await runConsensus('2 + 2 = 4', 'maximum', {
      math: inProcessConsensusMath,
      z3TimeoutMs: 1000,
      engines: {
        math: () => verified('math'),
        python: async () => ({ ...verified('python') }),
        z3: async () => verified('z3'),
      },
    });
    // The Python engine's VERIFIED is downgraded (advisory), so the consensus is not VERIFIED.
    expect(all.status).toBe('UNVERIFIABLE');
    const single = await runConsensus('2 + 2 = 4', 'single', {
      math: inProcessConsensusMath,
      z3TimeoutMs: 1000,
      engines: { math: () => verified('math') },
    });
    expect(single).toMatchObject({ status: 'VERIFIED', agreement: 'UNANIMOUS', confidence: 100 });
  });

  it('reports a sandbox failure (unavailable wins over capacity)', async () => {
    const failing = (f: 'unavailable' | 'capacity') => async (): Promise<EngineRun> => ({
      engine: 'python',
      method: 'fractions',
      status: 'BLOCKED',
      answer: null,
      message: f,
      advisory: true,
      sandboxFailure: f,
    });
    const cap = await runConsensus('mean(1, 2)', 'maximum', {
      math: inProcessConsensusMath,
      z3TimeoutMs: 1000,
      engines: {
        math: () => verified('math'),
        python: failing('capacity'),
        z3: async () => verified('z3'),
        stats: async () => ({ ...(await failing('unavailable')()), engine: 'stats' }),
      },
    });
    expect(cap.sandboxFailure).toBe('unavailable');
    expect(cap.queryKind).toBe('statistical');
  });

  it('natural language runs no engine', async () => {
    const c = await runConsensus('Is the sky blue?', 'maximum', {
      math: inProcessConsensusMath,
      z3TimeoutMs: 1000,
      engines: { math: () => verified('math') },
    });
    expect(c).toMatchObject({
      queryKind: 'natural_language',
      agreement: 'NONE',
      runs: [],
      status: 'UNVERIFIABLE',
      confidence: 0,
      finalAnswer: '',
    });
    expect(c.chain[0]).toMatchObject({ engine: 'natural_language', success: false });
  });
});
