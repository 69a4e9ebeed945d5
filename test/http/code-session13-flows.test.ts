// Issue 24 (code scan), session 13, black-box rows: request input reaching a sink through a Java
// method's parameter (a Spring @RequestParam, a servlet caller), a callback passed by name, a route
// handler or block or closure (and the names it captures), a Flask view argument, a helper's return
// value; isolated-vm given computed code, a Go template parsed from input, PHP yaml_parse and a
// preg_replace pattern from input. The same shapes with constants are admitted; bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: flows and the families left alone (issue 24, session 13)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'java',
      'java-classforname-flow',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    load(req.getParameter("c"));\n  }\n  private Object load(String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
      7,
      'dynamic_code_execution',
      /Class chosen by request input.*carries request or program input/,
    ],
    [
      'java',
      'EVADE spring-reqparam',
      'import org.springframework.web.bind.annotation.*;\npublic class C {\n  public Object load(@RequestParam("n") String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
      4,
      'dynamic_code_execution',
      undefined,
    ],
    [
      'python',
      'py-import-flask-arg',
      "from flask import Flask\nimport importlib\napp = Flask(__name__)\n@app.route('/m/<name>')\ndef view(name):\n    return importlib.import_module(name)",
      6,
      'dynamic_code_execution',
      undefined,
    ],
    [
      'python',
      'py-import-return',
      "import importlib\nfrom flask import request\ndef get_name():\n    return request.args.get('m')\ndef f():\n    n = get_name()\n    return importlib.import_module(n)",
      7,
      'dynamic_code_execution',
      undefined,
    ],
    [
      'javascript',
      'js-require-forEach',
      "function load(n) {\n  return require(n);\n}\napp.get('/x', (req, res) => {\n  req.query.mods.forEach(load);\n});",
      2,
      'dynamic_code_execution',
      /input from line 5$/,
    ],
    [
      'javascript',
      'js-require-handler',
      "function handler(q, res) {\n  require(q.query.m);\n}\napp.get('/x', handler);",
      2,
      'dynamic_code_execution',
      /input from line 4$/,
    ],
    [
      'ruby',
      'rb-erb-block',
      "get '/x' do\n  [params[:t]].each do |t|\n    ERB.new(t).result\n  end\nend",
      3,
      'dynamic_code_execution',
      /input from line 2$/,
    ],
    [
      'php',
      'php-closure-use',
      "<?php\n$t = $_GET['m'];\n$f = function($x) use ($t) {\n  return call_user_func($t, $x);\n};",
      4,
      'dynamic_code_execution',
      /input from lines 2, 3$/,
    ],
    [
      'go',
      'EVADE go-anon-handler',
      'package main\nimport (\n  "net/http"\n  "os/exec"\n)\nfunc main() {\n  http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {\n    c := r.URL.Query().Get("c")\n    exec.Command(c).Run()\n  })\n}',
      9,
      'shell_execution',
      /input from line 8$/,
    ],
    [
      'javascript',
      'ivm-evalSync',
      "const ivm = require('isolated-vm');\nconst iso = new ivm.Isolate();\nconst ctx = iso.createContextSync();\napp.get('/x', (req, res) => {\n  res.send(ctx.evalSync(req.query.code));\n});",
      5,
      'dynamic_code_execution',
      /isolated-vm/,
    ],
    [
      'go',
      'go-template-var',
      'package main\nimport (\n  "net/http"\n  "text/template"\n)\nfunc h(w http.ResponseWriter, r *http.Request) {\n  src := r.FormValue("t")\n  t := template.New("x")\n  t.Parse(src)\n}',
      9,
      'dynamic_code_execution',
      /server-side template injection/,
    ],
    ['php', 'php-yaml_parse', "<?php\n$d = yaml_parse($_POST['y']);", 2, 'unsafe_deserialization', /yaml_parse/],
    [
      'php',
      'php-preg-e-input',
      "<?php\n$p = $_GET['p'];\necho preg_replace($p, $_GET['r'], $_GET['s']);",
      3,
      'dynamic_code_execution',
      /preg_replace/,
    ],
  ] as Array<[string, string, string, number, string, RegExp | undefined]>)(
    '%s: %s is VERIFIED unsafe and not admitted',
    async (language, _name, code, line, type, description) => {
      const res = await verify({ code, language });
      expectBlockedAt(res, line, type, description);
    },
  );

  it.each([
    [
      'java',
      'a method called only with a constant class name',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    String c = req.getParameter("c");\n    load("java.util.ArrayList");\n  }\n  private Object load(String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
    ],
    [
      'javascript',
      'a callback over constant module names',
      "function load(n) {\n  return require(n);\n}\n['fs', 'path'].forEach(load);",
    ],
    [
      'javascript',
      'a helper returning a constant',
      "function name(r) {\n  return 'fs';\n}\napp.get('/x', (req, res) => {\n  const n = name(req);\n  require(n);\n});",
    ],
    [
      'php',
      'a closure capturing a constant',
      "<?php\n$t = 'strtoupper';\n$f = function($x) use ($t) {\n  return call_user_func($t, $x);\n};",
    ],
    [
      'javascript',
      "another handler's input",
      "app.get('/a', (req, res) => {\n  const m = req.query.m;\n});\napp.get('/b', (req, res) => {\n  [1].forEach((x) => {\n    require(m);\n  });\n});",
    ],
    [
      'javascript',
      'isolated-vm given constant code',
      "const ivm = require('isolated-vm');\nconst iso = new ivm.Isolate();\nconst ctx = iso.createContextSync();\nctx.evalSync('1 + 1');",
    ],
    ['php', 'yaml_parse of a constant', '<?php\n$d = yaml_parse("a: 1");'],
    [
      'go',
      'a constant Go template',
      'package main\nimport (\n  "text/template"\n  "os"\n)\nfunc main() {\n  t := template.Must(template.New("x").Parse("hello {{.}}"))\n  t.Execute(os.Stdout, 1)\n}',
    ],
    [
      'javascript',
      'v8.deserialize (structured clone data, no code)',
      "const v8 = require('v8');\napp.post('/x', (req, res) => {\n  const o = v8.deserialize(Buffer.from(req.body.data, 'base64'));\n});",
    ],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('a giant identifier gets a verdict with its input line (was an internal error: a regex built from the name)', async () => {
    const big = 'v'.repeat(60_000);
    const res = await verify({ code: `import os\n${big} = input()\nos.system(${big})\n`, language: 'python' });
    expectBlockedAt(res, 3, 'shell_execution', /input from line 2$/);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: ['app.get("/x", h)'], language: 'javascript' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
