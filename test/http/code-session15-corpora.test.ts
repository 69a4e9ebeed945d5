// Issue 24 (code scan), session 15, black-box rows for the families the widened independent
// corpora (semgrep-rules' tests, bandit's examples, eslint-plugin-security's rule tests) showed
// missing: an AWS Lambda handler's event read by index as request input; computed text written to
// a started shell's standard input (Go StdinPipe); WordPress's maybe_unserialize; a Ruby VM
// instruction sequence's eval; Rails cookies read with Marshal; and a Python eval of a triple-quoted code string formatted with
// input, reported with the line the input came from. The same shapes with constants are admitted;
// bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: families from the widened corpora (issue 24, session 15)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'javascript',
      'js-lambda-event-index',
      "const vm = require('vm');\nexports.handler = async (event) => {\n  const box = { v: event['q'] };\n  vm.runInNewContext('v + 1', box);\n};",
      4,
      'dynamic_code_execution',
      /request or program input; input from line 3/,
    ],
    [
      'go',
      'go-stdin-write',
      'package main\n\nimport "os/exec"\n\nfunc f(p string) {\n\tcmd := exec.Command("sh")\n\tw, _ := cmd.StdinPipe()\n\tw.Write([]byte(p))\n}\n',
      8,
      'shell_execution',
      /standard input/,
    ],
    [
      'php',
      'php-maybe-unserialize',
      '<?php\n$o = maybe_unserialize($v, ["allowed_classes" => false]);',
      2,
      'unsafe_deserialization',
      /maybe_unserialize/,
    ],
    [
      'ruby',
      'rb-iseq-eval',
      'seq = RubyVM::InstructionSequence.load_from_binary(blob)\nseq.eval',
      2,
      'dynamic_code_execution',
      /instruction sequence compiled, loaded or run/,
    ],
    [
      'ruby',
      'rb-cookies-marshal',
      'Rails.application.configure do\n  config.action_dispatch.cookies_serializer = :hybrid\nend',
      2,
      'unsafe_deserialization',
      /Marshal/,
    ],
    [
      'python',
      'py-triple-quoted-format',
      "def view(request):\n    m = request.GET['m']\n    src = '''\n    show({})\n    '''.format(m)\n    exec(src)",
      6,
      'dynamic_code_execution',
      /input from line 2\b/,
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
      'a DOM event read by index',
      "document.addEventListener('click', (event) => {\n  const t = event['type'];\n  console.log(t);\n});",
    ],
    [
      'javascript',
      'a Lambda handler running constant code in a constant context',
      "const vm = require('vm');\nexports.handler = async (event) => {\n  return vm.runInNewContext('a + 1', { a: 1 });\n};",
    ],
    [
      'go',
      'a two-result call of a constant template',
      'package main\n\nimport "text/template"\n\nfunc f() {\n\tt, err := template.New("x").Parse("{{.}}")\n\t_ = t\n\t_ = err\n}\n',
    ],
    ['php', 'maybe_serialize (the serialising side)', '<?php\n$s = maybe_serialize($data);'],
    ['ruby', 'JSON cookies', 'Rails.application.config.action_dispatch.cookies_serializer = :json'],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: ['maybe_unserialize($x);'], language: 'php' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
