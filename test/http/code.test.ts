import { beforeAll, describe, expect, it } from 'vitest';
import { db, http, newTenant, post, type Member } from './helpers.js';

describe('POST /verify/code', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('admits safe code: VERIFIED, code_safe, ADMIT, retained proof', async () => {
    const res = await verify({
      code: 'import re\npattern = re.compile(r"a+")\nprint(pattern.match("aa"))\n',
      language: 'python',
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      is_authoritative: true,
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      developer_fields: {
        constraint_id: 'code_verifier.code_safe',
        is_safe: true,
        is_valid: true,
        language: 'python',
        critical_count: 0,
        issues: [],
      },
    });
    const proof = await (await db()).collection('proofs').findOne({ _id: res.body.proof_ref });
    expect(proof?.artifact).toMatchObject({ language: 'python', parser: { name: 'web-tree-sitter' } });
  });

  it('proves aliased shell execution unsafe: VERIFIED with admission BLOCKED', async () => {
    const res = await verify({ code: 'from os import system as s\ns("rm -rf /")\n', language: 'py' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'code_verifier.code_unsafe', is_valid: false, critical_count: 1 },
    });
    expect(res.body.developer_fields.issues[0]).toMatchObject({ severity: 'critical', line_number: 2 });
  });

  it('defaults to python and follows Node child_process aliases', async () => {
    const py = await verify({ code: 'import subprocess as sp\nsp.run(["ls"])' });
    expect(py.body.developer_fields).toMatchObject({ language: 'python', is_valid: false });
    const js = await verify({
      code: "const { exec: run } = require('child_process');\nrun('ls');",
      language: 'javascript',
    });
    expect(js.body).toMatchObject({
      admission: 'BLOCKED',
      developer_fields: { is_valid: false, language: 'javascript' },
    });
  });

  it.each([
    ['empty code', { code: '   ' }, 'code_verifier.empty_code'],
    ['an unsupported language', { code: 'print 1', language: 'cobol' }, 'code_verifier.unsupported_language'],
  ])('blocks %s without a proof', async (_label, body, constraint) => {
    const res = await verify(body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      admission: 'BLOCKED',
      proof_ref: null,
      is_authoritative: false,
      developer_fields: { constraint_id: constraint },
    });
    expect(res.body.agent_message.length).toBeGreaterThan(10);
  });

  it('rejects a non-string code with 400', async () => {
    const res = await verify({ code: 42 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });

  it('scans a body just under the 1,000,000-byte cap and rejects one over it', async () => {
    const line = 'x = 1\n'; // 7 bytes once JSON-escaped
    const code = line.repeat(Math.floor(999_900 / 7) - 10);
    expect(Buffer.byteLength(JSON.stringify({ code, language: 'python' }))).toBeLessThanOrEqual(1_000_000);
    const ok = await verify({ code, language: 'python' });
    expect([200, 503]).toContain(ok.status);
    if (ok.status === 200) expect(ok.body.status).not.toBe('BLOCKED');
    else
      expect(ok.body).toEqual({
        detail: 'Code verification timed out.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    const big = await http('POST', '/verify/code', {
      rawBody: JSON.stringify({ code: line.repeat(170_000) }),
      headers: { 'content-type': 'application/json', 'x-api-key': t.key },
    });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({
      detail: 'Request body exceeds the 1000000 byte limit for this endpoint.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });
});
