// Issue 24 (code scan), session 12 (breadth), black-box rows: the families the generator-style
// unit test (test/unit/code-s12-breadth.test.ts) showed missed, one row each on the real stack:
// a Bash command or sourced file named by the script's arguments or `read` input, `xargs … sh -c`
// whose code is the input, Go embedded interpreters (goja, yaegi), a pickle gadget (__reduce__
// returning a code-running callable, SecurityEval's CWE-502 example), the sh package, Keras
// safe_mode=False, numpy allow_pickle=True, Bun/Deno process APIs, a Worker with eval: true,
// page.evaluate of request input, addScriptTag with computed content, EL/BeanShell evaluation,
// Hessian, ERB of request input, JSON.parse with create_additions, PHP one-argument parse_str;
// and the ordinary shapes beside them admitted.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: breadth families (issue 24, session 12)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    ['bash', '#!/bin/bash\nread -r cmd\n$cmd\n', 3, 'shell_execution', /arguments or read input/],
    ['bash', '#!/bin/bash\n"$1" --version\n', 2, 'shell_execution', /arguments or read input/],
    ['bash', '#!/bin/bash\nsource "$1"\n', 2, 'dynamic_code_execution', /sourced into the shell/],
    ['bash', 'echo "$1" | xargs -I{} sh -c "{}"\n', 1, 'dynamic_code_execution', /interpreter given code/],
    [
      'go',
      'package main\n\nimport "github.com/dop251/goja"\n\nfunc f(c string) {\n\tvm := goja.New()\n\tvm.RunString(c)\n}\n',
      7,
      'dynamic_code_execution',
      /Embedded interpreter/,
    ],
    [
      'go',
      'package main\n\nimport "github.com/traefik/yaegi/interp"\n\nfunc f(i *interp.Interpreter, c string) {\n\ti.Eval(c)\n}\n',
      6,
      'dynamic_code_execution',
      /Embedded interpreter/,
    ],
    [
      'python',
      'import pickle\n\nclass Payload(object):\n    def __reduce__(self):\n        return exec, ("import os",)\n\ndef make(p):\n    return pickle.dumps(p)\n',
      5,
      'unsafe_deserialization',
      /Pickle gadget/,
    ],
    ['python', 'import sh\n\ndef f(c):\n    sh.bash("-c", c)\n', 4, 'shell_execution', /sh package/],
    [
      'python',
      'import keras\n\ndef f(p):\n    return keras.models.load_model(p, safe_mode=False)\n',
      4,
      'unsafe_deserialization',
      /safe_mode=False/,
    ],
    [
      'python',
      'import numpy as np\n\ndef f(p):\n    return np.load(p, allow_pickle=True)\n',
      4,
      'unsafe_deserialization',
      /allow_pickle=True/,
    ],
    ['javascript', 'function f(c) {\n  Bun.spawn([c]);\n}\n', 2, 'shell_execution', /Bun \/ Deno/],
    [
      'javascript',
      "const { Worker } = require('worker_threads');\nfunction f(c) {\n  return new Worker(c, { eval: true });\n}\n",
      3,
      'dynamic_code_execution',
      /Worker thread/,
    ],
    [
      'javascript',
      'async function f(page, req) {\n  await page.evaluate(req.body.script);\n}\n',
      2,
      'dynamic_code_execution',
      /Headless-browser page/,
    ],
    [
      'javascript',
      'async function f(page, c) {\n  await page.addScriptTag({ content: c });\n}\n',
      2,
      'dynamic_code_execution',
      /script tag/,
    ],
    [
      'java',
      'import javax.el.ELProcessor;\nclass A {\n  Object f(String c) {\n    return new ELProcessor().eval(c);\n  }\n}\n',
      4,
      'dynamic_code_execution',
      /Expression Language or BeanShell/,
    ],
    [
      'java',
      'import com.caucho.hessian.io.HessianInput;\nimport java.io.*;\nclass A {\n  Object f(InputStream in) throws Exception {\n    return new HessianInput(in).readObject();\n  }\n}\n',
      5,
      'unsafe_deserialization',
      /Unsafe deserialization/,
    ],
    ['ruby', "require 'erb'\ndef f\n  ERB.new(params[:t]).result\nend\n", 3, 'dynamic_code_execution', /ERB/],
    [
      'ruby',
      'def f(d)\n  JSON.parse(d, create_additions: true)\nend\n',
      2,
      'unsafe_deserialization',
      /create_additions/,
    ],
    ['php', "<?php\nparse_str($_SERVER['QUERY_STRING']);\n", 2, 'dynamic_code_execution', /parse_str/],
    ['python', 'import pexpect\n\ndef f(c):\n    pexpect.spawn(c)\n', 4, 'shell_execution', /pexpect/],
    ['python', 'import timeit\n\ndef f(c):\n    timeit.timeit(c, number=1)\n', 4, 'dynamic_code_execution', /timeit/],
    [
      'python',
      "from flask import request\nfrom jinja2 import Template\n\ndef f():\n    return Template(request.args['t']).render()\n",
      5,
      'dynamic_code_execution',
      /server-side template injection/,
    ],
    ['python', 'import ctypes\n\ndef f(p):\n    ctypes.CDLL(p)\n', 4, 'dynamic_code_execution', /Native library/],
    [
      'javascript',
      "const pty = require('node-pty');\nfunction f(c) {\n  pty.spawn(c, [], {});\n}\n",
      3,
      'shell_execution',
      /node-pty/,
    ],
    [
      'java',
      'import org.apache.commons.jexl3.*;\nclass A {\n  Object f(JexlEngine j, String c) {\n    return j.createExpression(c).evaluate(null);\n  }\n}\n',
      4,
      'dynamic_code_execution',
      /JEXL, Rhino or JShell/,
    ],
    [
      'java',
      'import com.alibaba.fastjson.*;\nimport com.alibaba.fastjson.parser.Feature;\nclass A {\n  Object f(String s) {\n    return JSON.parseObject(s, Object.class, Feature.SupportAutoType);\n  }\n}\n',
      5,
      'unsafe_deserialization',
      /SupportAutoType/,
    ],
    ['ruby', 'def f\n  load(params[:file])\nend\n', 2, 'dynamic_code_execution', /Ruby file loaded/],
    ['bash', '#!/bin/bash\necho "$1" | bash\n', 2, 'dynamic_code_execution', /interpreter given code/],
    ['bash', '#!/bin/bash\nbash <<< "$1"\n', 2, 'dynamic_code_execution', /interpreter given code/],
    ['bash', '#!/bin/bash\nawk "$1" file.txt\n', 2, 'dynamic_code_execution', /interpreter given code/],
    [
      'bash',
      '#!/bin/bash\nfind . -name "*.log" -exec sh -c "$1" \\;\n',
      2,
      'dynamic_code_execution',
      /interpreter given code/,
    ],
    ['javascript', 'function f(c) {\n  return eval(...[c]);\n}\n', 2, 'dynamic_code_execution', /eval/],
    ['javascript', 'function f(c) {\n  return [eval][0](c);\n}\n', 2, 'dynamic_code_execution', /passed on as a value/],
    ['bash', '#!/bin/bash\nsudo -u app "$1"\n', 2, 'shell_execution', /arguments or read input/],
  ])('%s: the call is VERIFIED unsafe and not admitted (%#)', async (language, code, line, type, description) => {
    const res = await verify({ code, language });
    expectBlockedAt(res, line, type, description);
  });

  it.each([
    ['bash', 'a helper that runs its arguments', '#!/bin/bash\nrun() {\n  echo "+ $*"\n  "$@"\n}\n'],
    ['bash', 'a loop sourcing a constant directory', 'for f in ~/.bashrc.d/*; do\n  . "$f"\ndone\n'],
    ['bash', 'an argument used as a path', '#!/bin/bash\ndir=$1\nls "$dir"\n'],
    [
      'go',
      'an interpreter given constant code',
      'package main\n\nimport "github.com/dop251/goja"\n\nfunc f() {\n\tgoja.New().RunString("1 + 1")\n}\n',
    ],
    ['python', 'the usual __reduce__', 'class P:\n    def __reduce__(self):\n        return (P, (1,))\n'],
    ['python', 'numpy.load without allow_pickle', 'import numpy as np\n\ndef f(p):\n    return np.load(p)\n'],
    [
      'javascript',
      'a constant script tag',
      "async function f(page) {\n  await page.addScriptTag({ content: 'window.x = 1' });\n}\n",
    ],
    ['php', 'parse_str into an array', "<?php\nparse_str($_SERVER['QUERY_STRING'], $out);\n"],
    ['ruby', 'JSON.parse without additions', 'def f(d)\n  JSON.parse(d)\nend\n'],
    [
      'python',
      'a library found by name',
      'import ctypes, ctypes.util\nlibc = ctypes.CDLL(ctypes.util.find_library("c"))\n',
    ],
    [
      'python',
      'a constant template',
      "from jinja2 import Template\n\ndef f(name):\n    return Template('Hello {{ name }}').render(name=name)\n",
    ],
    ['bash', 'a constant awk program', '#!/bin/bash\nawk -v n="$1" \'{print $n}\' file.txt\n'],
    ['bash', 'find -exec with constant code', "find . -name '*.sh' -exec sh -c 'echo \"$0\"' {} \\;\n"],
    ['javascript', 'a spread into a plain function', 'function f(xs) {\n  return Math.max(...xs);\n}\n'],
    [
      'javascript',
      'plain values and functions in literals',
      'const handlers = { ok: (x) => x, list: [1, 2, 3] };\nconst fns = [Math.max, JSON.parse];\n',
    ],
    ['bash', 'an entrypoint that runs its arguments', '#!/bin/sh\nset -e\nexec "$@"\n'],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: { text: 'source "$1"' }, language: 'bash' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
