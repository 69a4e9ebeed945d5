// Issue 24, session 12 (the suites' last misses): simple inter-procedural flow within a file (a
// parameter that reaches a sink makes its function a sink for callers passing input), sinks a
// docblock declares (`@psalm-taint-sink`, `@psalm-flow proxy`), and the families left alone
// until now. Each row has the dangerous shapes and the safe ones beside them.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';

const critical = async (code: string, language: string): Promise<Issue[]> => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string };
  // A row that does not parse would pass every "no finding" check: each row must parse.
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return (fields.issues ?? []).filter((i) => i.severity === 'critical');
};
const lines = async (code: string, language: string) => (await critical(code, language)).map((i) => i.line_number);
const php = (...l: string[]) => ['<?php', ...l].join('\n');

describe('issue 24, session 12: input reaching a sink through a function parameter (same file)', () => {
  it('a static method forwarding its parameter to forward_static_call is a sink for a caller passing request input', async () => {
    const src = php(
      '$foo = $_GET["foo"];',
      'class B {',
      '  public static function test($foo) {',
      '    forward_static_call($foo, "one");',
      '  }',
      '}',
      'B::test($foo);',
    );
    expect(await lines(src, 'php')).toEqual([5]);
    // The finding names the input line and the call through which it arrives.
    const [f] = await critical(src, 'php');
    expect(f.description).toMatch(/input from lines 2, 8$/);
  });
  it('the same method called only with constants is admitted', async () => {
    const src = php(
      'class B {',
      '  public static function test($foo) {',
      '    forward_static_call($foo, "one");',
      '  }',
      '}',
      'B::test("strtoupper");',
    );
    expect(await lines(src, 'php')).toEqual([]);
  });
  it('follows several functions deep, by argument position, and through a method call on any receiver', async () => {
    const chain = php(
      'function a1($cb) {',
      '  call_user_func($cb);',
      '}',
      'function a2($x) {',
      '  a1($x);',
      '}',
      'function a3($y) {',
      '  a2($y);',
      '}',
      'a3($_POST["f"]);',
    );
    expect(await lines(chain, 'php')).toEqual([3]);
    const position = php(
      'function run($a, $cb) {',
      '  array_map($cb, $a);',
      '}',
      'run($_GET["y"], "intval");', // input only in the data argument
    );
    expect(await lines(position, 'php')).toEqual([]);
    expect(await lines(`${position}\nrun([1], $_GET["x"]);`, 'php')).toEqual([3]);
    const method = php(
      'class H {',
      '  function handle($name) {',
      '    register_tick_function($name);',
      '  }',
      '}',
      '$h = new H();',
      '$h->handle($_REQUEST["n"]);',
    );
    expect(await lines(method, 'php')).toEqual([4]);
  });
  it('evasions: recursion, a caller reading input through a local, many callers', async () => {
    const recursive = php(
      'function r($cb, $n) {',
      '  if ($n > 0) { r($cb, $n - 1); }',
      '  call_user_func($cb);',
      '}',
      '$c = $_COOKIE["c"];',
      'r($c, 3);',
    );
    expect(await lines(recursive, 'php')).toEqual([4]);
    const many = php(
      'function f($cb) {',
      '  call_user_func($cb);',
      '}',
      ...Array.from({ length: 20 }, () => 'f("trim");'),
      'f($_GET["x"]);',
    );
    expect(await lines(many, 'php')).toEqual([3]);
  });
  it('evasions: named arguments, a spread, a parameter list over several lines', async () => {
    const f = php('function f($a, $cb) {', '  call_user_func($cb);', '}');
    expect(await lines(`${f}\nf(cb: $_GET["x"], a: 1);`, 'php')).toEqual([3]);
    expect(await lines(`${f}\n$args = [1, $_GET["x"]];\nf(...$args);`, 'php')).toEqual([3]);
    expect(await lines(`${f}\nf($_GET["x"], "trim");`, 'php')).toEqual([]);
    const multi = php('function f(', '  $a,', '  $cb', ') {', '  call_user_func($cb);', '}', 'f(1, $_GET["x"]);');
    expect(await lines(multi, 'php')).toEqual([6]);
    const py = [
      'import importlib',
      'from flask import request',
      'def load(',
      '    base,',
      '    name,',
      '):',
      '    return importlib.import_module(name)',
      'load("x", name=request.args["m"])',
    ].join('\n');
    expect(await lines(py, 'python')).toEqual([7]);
  });
  it('Python: a function parameter fed by request input at a call in the same file reaches exec', async () => {
    const src = [
      'from flask import request',
      'def run(code):',
      '    exec(code)',
      'def view():',
      '    run(request.args["c"])',
    ].join('\n');
    expect(await lines(src, 'python')).toContain(3);
    // The flow names the caller's line, below the sink.
    const [f] = await critical(src, 'python');
    expect(f.description).toMatch(/input from line 5$/);
  });
});

