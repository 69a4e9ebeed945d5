// Unit rows of issue 28 item 3: how an agent's query is split into parts (every fenced block,
// every claim) and how the parts' engine results become one verdict (docs/agents.md).
import { describe, expect, it } from 'vitest';
import {
  MAX_LISTED_PARTS,
  MAX_QUERY_PARTS,
  NO_ENGINE_REASON,
  UNCLOSED_FENCE_REASON,
  UNREAD_REST_REASON,
  routeQuery,
  splitQuery,
} from '../../engines/agents/route-query.js';
import { decideVerify } from '../../engines/agents/decide.js';
import type { VerifyGuardResult } from '../../core/agent-workflow.js';

const shape = (q: string) => splitQuery(q).map((p) => [p.index, p.route?.engine ?? null, p.text]);

describe('splitQuery: every block and claim is a part', () => {
  const rows: Array<[string, string, Array<[number, string | null, string]>]> = [
    [
      'two fences',
      '```python\nprint(1)\n```\n```python\nimport os\nos.system("rm -rf /")\n```',
      [
        [1, 'code', 'print(1)'],
        [2, 'code', 'import os\nos.system("rm -rf /")'],
      ],
    ],
    [
      'fence then prose',
      '```math\n1+1=2\n```\n...The refund of $25,000 is approved.',
      [
        [1, 'math', '1+1=2'],
        [2, null, '...The refund of $25,000 is approved'],
      ],
    ],
    [
      'equation, sentence end, prose',
      '1+1=2. The refund of $25,000 is approved.',
      [
        [1, 'math', '1+1=2'],
        [2, null, 'The refund of $25,000 is approved'],
      ],
    ],
    [
      'one equation per line',
      '2 + 2 = 4\n3 * 3 = 9',
      [
        [1, 'math', '2 + 2 = 4'],
        [2, 'math', '3 * 3 = 9'],
      ],
    ],
    ['decimals are not sentence ends', '1.5 + 2.5 = 4', [[1, 'math', '1.5 + 2.5 = 4']]],
    [
      'prose, SQL on its own line',
      'Run this:\nSELECT name FROM users',
      [
        [1, null, 'Run this:'],
        [2, 'sql', 'SELECT name FROM users'],
      ],
    ],
    [
      'SQL reads the whole text, trailing prose included',
      'SELECT 1 FROM t\nand approve the refund',
      [[1, 'sql', 'SELECT 1 FROM t\nand approve the refund']],
    ],
    ['code reads the whole text', 'import os\nprint(os.getcwd())', [[1, 'code', 'import os\nprint(os.getcwd())']]],
    ['multi-line DSL stays one part', '(AND (GT x 5)\n (LT x 7))', [[1, 'logic', '(AND (GT x 5)\n (LT x 7))']]],
    ['prose alone', 'Please summarise the meeting notes.', [[1, null, 'Please summarise the meeting notes']]],
    ['whitespace only', '  \n ', []],
  ];
  for (const [name, q, want] of rows) it(name, () => expect(shape(q)).toEqual(want));

  it('an unclosed fence is a part no engine checks', () => {
    const p = splitQuery('1 + 1 = 2\n```python\nimport os\nos.system("x")');
    expect(p.map((x) => [x.route?.engine ?? null, x.reason])).toEqual([
      ['math', null],
      [null, UNCLOSED_FENCE_REASON],
    ]);
    expect(splitQuery('```python no newline')).toEqual([
      { index: 1, text: '```python no newline', route: null, reason: UNCLOSED_FENCE_REASON },
    ]);
  });

  it(`routes at most ${MAX_QUERY_PARTS} parts; the rest is unverified`, () => {
    const p = splitQuery(Array.from({ length: MAX_QUERY_PARTS + 3 }, (_, i) => `${i} + 1 = ${i + 1}`).join('\n'));
    expect(p.filter((x) => x.route)).toHaveLength(MAX_QUERY_PARTS);
    expect(p.slice(MAX_QUERY_PARTS).map((x) => x.reason)).toEqual(
      Array(3).fill(expect.stringMatching(/at most 16 parts/)),
    );
    expect(splitQuery('hello there').map((x) => x.reason)).toEqual([NO_ENGINE_REASON]);
  });

  it(`lists at most ${MAX_LISTED_PARTS} parts, the rest as one unverified part, and clips long texts`, () => {
    const p = splitQuery(Array.from({ length: 5000 }, (_, i) => `claim ${i}.`).join(' '));
    expect(p).toHaveLength(MAX_LISTED_PARTS);
    expect(p[MAX_LISTED_PARTS - 1]).toMatchObject({ index: MAX_LISTED_PARTS, route: null, reason: UNREAD_REST_REASON });
    expect(p[MAX_LISTED_PARTS - 1]?.text.length).toBe(2001);
    const big = splitQuery(`\`\`\`python\n${'x = 1\n'.repeat(1000)}\`\`\``)[0];
    expect(big?.text).toHaveLength(2001);
    expect((big?.route?.input as { code: string }).code).toHaveLength(6000);
  });

  it('routeQuery routes only a query that is exactly one checkable part', () => {
    expect(routeQuery('```js\nconst a = 1\n```')).toEqual({
      engine: 'code',
      input: { code: 'const a = 1\n', language: 'javascript' },
    });
    expect(routeQuery('```python\nprint(1)\n```\n```python\nimport os\n```')).toBeNull();
    expect(routeQuery('```math\n1+1=2\n```\nThe refund is approved')).toBeNull();
  });
});

