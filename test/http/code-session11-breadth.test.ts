// Issue 24 (code scan), session 11 (breadth), black-box rows: the families the new independent
// suites and session 10's leftovers showed (a page from browser.pages() given computed code,
// jQuery globalEval, YAML.parse_documents), item 4 in Ruby and Bash (an unknown YAML / Psych
// member, an interpreter given computed code), and the safe shapes RuboCop's specs accept
// (Kernel#open of a path with a constant first character, a Marshal deep copy, an interpolated
// number) admitted; PHP functions, classes and callbacks chosen by request input (Psalm's taint
// tests) blocked; a Go *exec.Cmd parameter run (item 4).
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: breadth families and unclassified calls (issue 24, session 11)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'javascript',
      "async function f(browser, req) {\n  const [p] = await browser.pages();\n  await p.evaluate('x = ' + req.query.t);\n}\n",
      3,
      'dynamic_code_execution',
      /Headless-browser page \(from pages\(\)\)/,
    ],
    [
      'javascript',
      'function f(req) {\n  $.globalEval(req.query.code);\n}\n',
      2,
      'dynamic_code_execution',
      /jQuery globalEval/,
    ],
    [
      'ruby',
      'def f\n  YAML.parse_documents(params[:y]) { |d| d.to_ruby }\nend\n',
      2,
      'unsafe_deserialization',
      /cannot classify as safe \(fail closed\): YAML\.parse_documents/,
    ],
    [
      'ruby',
      'def f\n  Psych.frobnicate(params[:y])\nend\n',
      2,
      'unsafe_deserialization',
      /cannot classify as safe \(fail closed\): Psych\.frobnicate/,
    ],
    ['ruby', 'def f\n  open "#{params[:f]}.txt"\nend\n', 2, 'shell_execution', /computed path/],
    ['bash', '#!/bin/bash\nsudo -u app bash -c "$1"\n', 2, 'dynamic_code_execution', /interpreter given code/],
    [
      'ruby',
      'class C\n  def show\n    params[:klass].constantize.new(params[:arg])\n  end\nend\n',
      3,
      'dynamic_code_execution',
      /through constantize/,
    ],
    [
      'javascript',
      'function f(req) {\n  return [].constructor.constructor(req.body.code)();\n}\n',
      2,
      'dynamic_code_execution',
      /Function constructor reached through \.constructor\.constructor/,
    ],
    ['bash', 'python3 -c "$CODE"\n', 1, 'dynamic_code_execution', /interpreter given code/],
    [
      'php',
      "<?php\n$a = $_GET['a'];\nnew $a($_GET['b']);\n",
      3,
      'dynamic_code_execution',
      /Function or class chosen by request input/,
    ],
    [
      'php',
      "<?php\n$foo = $_GET['foo'];\nregister_shutdown_function($foo);\n",
      3,
      'dynamic_code_execution',
      /Callback named by request input/,
    ],
    ['php', '<?php\n$array = $_GET;\nextract($array);\n', 3, 'dynamic_code_execution', /extract\(\) of request data/],
    [
      'go',
      'package main\n\nimport "os/exec"\n\nfunc run(c *exec.Cmd) ([]byte, error) {\n\treturn c.CombinedOutput()\n}\n',
      6,
      'shell_execution',
      /cannot classify as safe \(fail closed\): os\/exec\.Cmd#CombinedOutput/,
    ],
  ])('%s: the call is VERIFIED unsafe and not admitted (%#)', async (language, code, line, type, description) => {
    const res = await verify({ code, language });
    expectBlockedAt(res, line, type, description);
  });

  it.each([
    ['ruby', 'a Kernel#open path whose first character is constant', 'def f\n  open "uploads/#{params[:f]}"\nend\n'],
    ['ruby', 'a Marshal deep copy', 'def f(x)\n  Marshal.load(Marshal.dump(x))\nend\n'],
    ['ruby', 'eval of a string interpolating a number', 'eval "something#{2}"\n'],
    // Session 16: a stream parsed from computed text fails closed (its documents reach to_ruby through
    // a block or its children); a single parsed tree is still admitted.
    ['ruby', 'a YAML node tree', 'def f\n  YAML.parse(params[:y])\nend\n'],
    ['php', 'a callback given as a parameter', '<?php\nfunction f($cb, $arr) {\n  return array_map($cb, $arr);\n}\n'],
    ['bash', 'an interpreter given constant code', '#!/bin/bash\nbash -c \'echo hi\'\nsh -e ./run.sh "$1"\n'],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: ['bash -c "$1"'], language: 'bash' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
