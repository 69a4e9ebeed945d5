// Issue 24 (code scan), session 10, black-box rows: a JavaScript method rule sees a call on a
// chained receiver (`db.collection('d').find(…)`); a SpEL-shaped `parseExpression(…).getValue()`
// on a parser the snippet does not declare fails closed; a member of a Java process, script or
// deserialization class that no rule classifies fails closed (item 4), while the known-harmless
// members are admitted; PHP's igbinary / msgpack deserializers are blocked like unserialize; and
// the same safe shapes are admitted (a chained query without $where, a constant expression).
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: chained receivers and unclassified families (issue 24, session 10)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'javascript',
      "function q(db, req) {\n  return db.collection('d').find({ $where: 'this.a == ' + req.query.a });\n}\n",
      2,
      'dynamic_code_execution',
      /MongoDB \$where/,
    ],
    [
      'javascript',
      'function w(getScope, req) {\n  getScope().$eval(req.query.e);\n}\n',
      2,
      'dynamic_code_execution',
      /AngularJS/,
    ],
    [
      'java',
      'class A {\n  Object f(String s) {\n    return helper.parseExpression(s).getValue();\n  }\n}\n',
      3,
      'dynamic_code_execution',
      /parser the snippet does not declare/,
    ],
    [
      'java',
      'import java.util.List;\nclass A {\n  void f(List<ProcessBuilder> pbs) throws Exception {\n    ProcessBuilder.startPipeline(pbs);\n  }\n}\n',
      4,
      'shell_execution',
      /cannot classify as safe \(fail closed\): java\.lang\.ProcessBuilder\.startPipeline/,
    ],
    [
      'java',
      'import java.io.*;\nclass A {\n  Object f(InputStream in) throws Exception {\n    return new ObjectInputStream(in).readSomethingNew();\n  }\n}\n',
      4,
      'unsafe_deserialization',
      /cannot classify as safe \(fail closed\)/,
    ],
    [
      'java',
      'import groovy.lang.GroovyShell;\nclass A {\n  void f(String s) {\n    new GroovyShell().parseLater(s);\n  }\n}\n',
      4,
      'dynamic_code_execution',
      /cannot classify as safe \(fail closed\)/,
    ],
    ['php', "<?php\n$o = igbinary_unserialize($_COOKIE['s']);\n", 2, 'unsafe_deserialization', /igbinary/],
    [
      'python',
      'import code\nfrom flask import request\ncode.InteractiveConsole().push(request.args["src"])\n',
      3,
      'dynamic_code_execution',
      /code module/,
    ],
    ['python', 'import runpy\nrunpy.run_path(sys.argv[1])\n', 2, 'dynamic_code_execution', /runpy/],
    [
      'ruby',
      'class C\n  def r\n    o = { mode: :json }\n    o[:mode] = :object\n    Oj.load params[:a], o\n  end\nend\n',
      5,
      'unsafe_deserialization',
      /Oj load in object mode/,
    ],
  ])('%s: the call is VERIFIED unsafe and not admitted (%#)', async (language, code, line, type, description) => {
    const res = await verify({ code, language });
    expectBlockedAt(res, line, type, description);
  });

  it.each([
    [
      'javascript',
      'a chained query without $where',
      "function q(db, req) {\n  return db.collection('d').find({ a: req.query.a });\n}\n",
    ],
    [
      'java',
      'an expression parsed from a constant by an undeclared parser',
      'class A {\n  Object f() {\n    return helper.parseExpression("1 + 1").getValue();\n  }\n}\n',
    ],
    [
      'java',
      'the harmless members of the process and deserialization classes',
      'import java.io.*;\nclass A {\n  int f(InputStream in) throws Exception {\n    int n = Runtime.getRuntime().availableProcessors();\n    return n + new ObjectInputStream(in).readInt();\n  }\n}\n',
    ],
    [
      'ruby',
      'an Oj options hash set to a safe mode before the call',
      'class C\n  def r\n    o = { allow_blank: true }\n    o[:mode] = :json\n    Oj.load params[:a], o\n  end\nend\n',
    ],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: 42, language: 'java' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