describe('issue 24, session 12: sinks a PHP docblock declares (Psalm annotations)', () => {
  it('@psalm-taint-sink callable and @psalm-flow proxy: a call passing request input is a call of the declared sink', async () => {
    const src = php(
      '/**',
      ' * @psalm-taint-sink callable $in',
      ' */',
      'function dummy_sink(string $in): void {}',
      '/**',
      ' * @psalm-flow proxy dummy_sink($r)',
      ' */',
      'function stub(string $r): string {}',
      '$r = $_GET["u"];',
      'stub($r);',
    );
    expect(await lines(src, 'php')).toEqual([11]);
  });
  it('shell, eval and unserialize sinks map to their families; a constant argument is admitted', async () => {
    const decl = (kind: string) => php('/**', ` * @psalm-taint-sink ${kind} $x`, ' */', 'function s($x) {}');
    expect((await critical(`${decl('shell')}\ns($_GET["c"]);`, 'php')).map((i) => i.type)).toEqual(['shell_execution']);
    expect((await critical(`${decl('eval')}\ns($_GET["c"]);`, 'php')).map((i) => i.type)).toEqual([
      'dynamic_code_execution',
    ]);
    expect((await critical(`${decl('unserialize')}\ns($_GET["c"]);`, 'php')).map((i) => i.type)).toEqual([
      'unsafe_deserialization',
    ]);
    expect(await lines(`${decl('callable')}\ns("strlen");`, 'php')).toEqual([]);
    // A kind outside the scanner's families (html) is not modelled; a sink on another parameter neither.
    expect(await lines(`${decl('html')}\ns($_GET["c"]);`, 'php')).toEqual([]);
    const other = php('/**', ' * @psalm-taint-sink callable $b', ' */', 'function t($a, $b) {}', 't($_GET["c"], "x");');
    expect(await lines(other, 'php')).toEqual([]);
  });
  it('evasions: a proxy cycle ends; a docblock separated from the function by code does not apply', async () => {
    const cycle = php(
      '/** @psalm-flow proxy b($x) */',
      'function a($x) {}',
      '/** @psalm-flow proxy a($y) */',
      'function b($y) {}',
      'a($_GET["z"]);',
    );
    expect(await lines(cycle, 'php')).toEqual([]);
    const detached = php(
      '/** @psalm-taint-sink callable $x */',
      '$unrelated = 1;',
      'function d($x) {}',
      'd($_GET["c"]);',
    );
    expect(await lines(detached, 'php')).toEqual([]);
  });
});

describe('issue 24, session 12: unsafe reflection chosen by request input (the families left alone until now)', () => {
  const java = (body: string) =>
    [
      'import javax.servlet.http.*;',
      'class A {',
      '  void f(HttpServletRequest req) throws Exception {',
      '    String s = req.getParameter("c");',
      `    ${body}`,
      '  }',
      '}',
    ].join('\n');
  it('Java: Class.forName / loadClass of request input is critical; a constant or a configured name is admitted', async () => {
    for (const body of [
      'Object o = Class.forName(s).newInstance();',
      'Object o = Class.forName(s).getDeclaredConstructor().newInstance();',
      'Class<?> c = java.lang.Class.forName(req.getParameter("k"), true, null);',
      'Class<?> c = Thread.currentThread().getContextClassLoader().loadClass(s);',
      'Class<?> c = getClass().getClassLoader().loadClass("p." + s);',
    ])
      expect(await lines(java(body), 'java'), body).toEqual([5]);
    for (const body of [
      'Object o = Class.forName("java.util.ArrayList").getDeclaredConstructor().newInstance();',
      'String n = System.getProperty("drv"); Class.forName(n);',
    ])
      expect(await lines(java(body), 'java'), body).toEqual([]);
  });
  it('Python: importlib.import_module / __import__ of request input is critical; a computed name without input stays high', async () => {
    const req = 'from flask import request\n';
    expect(
      await lines(`${req}import importlib\nm = request.args.get("m")\nmod = importlib.import_module(m)\n`, 'python'),
    ).toEqual([4]);
    expect(
      await lines(
        `${req}from importlib import import_module as im\nmod = im("plugins." + request.form["p"])\n`,
        'python',
      ),
    ).toEqual([3]);
    expect(await lines(`${req}mod = __import__(request.args["m"])\n`, 'python')).toEqual([2]);
    const local = 'import importlib\ndef load(n):\n    return importlib.import_module("plugins." + n)\n';
    expect(await lines(local, 'python')).toEqual([]);
    const all = (await scanCode(local, 'python')).developerFields as { issues?: Issue[] };
    expect(all.issues?.map((i) => `${i.severity} ${i.type}`)).toEqual(['high dynamic_import']);
    expect(await lines('import importlib\nimportlib.import_module("json")\n', 'python')).toEqual([]);
  });
  it('Ruby: a block argument made from request input (Kernel.tap(&params[:m].to_sym)) is critical; constant symbols are admitted', async () => {
    const c = (body: string) => `class C < ApplicationController\n  def show\n    ${body}\n  end\nend\n`;
    for (const body of [
      'Kernel.tap(&params[:m].to_sym)',
      'tap(&params[:m].intern)',
      'Kernel.tap(&:"#{params[:m]}")',
      'm = params[:m]\n    [1].each(&m.to_sym)',
      's = params[:m].to_s.to_sym\n    Kernel.tap(&s)',
      'User.public_send(params[:m])',
    ])
      expect((await lines(c(body), 'ruby')).length, body).toBe(1);
    for (const body of [
      'User.all.map(&:name)',
      'User.all.map(&"name".to_sym)',
      'Kernel.tap(&:"na#{1}me")',
      'blk = :upcase\n    names.map(&blk)',
      'def each_name(&blk)\n    names.each(&blk)\n    end',
      'User.public_send(:find, params[:id])',
    ])
      expect(((await scanCode(c(body), 'ruby')).developerFields as { is_valid?: boolean }).is_valid, body).toBe(true);
  });
});
