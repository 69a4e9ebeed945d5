import { beforeAll, describe, expect, it } from 'vitest';
import { db, newTenant, post, type Member } from './helpers.js';

const DDL =
  'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT, password_hash TEXT); CREATE TABLE orders (id INTEGER, user_id INTEGER, total REAL);';

describe('POST /verify/sql', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/sql', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('admits a valid query: VERIFIED, sql_valid, ADMIT, with a retained proof', async () => {
    const res = await verify({
      query: 'SELECT u.name, SUM(o.total) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name',
      schema_ddl: DDL,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      is_authoritative: true,
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      developer_fields: {
        constraint_id: 'sql_verifier.sql_valid',
        is_valid: true,
        malicious_classification: false,
        executable_comments_expanded: false,
      },
    });
    expect(await (await db()).collection('proofs').countDocuments({ _id: res.body.proof_ref })).toBe(1);
  });

  it('proves malice: VERIFIED, is_valid false, admission BLOCKED', async () => {
    const res = await verify({ query: "SELECT name FROM users WHERE name = '' OR 1=1", schema_ddl: DDL });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.malicious', is_valid: false, malicious_classification: true },
    });
  });

  it('expands MySQL executable comments', async () => {
    const res = await verify({
      query: 'SELECT name FROM users /*!50000 UNION SELECT password_hash FROM users */',
      schema_ddl: DDL,
      dialect: 'mysql',
    });
    expect(res.body.developer_fields).toMatchObject({
      executable_comments_expanded: true,
      malicious_classification: true,
    });
    expect(res.body.admission).toBe('BLOCKED');
  });

  it('reports an undeclared table as a schema violation', async () => {
    const res = await verify({ query: 'SELECT * FROM secrets', schema_ddl: DDL });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'sql_verifier.schema_violation', is_valid: false },
    });
  });

  it.each([
    ['a parse error', { query: 'SELEC name FROM', schema_ddl: DDL }, 'sql_verifier.parse_error'],
    ['an unreadable schema', { query: 'SELECT 1', schema_ddl: 'CREATE TABLE (' }, 'sql_verifier.schema_parse_error'],
    [
      'a cross product of three tables',
      {
        query: 'SELECT 1 FROM users u, orders o, users u2 CROSS JOIN orders o2 WHERE o.user_id = u.id AND u2.id > 0',
        schema_ddl: DDL,
      },
      'sql_verifier.complexity_limit_exceeded',
    ],
    [
      'an execution error',
      { query: 'SELECT nosuchfunc(name) FROM users', schema_ddl: DDL },
      'sql_verifier.execution_error',
    ],
  ])('blocks %s without a proof', async (_label, body, constraint) => {
    const res = await verify(body);
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      admission: 'BLOCKED',
      proof_ref: null,
      is_authoritative: false,
      developer_fields: { constraint_id: constraint },
    });
  });

  it.each([
    [{ schema_ddl: DDL }, /query/],
    [{ query: 'SELECT 1' }, /schema_ddl/],
    [{ query: 'SELECT 1', schema_ddl: DDL, dialect: 'klingon' }, /dialect/],
  ])('rejects %j with 400', async (body, detail) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });
});

describe('POST /verify/process', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/process', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('verifies a complete IRAC trace', async () => {
    const res = await verify({
      trace:
        'The issue is whether the contract binds. The rule is Article 5. In this case the offer was accepted. Therefore it binds.',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ verified: true, score: 1, missing_steps: [] });
    expect(res.body.mechanism).toBeDefined();
  });

  it('reports missing steps (word-bounded cues)', async () => {
    const res = await verify({ trace: 'The tissue sample shows the bylaw. Therefore nothing.' });
    expect(res.body).toMatchObject({ verified: false, score: 0.25, missing_steps: ['issue', 'rule', 'application'] });
  });

  it('checks milestones', async () => {
    const res = await verify({
      trace: 'Collected data. Trained model.',
      mode: 'milestones',
      milestones: ['collected data', 'trained model', 'deployed'],
    });
    expect(res.body).toEqual({ verified: false, process_rate: 2 / 3, missed_milestones: ['deployed'] });
  });

  it.each([
    [{ trace: 'x', mode: 'poem' }, /mode/],
    [{ trace: 'x', mode: 'milestones' }, /milestones/],
    [{ mode: 'irac' }, /trace/],
  ])('rejects %j with 400', async (body, detail) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });
});

describe('POST /verify/rag', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/rag', body, { 'x-api-key': t.key });
  const chunks = (ids: string[]) => ids.map((d, i) => ({ id: `c${i}`, metadata: { document_id: d } }));
  beforeAll(async () => {
    t = await newTenant();
  });

  it('verifies when every chunk comes from the target document', async () => {
    const res = await verify({ target_document_id: 'doc-1', chunks: chunks(['doc-1', 'doc-1']) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ verified: true, risk: null, drm_rate: 0, chunks_checked: 2, mismatched_count: 0 });
  });

  it('compares the mismatch rate as an exact fraction', async () => {
    const ok = await verify({
      target_document_id: 'd',
      chunks: chunks(['d', 'd', 'd', 'd', 'd', 'd', 'd', 'd', 'd', 'x']),
      max_drm_rate: '1/10',
    });
    expect(ok.body).toMatchObject({ verified: true, drm_rate: 0.1, mismatched_count: 1 });
    const over = await verify({
      target_document_id: 'd',
      chunks: chunks(['d', 'd', 'x']),
      max_drm_rate: '0.3333333333333333',
    });
    expect(over.body).toMatchObject({
      verified: false,
      risk: 'DOCUMENT_RETRIEVAL_MISMATCH',
      chunks_checked: 3,
      mismatched_count: 1,
    });
  });

  it.each([
    [{ target_document_id: '', chunks: chunks(['a']) }, /target_document_id/],
    [{ target_document_id: 'a', chunks: [] }, /chunks/],
    [{ target_document_id: 'a', chunks: [{ id: 'c', metadata: {} }] }, /document_id/],
    [{ target_document_id: 'a', chunks: chunks(['a']), max_drm_rate: 0.1 }, /max_drm_rate/],
    [{ target_document_id: 'a', chunks: chunks(['a']), max_drm_rate: '2' }, /max_drm_rate/],
  ])('rejects %j with 400', async (body, detail) => {
    const res = await verify(body);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(detail);
  });
});
