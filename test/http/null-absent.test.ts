// Issue 23, black-box rows of "null is absent" through the whole stack (the full walk over every
// optional field of the contract table runs in process: test/inproc/null-absent.test.ts): the
// two calls of the issue and one optional field per verification route, each sent with JSON
// null and without the key, get the same status and the same verdict; a required field that is
// null still gets its 400 naming the field.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post } from './helpers.js';

let key = '';
beforeAll(async () => {
  key = (await newTenant()).key;
});

const DIAGNOSTIC = {
  status: 'UNVERIFIABLE',
  agent_message: 'not proven',
  developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
  proof_ref: null,
};

/** What must be equal: the status and the verdict fields (ids, timings and attestations differ per request). */
const verdict = (status: number, b: any) => ({
  status,
  fields: Object.fromEntries(
    [
      'status',
      'verdict',
      'admission',
      'is_valid',
      'verified',
      'final_answer',
      'meets_requirement',
      'verification_mode',
      'min_confidence',
      'detail',
    ]
      .filter((k) => b && k in b)
      .map((k) => [k, b[k]]),
  ),
  developer: b?.developer_fields?.constraint_id,
  document: b?.spec_version
    ? { verdict: b.verdict, proof: b.context?.proof, admission: b.context?.decision?.admission }
    : undefined,
  items: b?.items?.map((i: any) => [i.status, i.result?.status]),
});

const ROWS: Array<[string, string, Record<string, unknown>, string[]]> = [
  ['the headline call: provider null', '/verify/natural_language', { query: 'What is 15% of 240?' }, ['provider']],
  [
    'from-diagnostic: verifier_version and attestation_token null',
    '/verification-context/from-diagnostic',
    { diagnostic: DIAGNOSTIC, query: 'SELECT 1', verifier: 'sql' },
    ['verifier_version', 'attestation_token'],
  ],
  [
    'fact: provider null',
    '/verify/fact',
    { claim: 'Paris is the capital of France.', context: 'Paris is the capital of France.' },
    ['provider'],
  ],
  ['code: language null', '/verify/code', { code: 'print(1)' }, ['language']],
  [
    'sql: dialect null',
    '/verify/sql',
    { query: 'SELECT a FROM t', schema_ddl: 'CREATE TABLE t (a INTEGER)' },
    ['dialect'],
  ],
  [
    'consensus: verification_mode and min_confidence null',
    '/verify/consensus',
    { query: '2 + 2 = 4' },
    ['verification_mode', 'min_confidence'],
  ],
  [
    'process: mode and milestones null',
    '/verify/process',
    { trace: 'Issue: x. Rule: y. Application: z. Conclusion: w.' },
    ['mode', 'milestones'],
  ],
  [
    'rag: max_drm_rate null',
    '/verify/rag',
    { target_document_id: 'd', chunks: [{ id: 'c', metadata: { document_id: 'd' } }] },
    ['max_drm_rate'],
  ],
  [
    'math: context, tolerance and precision_mode null',
    '/verify/math',
    { expression: '2 + 2 = 4' },
    ['context', 'tolerance', 'precision_mode'],
  ],
  ['logic: provider null', '/verify/logic', { query: '(AND (GT x 5) (LT x 10))' }, ['provider']],
];

describe('null is absent, through the stack', () => {
  it.each(ROWS)('%s', async (_label, path, body, nulls) => {
    const headers = { 'x-api-key': key };
    const absent = await post(path, body, headers);
    const withNull = await post(path, { ...body, ...Object.fromEntries(nulls.map((f) => [f, null])) }, headers);
    expect(absent.status, absent.text).toBe(200);
    expect(verdict(withNull.status, withNull.body)).toEqual(verdict(absent.status, absent.body));
  });

  it('a batch item with type and params null is the natural-language item without them', async () => {
    const headers = { 'x-api-key': key };
    const absent = await post(
      '/verify/batch',
      {
        items: [
          { query: '2 + 2 = 4', type: 'math' },
          { query: 'SELECT 1', type: 'sql', params: { schema_ddl: 'CREATE TABLE t (a INT)' } },
        ],
      },
      headers,
    );
    const withNull = await post(
      '/verify/batch',
      {
        items: [
          { query: '2 + 2 = 4', type: 'math', params: null },
          { query: 'SELECT 1', type: 'sql', params: { schema_ddl: 'CREATE TABLE t (a INT)', dialect: null } },
        ],
      },
      headers,
    );
    expect([200, 202]).toContain(absent.status);
    expect(withNull.status).toBe(absent.status);
    expect(withNull.body.total_items).toBe(2);
  });

  it.each([
    ['/verify/natural_language', { query: null, provider: null }, "Invalid field 'query': query is required"],
    ['/verify/fact', { claim: null, context: 'c', provider: null }, "Invalid field 'claim': claim is required"],
  ])('%s: a required field that is null is a 400 naming it', async (path, body, detail) => {
    const res = await post(path, body, { 'x-api-key': key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
  });

  it('from-diagnostic: a null verifier (required) is a 400 naming it', async () => {
    const res = await post(
      '/verification-context/from-diagnostic',
      { diagnostic: DIAGNOSTIC, query: 'SELECT 1', verifier: null, verifier_version: null },
      { 'x-api-key': key },
    );
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("Invalid field '$.verifier': is required (non-empty string)");
  });
});
