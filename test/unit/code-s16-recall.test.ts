// Issue 24, session 16 (recall misses and labelled files not blocked): an AngularJS service reached
// through an alias, and the orderBy filter's expression argument; Deno's `cmd:` named with its own
// line when it sits below the call; a Ruby YAML stream parsed from computed text, and a node tree's
// `transform` (Psych's alias of to_ruby); Python's eval / exec imported by name from another
// module; a vm2 sandbox holding a parameter of the enclosing function; a Python annotation written
// from a value that may be a string (typing.get_type_hints evaluates it); toFastProperties given
// computed code; thenify given a function whose name the snippet does not show (thenify before
// 3.3.1 evaluates the name as code). Each row has evasion variants and the safe shapes beside it. Written on our own
// snippets, never a suite's text.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';

const scan = async (code: string, language: string) => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string; is_valid?: boolean };
  // A row that does not parse would pass every "no finding" check: each row must parse.
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return fields;
};
const critical = async (code: string, language: string): Promise<Issue[]> =>
  ((await scan(code, language)).issues ?? []).filter((i) => i.severity === 'critical');

const NG = (params: string, body: string) =>
  `angular.module('app').controller('Ctl', function(${params}) {\n${body}\n});`;

describe('issue 24, session 16: recall misses', () => {
  it.each([
    ['js-angular-compile-alias', 'javascript', NG('$compile', '  var c = $compile;\n  c(location.hash);'), 3],
    [
      'EVADE js-angular-parse-alias-chain',
      'javascript',
      NG('$scope, $parse', '  var p = $parse;\n  var q = p;\n  q(window.name)($scope);'),
      4,
    ],
    [
      'js-angular-filter-orderby',
      'javascript',
      NG('$filter', "  var rows = [];\n  $filter('orderBy')(rows, location.hash);"),
      3,
    ],
    [
      'EVADE js-angular-orderby-injected',
      'javascript',
      NG('orderByFilter', '  orderByFilter([], document.cookie);'),
      2,
    ],
    ['rb-yaml-parse-stream-computed', 'ruby', 'def show\n  YAML.parse_stream(params[:doc])\nend', 2],
    ['EVADE rb-psych-parse-stream-block', 'ruby', 'Psych.parse_stream(request.body.read) do |d|\n  d.to_ruby\nend', 1],
    ['EVADE rb-yaml-parse-no-parens', 'ruby', 'def show\n  YAML.parse_stream Upload.find(1).body\nend', 2],
    ['rb-yaml-node-transform', 'ruby', 'doc = YAML.parse(params[:y]).transform', 1],
    ['py-eval-imported-by-name', 'python', 'from helpers import eval\nimport sys\neval(sys.argv[1])', 3],
    ['EVADE py-exec-imported-as', 'python', 'from compat.builtins import exec as run\nrun(input())', 2],
    [
      'EVADE py-eval-imported-in-function',
      'python',
      'def f(code):\n    from six.moves.builtins import eval\n    return eval(code)',
      3,
    ],
    [
      'js-vm2-sandbox-parameter',
      'javascript',
      "const { VM } = require('vm2');\nfunction run(user) {\n  const box = { u: user };\n  return new VM({ sandbox: box }).run('1 + 1');\n}",
      4,
    ],
    [
      'EVADE js-nodevm-sandbox-inline',
      'javascript',
      "const { NodeVM } = require('vm2');\nfunction run(data) {\n  const vm = new NodeVM({ timeout: 100, sandbox: { data } });\n  return vm.run('module.exports = 1');\n}",
      3,
    ],
    [
      'EVADE js-vm2-sandbox-two-hops',
      'javascript',
      "const vm2 = require('vm2');\nconst run = (opts) => {\n  const inner = { o: opts };\n  const box = {\n    setTimeout,\n    inner,\n  };\n  return new vm2.VM({ sandbox: box }).run('1');\n};",
      8,
    ],
    ['py-annotation-from-parameter', 'python', "def f(v):\n    Model.__annotations__['x'] = v", 2],
    ['EVADE py-annotations-whole-dict', 'python', "def f(v):\n    Model.__annotations__ = {'x': v}", 2],
    ['EVADE py-annotation-constant-code', 'python', "Model.__annotations__['x'] = \"__import__('os').getcwd()\"", 1],
    ['EVADE py-annotation-fstring', 'python', "def f(v):\n    Model.__annotations__['x'] = f'List[{v}]'", 2],
    ['EVADE py-annotations-update', 'python', "def f(v):\n    Model.__annotations__.update({'x': v})", 2],
    ['EVADE py-annotations-setdefault', 'python', "def f(v):\n    Model.__annotations__.setdefault('x', v)", 2],
    [
      'js-to-fast-properties',
      'javascript',
      "const util = require('bluebird/js/release/util');\nfunction f(o) {\n  util.toFastProperties(o);\n}",
      3,
    ],
    ['EVADE js-to-fast-properties-bare', 'javascript', 'toFastProperties(process.argv[2]);', 1],
    [
      'js-thenify-parameter',
      'javascript',
      "const thenify = require('thenify');\nfunction wrap(fn) {\n  return thenify(fn);\n}",
      3,
    ],
    [
      'EVADE js-thenify-with-callback-result',
      'javascript',
      "const thenify = require('thenify');\nthenify.withCallback(pick());",
      2,
    ],
    [
      'EVADE js-thenify-parameter-shadows-declaration',
      'javascript',
      "const thenify = require('thenify');\nfunction load(cb) {}\nfunction wrap(load) {\n  return thenify(load);\n}",
      4,
    ],
    [
      'EVADE js-thenify-parameter-member',
      'javascript',
      "const thenify = require('thenify');\nconst wrap = (api) => thenify(api.call);",
      2,
    ],
    [
      'EVADE js-thenify-declaration-reassigned',
      'javascript',
      "const thenify = require('thenify');\nfunction f(cb) {}\nf = pick();\nthenify(f);",
      4,
    ],
  ])('%s (%s) is critical at its line', async (_name, language, code, line) => {
    const found = await critical(code, language);
    expect(
      found.some((i) => i.line_number === line),
      JSON.stringify(found),
    ).toBe(true);
  });

  // A finding at a call written over several lines names the line of the command it runs (the
  // label of a multi-line call may sit on the `cmd:` line).
  it.each([
    ['deno-run-cmd-below', 'const p = Deno.run({\n  stdout: "piped",\n  cmd: [bin, "-v"],\n});', 1, /; cmd on line 3$/],
    ['EVADE deno-run-cmd-shorthand-below', 'const p = Deno.run({\n  cwd: "/tmp",\n  cmd,\n});', 1, /; cmd on line 3$/],
    ['deno-run-one-line', 'Deno.run({ cmd: ["ls"] });', 1, /Deno\.run$/],
  ])('%s: the process finding names the cmd line', async (_name, code, line, description) => {
    const found = await critical(code, 'javascript');
    const at = found.find((i) => i.line_number === line && i.type === 'shell_execution');
    expect(at?.description, JSON.stringify(found)).toMatch(description);
  });

  it.each([
    ['js-angular-compile-constant', 'javascript', NG('$compile', "  $compile('<b>hello</b>');")],
    ['js-angular-orderby-constant', 'javascript', NG('$filter', "  $filter('orderBy')(rows, 'name');")],
    [
      'js-angular-orderby-function',
      'javascript',
      NG('$filter', "  $filter('orderBy')(rows, function (r) { return r.n; });"),
    ],
    ['js-angular-other-filter', 'javascript', NG('$filter', "  $filter('limitTo')(rows, location.hash);")],
    ['rb-yaml-parse-stream-constant', 'ruby', 'YAML.parse_stream("a: 1\\n---\\nb: 2")'],
    ['py-evaluate-imported', 'python', 'from helpers import evaluate\nimport sys\nevaluate(sys.argv[1])'],
    ['py-re-compile-imported', 'python', 'from re import compile\nimport sys\ncompile(sys.argv[1])'],
    ['py-eval-imported-constant', 'python', 'from helpers import eval\neval("1 + 2")'],
    [
      'js-vm2-module-in-sandbox',
      'javascript',
      "const { VM } = require('vm2');\nconst fs = require('fs');\nfunction run() {\n  return new VM({ sandbox: { fs } }).run('1');\n}",
    ],
    [
      'js-vm2-timeout-parameter',
      'javascript',
      "const { VM } = require('vm2');\nfunction run(ms) {\n  return new VM({ timeout: ms, sandbox: {} }).run('1');\n}",
    ],
    ['py-annotation-builtin', 'python', "def f(v):\n    Model.__annotations__['x'] = int"],
    ['py-annotation-typing', 'python', "from typing import Optional\nModel.__annotations__['x'] = Optional[str]"],
    ['py-annotation-name-string', 'python', "Model.__annotations__['x'] = 'List[int]'"],
    ['py-annotations-update-builtin', 'python', "Model.__annotations__.update({'x': int}, y=str)"],
    ['py-annotation-read', 'python', "def f(v):\n    t = Model.__annotations__['x']\n    return t"],
    ['js-to-fast-properties-constant', 'javascript', "util.toFastProperties('fixed text');"],
    [
      'js-thenify-module-member',
      'javascript',
      "const thenify = require('thenify');\nconst fs = require('fs');\nthenify(fs.readFile);",
    ],
    [
      'js-thenify-inline-multiargs',
      'javascript',
      "const thenify = require('thenify');\nthenify(function (cb) { cb(null, 1, 2); }, { multiArgs: ['a', 'b'] });",
    ],
    ['js-thenify-declared', 'javascript', "const thenify = require('thenify');\nfunction read(cb) {}\nthenify(read);"],
    [
      'js-thenify-const-arrow',
      'javascript',
      "const thenify = require('thenify');\nconst read = (cb) => cb();\nthenify(read);",
    ],
  ])('%s (%s) has no critical finding', async (_name, language, code) => {
    expect(await critical(code, language)).toEqual([]);
  });
});
