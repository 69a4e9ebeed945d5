// Issue 24 (code scan), session 12 (the suites' last misses), black-box rows: request input
// reaching a sink through a function parameter (a caller in the same file passes it), sinks a PHP
// docblock declares (Psalm's @psalm-taint-sink / @psalm-flow proxy), and classes, modules and
// methods chosen by request input (Java Class.forName, Python import_module, Ruby
// `tap(&params[:m].to_sym)`); the same shapes with constants admitted; bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe("POST /verify/code: the suites' last misses (issue 24, session 12)", () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'php',
      '<?php\n$foo = $_GET["foo"];\nclass B {\n  public static function test($foo) {\n    forward_static_call($foo, "one");\n  }\n}\nB::test($foo);\n',
      5,
      'dynamic_code_execution',
      /Callback named by request input.*forward_static_call.*input from lines 2, 8$/,
    ],
    [
      'python',
      'from flask import request\ndef run(code):\n    exec(code)\ndef view():\n    run(request.args["c"])\n',
      3,
      'dynamic_code_execution',
      /builtins\.exec; input from line 5$/,
    ],
    [
      'php',
      '<?php\n/**\n * @psalm-taint-sink callable $in\n */\nfunction sink(string $in): void {}\n/**\n * @psalm-flow proxy sink($r)\n */\nfunction stub(string $r): string {}\n$r = $_GET["u"];\nstub($r);\n',
      11,
      'dynamic_code_execution',
      /Callback named by request input/,
    ],
    [
      'php',
      '<?php\n/** @psalm-taint-sink shell $cmd */\nfunction sh(string $cmd): void {}\nsh($_POST["c"]);\n',
      4,
      'shell_execution',
      /Shell or process execution/,
    ],
    [
      'java',
      'import javax.servlet.http.*;\nclass A {\n  void f(HttpServletRequest req) throws Exception {\n    Object o = Class.forName(req.getParameter("c")).getDeclaredConstructor().newInstance();\n  }\n}\n',
      4,
      'dynamic_code_execution',
      /Class chosen by request input/,
    ],
    [
      'python',
      'import importlib\nfrom flask import request\nmod = importlib.import_module(request.args["m"])\n',
      3,
      'dynamic_code_execution',
      /Module chosen by request input/,
    ],
    [
      'ruby',
      'class C < ApplicationController\n  def show\n    Kernel.tap(&params[:m].to_sym)\n  end\nend\n',
      3,
      'dynamic_code_execution',
      /Method chosen by request input through a block argument/,
    ],
  ])('%s: the flow is VERIFIED unsafe and not admitted (%#)', async (language, code, line, type, description) => {
    const res = await verify({ code, language });
    expectBlockedAt(res, line, type, description);
  });

  it.each([
    [
      'php',
      'a method forwarding its parameter, called with a constant',
      '<?php\nclass B {\n  public static function test($foo) {\n    forward_static_call($foo, "one");\n  }\n}\nB::test("strtoupper");\n',
    ],
    [
      'php',
      'a declared callable sink given a constant',
      '<?php\n/** @psalm-taint-sink callable $in */\nfunction sink(string $in): void {}\nsink("strlen");\n',
    ],
    [
      'java',
      'Class.forName of a constant',
      'class A {\n  Object f() throws Exception {\n    return Class.forName("java.util.ArrayList").getDeclaredConstructor().newInstance();\n  }\n}\n',
    ],
    ['python', 'import_module of a constant', 'import importlib\nmod = importlib.import_module("json")\n'],
    ['ruby', 'a constant symbol block', 'class C\n  def names\n    User.all.map(&:name)\n  end\nend\n'],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: 42, language: 'php' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
