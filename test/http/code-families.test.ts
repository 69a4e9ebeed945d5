// Issue 24 (code scan), black-box rows: families missed on held-out code are blocked; a sink fed
// by request input read on an earlier line reports both lines; a call into a known execution or
// deserialization family that the scanner cannot classify fails closed.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt } from './code-verdicts.js';

describe('POST /verify/code: issue 24 families, flows and unclassified calls', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'python',
      'import asyncio\nasync def f(cmd):\n    await asyncio.subprocess.create_subprocess_exec(cmd)\n',
      3,
      'shell_execution',
    ],
    ['python', 'import dill\nobj = dill.loads(blob)\n', 2, 'unsafe_deserialization'],
    ['ruby', 'data = Oj.load(params[:json])\n', 1, 'unsafe_deserialization'],
    [
      'java',
      'class A {\n  void f(String cmd) throws Exception {\n    ProcessBuilder pb = new ProcessBuilder();\n    pb.command("sh", "-c", cmd);\n  }\n}\n',
      4,
      'shell_execution',
    ],
    ['php', '<?php\nextract($_POST);\n', 2, 'dynamic_code_execution'],
  ])('%s: the missed family is proven unsafe and not admitted (%#)', async (language, code, line, type) => {
    const res = await verify({ code, language });
    expectBlockedAt(res, line, type);
  });

  it('a sink fed by request input three lines earlier names both lines', async () => {
    const code =
      'from flask import request\n\ndef view():\n    code = request.POST.get("code")\n    x = 1\n    y = 2\n    eval(code)\n';
    const res = await verify({ code, language: 'python' });
    expect(res.body).toMatchObject({ status: 'VERIFIED', admission: 'BLOCKED' });
    expect(res.body.developer_fields.issues).toEqual([
      {
        severity: 'critical',
        type: 'dynamic_code_execution',
        line_number: 7,
        description: 'Dynamic code execution: builtins.eval; input from line 4',
      },
    ]);
  });

  it('an unclassified call into a deserialization family fails closed; its safe members are admitted', async () => {
    const res = await verify({ code: 'import pickle\nx = pickle.some_future_loader(blob)\n', language: 'python' });
    expect(res.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'BLOCKED',
      developer_fields: { is_valid: false, critical_count: 1 },
    });
    expect(res.body.developer_fields.issues[0]).toEqual({
      severity: 'critical',
      type: 'unsafe_deserialization',
      line_number: 2,
      description:
        'Call into a process, code-execution or deserialization family that the scanner cannot classify as safe (fail closed): pickle.some_future_loader',
    });
    const safe = await verify({ code: 'import pickle\ns = pickle.dumps({"a": 1})\n', language: 'python' });
    expect(safe.body).toMatchObject({
      status: 'VERIFIED',
      admission: 'ADMIT',
      developer_fields: { constraint_id: 'code_verifier.code_safe' },
    });
  });
});
