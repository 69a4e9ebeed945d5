// Issue 24 (code scan), session 16, black-box rows for the recall misses the independent suites
// still showed: an AngularJS service reached through an alias and the orderBy filter's expression;
// Deno's `cmd:` named with its own line below the call; a Ruby YAML stream parsed from computed
// text; Python's eval imported by name from another module; a vm2 sandbox holding a parameter of
// the enclosing function; a Python annotation written from a parameter (typing.get_type_hints
// evaluates string annotations); toFastProperties given computed code; thenify given a function
// whose name the snippet does not show. The same shapes with
// constants are admitted; bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: recall misses of the independent suites (issue 24, session 16)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'javascript',
      'js-angular-compile-alias',
      "angular.module('app').controller('Ctl', function($compile) {\n  var c = $compile;\n  c(location.hash);\n});",
      3,
      'dynamic_code_execution',
      /AngularJS expression evaluated from a computed string: \$compile/,
    ],
    [
      'javascript',
      'js-angular-orderby',
      "angular.module('app').controller('Ctl', function($filter) {\n  $filter('orderBy')([], location.hash);\n});",
      2,
      'dynamic_code_execution',
      /orderBy filter given an expression built at run time/,
    ],
    [
      'javascript',
      'deno-run-cmd-below',
      'const p = Deno.run({\n  stdout: "piped",\n  cmd: [bin, "-v"],\n});',
      1,
      'shell_execution',
      /Deno\.run; cmd on line 3$/,
    ],
    [
      'ruby',
      'rb-yaml-parse-stream',
      'def show\n  YAML.parse_stream(params[:doc])\nend',
      2,
      'unsafe_deserialization',
      /YAML stream parsed from computed text/,
    ],
    [
      'python',
      'py-eval-imported-by-name',
      'from helpers import eval\nimport sys\neval(sys.argv[1])',
      3,
      'dynamic_code_execution',
      /builtins\.eval/,
    ],
    [
      'javascript',
      'js-vm2-sandbox-parameter',
      "const { VM } = require('vm2');\nfunction run(user) {\n  const box = { u: user };\n  return new VM({ sandbox: box }).run('1 + 1');\n}",
      4,
      'dynamic_code_execution',
      /vm2 sandbox given a parameter of the enclosing function.*the sandbox carries the parameter `user`/,
    ],
    [
      'python',
      'py-annotation-from-parameter',
      "def f(v):\n    Model.__annotations__['x'] = v\n    return typing.get_type_hints(Model)",
      2,
      'dynamic_code_execution',
      /typing\.get_type_hints evaluates string annotations/,
    ],
    [
      'javascript',
      'js-to-fast-properties',
      'function f(o) {\n  util.toFastProperties(o);\n}',
      2,
      'dynamic_code_execution',
      /toFastProperties given a value built at run time/,
    ],
    [
      'javascript',
      'js-thenify-parameter',
      "const thenify = require('thenify');\nfunction wrap(fn) {\n  return thenify(fn);\n}",
      3,
      'dynamic_code_execution',
      /thenify given a function whose name is evaluated as code/,
    ],
  ] as Array<[string, string, string, number, string, RegExp]>)(
    '%s: %s is VERIFIED unsafe and not admitted',
    async (language, _name, code, line, type, description) => {
      const res = await verify({ code, language });
      expectBlockedAt(res, line, type, description);
    },
  );

  it.each([
    [
      'javascript',
      'a constant AngularJS template',
      "angular.module('app').controller('Ctl', function($compile) {\n  $compile('<b>hello</b>');\n});",
    ],
    [
      'javascript',
      'orderBy with a constant expression',
      "angular.module('app').controller('Ctl', function($filter) {\n  $filter('orderBy')([], 'name');\n});",
    ],
    ['ruby', 'a constant YAML stream', 'YAML.parse_stream("a: 1\\n---\\nb: 2")'],
    ['python', 'an imported eval of constant text', 'from helpers import eval\neval("1 + 2")'],
    [
      'javascript',
      'a vm2 sandbox of modules only',
      "const { VM } = require('vm2');\nconst fs = require('fs');\nfunction run() {\n  return new VM({ sandbox: { fs } }).run('1');\n}",
    ],
    ['python', 'an annotation set to a builtin type', "def f(v):\n    Model.__annotations__['x'] = int"],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: 42, language: 'python', unknown_key: 1 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