describe('decideVerify: VERIFIED only when every part is', () => {
  const ctx = { agent_id: 'agt_1', conversation_id: 'c', step_number: 1 };
  const ref = (c: string) => `sha256:${c.repeat(64)}`;
  const guard = (q: string): VerifyGuardResult => ({
    kind: 'verify',
    outcome: 'clean',
    findings: [],
    tool_name: null,
    pinned_hash: null,
    presented_hash: null,
    tool_pin: 'not_run',
    tool_poisoning: 'not_run',
    parts: splitQuery(q).map((p) => ({
      index: p.index,
      text: p.text,
      route: p.route ? { engine: p.route.engine, input: p.route.input as Record<string, unknown> } : null,
      reason: p.reason,
    })),
    claim: q,
    request_digest: 'd',
  });
  const mathOk = (c: string) => ({ status: 'VERIFIED', proof_ref: ref(c), attestation: { id: `att_${c}` } });
  const codeSafe = { status: 'VERIFIED', proof_ref: ref('c'), admission: 'ADMIT' };
  const codeUnsafe = { status: 'VERIFIED', proof_ref: ref('d'), admission: 'BLOCKED' };
  const body = (d: ReturnType<typeof decideVerify>) => d.body as { status: string; verification: Record<string, any> };

  it('all parts VERIFIED and admitted: VERIFIED, ADMIT, the first proof_ref and attestation', () => {
    const d = decideVerify(guard('2 + 2 = 4\n3 * 3 = 9'), [mathOk('a'), mathOk('b')], ctx);
    expect(d).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      proof_ref: ref('a'),
      attestation_id: 'att_a',
      engine: 'math',
    });
    expect(body(d).verification).toMatchObject({
      verified_claim: '2 + 2 = 4\n3 * 3 = 9',
      unverified: [],
      unverified_count: 0,
      engine_status: null,
      result: null,
    });
  });

  it('a safe block and an unsafe block: not admitted', () => {
    const d = decideVerify(guard('```python\nprint(1)\n```\n```python\nimport os\n```'), [codeSafe, codeUnsafe], ctx);
    expect(d).toMatchObject({ status: 'VERIFIED', admission: 'BLOCKED' });
    expect(body(d).verification.parts.map((p: any) => p.admission)).toEqual(['ADMIT', 'BLOCKED']);
  });

  it('a verified claim and an unchecked one: UNVERIFIABLE, BLOCKED, verified_claim without the unchecked text', () => {
    const d = decideVerify(guard('1+1=2. The refund of $25,000 is approved.'), [mathOk('a'), null], ctx);
    expect(d).toMatchObject({ status: 'UNVERIFIABLE', admission: 'BLOCKED', proof_ref: null, attestation_id: null });
    expect(body(d).verification.verified_claim).toBe('1+1=2');
    expect(body(d).verification.unverified).toEqual([
      { index: 2, text: 'The refund of $25,000 is approved', reason: NO_ENGINE_REASON },
    ]);
  });

  const matrix: Array<[string, unknown[], string, string]> = [
    ['one part unverifiable', [mathOk('a'), { status: 'UNVERIFIABLE', proof_ref: null }], 'UNVERIFIABLE', 'BLOCKED'],
    ['one part blocked by its engine', [mathOk('a'), { status: 'BLOCKED' }], 'BLOCKED', 'BLOCKED'],
    [
      'a VERIFIED without a well-formed proof_ref',
      [mathOk('a'), { status: 'VERIFIED', proof_ref: 'sha256:zz' }],
      'UNVERIFIABLE',
      'BLOCKED',
    ],
    ['an engine that gave nothing', [mathOk('a'), null], 'UNVERIFIABLE', 'BLOCKED'],
    [
      'an unknown admission value',
      [mathOk('a'), { status: 'VERIFIED', proof_ref: ref('e'), admission: 'MAYBE' }],
      'VERIFIED',
      'BLOCKED',
    ],
  ];
  for (const [name, results, status, admission] of matrix) {
    it(name, () =>
      expect(decideVerify(guard('2 + 2 = 4\n3 * 3 = 9'), results, ctx)).toMatchObject({ status, admission }),
    );
  }

  it('a code scan that hit a syntax error is not VERIFIED (it did not read all of its text)', () => {
    const scanned = {
      status: 'VERIFIED',
      proof_ref: ref('c'),
      admission: 'ADMIT',
      developer_fields: { issues: [{ type: 'parse_error', severity: 'medium', line_number: 3, description: 'x' }] },
    };
    const d = decideVerify(guard('import os\nprint(1)\nThe refund of $25,000 is approved.'), [scanned], ctx);
    expect(d).toMatchObject({ status: 'UNVERIFIABLE', admission: 'BLOCKED', proof_ref: null });
    expect(body(d).verification.verified_claim).toBe('');
  });

  it('nothing routed: UNVERIFIABLE, engine null, guards-only method', () => {
    const d = decideVerify(guard('Please do it.'), [null], ctx);
    expect(d).toMatchObject({
      status: 'UNVERIFIABLE',
      admission: 'BLOCKED',
      engine: null,
      summary: 'guards only: no engine matched',
    });
    expect(body(d).verification.method).toMatch(/only the exfiltration and tool-definition guards ran/);
  });

  it('mixed engines are named as such', () => {
    const d = decideVerify(
      guard('2 + 2 = 4\nSELECT 1 FROM t'),
      [mathOk('a'), { status: 'VERIFIED', proof_ref: ref('f'), admission: 'ADMIT' }],
      ctx,
    );
    expect(d).toMatchObject({ status: 'VERIFIED', admission: 'ADMIT', engine: 'mixed' });
    expect(body(d).verification.method).toMatch(/math, sql/);
  });
});
