// Issue 28 item 14: a safety verdict holds only for code that parses in its declared language.
// Any syntax error makes the scan unproven: BLOCKED, no proof, with a constraint id saying so
// and a hint naming the supported languages the code does parse as.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';

describe('POST /verify/code: code that does not parse as its declared language is never admitted', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('JavaScript sent as python (the default) → BLOCKED does_not_parse_as_language, hint javascript', async () => {
    const code = 'const cp = require("child_process");\ncp.exec(process.argv[2]);';
    for (const body of [{ code, language: 'python' }, { code }]) {
      const res = await verify(body);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'BLOCKED',
        admission: 'BLOCKED',
        proof_ref: null,
        is_authoritative: false,
        developer_fields: {
          constraint_id: 'code_verifier.does_not_parse_as_language',
          is_valid: false,
          language: 'python',
          critical_count: 0,
          parses_as: expect.arrayContaining(['javascript', 'typescript']),
        },
      });
      expect(res.body.developer_fields.parses_as[0]).toBe('javascript');
      expect(res.body.developer_fields.issues).toEqual([
        {
          severity: 'medium',
          type: 'parse_error',
          line_number: 1,
          description: expect.stringMatching(/^Syntax error/),
        },
      ]);
      expect(res.body.agent_message).toMatch(
        /^The code does not parse as python: 1 syntax error \(first on line 1\).*"language": "javascript"/,
      );
    }
    // Sent as what it is, the same code is proven unsafe.
    const js = await verify({ code, language: 'javascript' });
    expect(js.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'code_verifier.code_unsafe', is_valid: false, critical_count: 1 },
    });
  });

  it('a single syntax error in otherwise clean python → BLOCKED without a hint (it parses as nothing else)', async () => {
    const res = await verify({ code: 'def ok():\n    return 1\n\ndef broken(:\n    pass\n', language: 'python' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      admission: 'BLOCKED',
      proof_ref: null,
      developer_fields: {
        constraint_id: 'code_verifier.does_not_parse_as_language',
        is_valid: false,
        language: 'python',
        issues: [{ severity: 'medium', type: 'parse_error', line_number: 4, description: 'Syntax error: missing ")"' }],
      },
    });
    expect(res.body.developer_fields.parses_as).toBeUndefined();
  });

  it('a syntax error next to a dangerous call: BLOCKED, the critical line still listed', async () => {
    const res = await verify({ code: 'import os\n\ndef broken(:\n    pass\n\nos.system("id")\n', language: 'python' });
    expect(res.body).toMatchObject({
      status: 'BLOCKED',
      admission: 'BLOCKED',
      developer_fields: { constraint_id: 'code_verifier.does_not_parse_as_language', critical_count: 1 },
    });
    expect(res.body.developer_fields.issues).toContainEqual({
      severity: 'critical',
      type: 'shell_execution',
      line_number: 6,
      description: 'Shell or process execution through os: os.system',
    });
  });

  it('valid code in its own language is still VERIFIED and admitted', async () => {
    const res = await verify({
      code: 'const x = [1, 2, 3].map((n) => n * 2);\nconsole.log(x);\n',
      language: 'javascript',
    });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      developer_fields: { constraint_id: 'code_verifier.code_safe', is_valid: true },
    });
    expect(res.body.developer_fields.parses_as).toBeUndefined();
  });
});
