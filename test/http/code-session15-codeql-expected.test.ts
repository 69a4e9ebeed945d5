// Issue 24 (code scan), session 15, black-box rows: the family CodeQL's `.expected`-based query
// tests revealed (a sink in library code fed by a value built from the function's own parameters:
// the finding names the line that builds it), and the shapes those tests bring (Kernel/IO reads of
// a request path, Oj in object mode, marshal, a ProcessBuilder list, a stored command). The same
// shapes with constants are admitted; bad input is refused. Our own snippets, never a suite's text.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: CodeQL .expected families (issue 24, session 15)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'ruby',
      'rb-splat-of-list-built-from-parameter',
      'class G\n  def go(remote)\n    list = ["clone", remote]\n    Open3.capture3("git", *list)\n  end\nend',
      4,
      'shell_execution',
      3,
    ],
    [
      'ruby',
      'EVADE rb-helper-without-parentheses',
      'class G\n  def go(remote)\n    list = ["clone", remote]\n    run_it list\n  end\nend\ndef run_it(list)\n  system("git", *list)\nend',
      8,
      'shell_execution',
      3,
    ],
    [
      'python',
      'py-command-built-from-parameter',
      'import subprocess\ndef fetch(url):\n    cmd = "curl " + url\n    subprocess.call(cmd, shell=True)\n',
      4,
      'shell_execution',
      3,
    ],
  ] as Array<[string, string, string, number, string, number]>)(
    '%s: %s is blocked at its sink, naming the line that builds its argument',
    async (language, _name, code, line, type, built) => {
      const res = await verify({ code, language });
      expectBlockedAt(
        res,
        line,
        type,
        new RegExp(`argument built from parameters on lines? (?:\\d+, )*${built}(?:, \\d+)*$`),
      );
    },
  );

  it.each([
    [
      'ruby',
      'rb-io-foreach-of-request-path',
      'def a\n  f = params[:f]\n  IO.foreach(f) { |l| puts l }\nend',
      3,
      'shell_execution',
    ],
    ['ruby', 'rb-uri-open-of-request-value', 'def a\n  URI.open(params[:u])\nend', 2, 'shell_execution'],
    [
      'ruby',
      'rb-oj-object-mode',
      'def a\n  d = params[:d]\n  Oj.load(d, mode: :object)\nend',
      3,
      'unsafe_deserialization',
    ],
    [
      'python',
      'py-marshal-of-request-arg',
      'import marshal\ndef a(request):\n    v = request.args.get("v")\n    return marshal.loads(v)\n',
      4,
      'unsafe_deserialization',
    ],
    [
      'go',
      'go-command-of-stored-value',
      'package main\nimport "os/exec"\nfunc r(name string) {\n\texec.Command(name).Run()\n}\n',
      4,
      'shell_execution',
    ],
  ] as Array<[string, string, string, number, string]>)(
    '%s: %s is blocked',
    async (language, _name, code, line, type) => {
      const res = await verify({ code, language });
      expectBlockedAt(res, line, type);
    },
  );

  it.each([
    ['ruby', 'SAFE rb-file-read-constant', 'def a\n  File.read("config/app.yml")\nend'],
    ['ruby', 'SAFE rb-oj-strict-mode', 'def a\n  Oj.load(params[:d], mode: :strict)\nend'],
    [
      'python',
      'SAFE py-json-of-request-arg',
      'import json\ndef a(request):\n    return json.loads(request.args.get("v"))\n',
    ],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: 'def a; end', language: 7 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/language/);
  });
});
