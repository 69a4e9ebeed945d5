// Issue 24, session 13 (flows and the families left alone): input reaching a sink through a Java or
// class method's parameter, a callback passed by name, an anonymous function (a route handler, a
// lambda, a block, a closure and the names it captures), a route's view arguments, and a helper's
// return value; isolated-vm, Go templates parsed from input, PHP yaml_parse and preg_replace
// patterns from input. Each dangerous row has its evasion variants and the safe shapes beside it.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';
import { inputSources } from '../../engines/code/flows.js';

const critical = async (code: string, language: string): Promise<Issue[]> => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string };
  // A row that does not parse would pass every "no finding" check: each row must parse.
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return (fields.issues ?? []).filter((i) => i.severity === 'critical');
};

describe('issue 24, session 13: flows through methods, callbacks, anonymous functions and return values', () => {
  it.each([
    [
      'java-classforname-flow',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    load(req.getParameter("c"));\n  }\n  private Object load(String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
      [7],
      /input from lines 4, 7$|carries request/,
    ],
    [
      'java-method-flow',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    String c = req.getParameter("c");\n    run(c);\n  }\n  private void run(String cmd) throws Exception {\n    Runtime.getRuntime().exec(cmd);\n  }\n}',
      [8],
      /input from lines 4, 5$/,
    ],
    [
      'EVADE java-generic-params',
      'java',
      'import javax.servlet.http.*;\nimport java.util.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    run(new HashMap<String, String>(), req.getParameter("c"));\n  }\n  private Object run(Map<String, String> m, String name) throws Exception {\n    return Class.forName(name);\n  }\n}',
      [8],
      null,
    ],
    [
      'EVADE spring-unannotated',
      'java',
      'import org.springframework.web.bind.annotation.*;\n@RestController\npublic class C {\n  @GetMapping("/load")\n  public Object load(String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
      [6],
      null,
    ],
    [
      'EVADE spring-reqparam',
      'java',
      'import org.springframework.web.bind.annotation.*;\npublic class C {\n  public Object load(@RequestParam("n") String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
      [4],
      null,
    ],
    [
      'java-lambda',
      'java',
      'import javax.servlet.http.*;\nimport java.util.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    List<String> names = Arrays.asList(req.getParameterValues("c"));\n    names.forEach(n -> { try { Class.forName(n); } catch (Exception e) {} });\n  }\n}',
      [6],
      null,
    ],
    [
      'py-import-flask-arg',
      'python',
      "from flask import Flask\nimport importlib\napp = Flask(__name__)\n@app.route('/m/<name>')\ndef view(name):\n    return importlib.import_module(name)",
      [6],
      null,
    ],
    [
      'EVADE django-arg',
      'python',
      'import importlib\ndef view(request, mod):\n    return importlib.import_module(mod)',
      [3],
      null,
    ],
    [
      'py-import-callback',
      'python',
      "import importlib\nfrom flask import request\ndef load(n):\n    return importlib.import_module(n)\nnames = request.args.getlist('m')\nmods = list(map(load, names))",
      [4],
      null,
    ],
    [
      'py-import-return',
      'python',
      "import importlib\nfrom flask import request\ndef get_name():\n    return request.args.get('m')\ndef f():\n    n = get_name()\n    return importlib.import_module(n)",
      [7],
      null,
    ],
    [
      'EVADE py-return-helper-arg',
      'python',
      "import importlib\nfrom flask import request\ndef pick(d):\n    return d.get('m')\ndef f():\n    n = pick(request.args)\n    return importlib.import_module(n)",
      [7],
      null,
    ],
    [
      'EVADE py-lambda',
      'python',
      "import importlib\nfrom flask import request\nnames = request.args.getlist('m')\nmods = list(map(lambda n: importlib.import_module(n), names))",
      [4],
      null,
    ],
    [
      'js-require-forEach',
      'javascript',
      "function load(n) {\n  return require(n);\n}\napp.get('/x', (req, res) => {\n  req.query.mods.forEach(load);\n});",
      [2],
      /input from line 5$/,
    ],
    [
      'js-require-handler',
      'javascript',
      "function handler(q, res) {\n  require(q.query.m);\n}\napp.get('/x', handler);",
      [2],
      /input from line 4$/,
    ],
    [
      'js-require-arrow',
      'javascript',
      "app.get('/x', (rq, rs) => {\n  require(rq.query.m);\n});",
      [2],
      /input from line 1$/,
    ],
    [
      'EVADE js-arrow-single',
      'javascript',
      "app.post('/x', rq => {\n  require(rq.body.m);\n});",
      [2],
      /input from line 1$/,
    ],
    [
      'EVADE js-fn-expr-route',
      'javascript',
      "router.get('/x', async function (r, s) {\n  setTimeout(r.query.c, 10);\n});",
      [2],
      /input from line 1$/,
    ],
    [
      'js-require-return',
      'javascript',
      "function name(r) {\n  return r.query.m;\n}\napp.get('/x', (req, res) => {\n  const n = name(req);\n  require(n);\n});",
      [6],
      null,
    ],
    [
      'rb-erb-block',
      'ruby',
      "get '/x' do\n  [params[:t]].each do |t|\n    ERB.new(t).result\n  end\nend",
      [3],
      /input from line 2$/,
    ],
    ['EVADE rb-block-braces', 'ruby', "get '/x' do\n  [params[:t]].map { |t| ERB.new(t).result }\nend", [2], null],
    [
      'rb-erb-method',
      'ruby',
      "def render_it(t)\n  ERB.new(t).result\nend\nget '/x' do\n  render_it(params[:t])\nend",
      [2],
      /input from line 5$/,
    ],
    [
      'php-closure-use',
      'php',
      "<?php\n$t = $_GET['m'];\n$f = function($x) use ($t) {\n  return call_user_func($t, $x);\n};",
      [4],
      /input from lines 2, 3$/,
    ],
    [
      'EVADE php-fn-arrow',
      'php',
      "<?php\n$names = $_GET['n'];\n$r = array_map(fn($n) => call_user_func($n), $names);",
      [3],
      /input from line 2$/,
    ],
    [
      'EVADE go-anon-handler',
      'go',
      'package main\nimport (\n  "net/http"\n  "os/exec"\n)\nfunc main() {\n  http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {\n    c := r.URL.Query().Get("c")\n    exec.Command(c).Run()\n  })\n}',
      [9],
      /input from line 8$/,
    ],
  ])('%s (%s) is critical on the sink line, naming the input', async (_name, language, code, expected, description) => {
    const found = await critical(code, language);
    expect(found.map((i) => i.line_number)).toEqual(expected);
    if (description) expect(found[0].description).toMatch(description);
  });
  it.each([
    [
      'SAFE java-const-caller',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    String c = req.getParameter("c");\n    load("java.util.ArrayList");\n  }\n  private Object load(String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
    ],
    [
      'java-classforname-const',
      'java',
      'public class A {\n  void go() throws Exception { load("java.util.ArrayList"); }\n  private Object load(String name) throws Exception {\n    return Class.forName(name).newInstance();\n  }\n}',
    ],
    [
      'SAFE py-view-const',
      'python',
      "from flask import Flask\nimport importlib\napp = Flask(__name__)\n@app.route('/m/<name>')\ndef view(name):\n    return importlib.import_module('json')",
    ],
    [
      'SAFE js-forEach-const',
      'javascript',
      "function load(n) {\n  return require(n);\n}\n['fs', 'path'].forEach(load);",
    ],
    ['SAFE js-handler-const', 'javascript', "function handler(q, res) {\n  require('fs');\n}\napp.get('/x', handler);"],
    ['SAFE js-arrow-other-param', 'javascript', "app.get('/x', (rq, rs) => {\n  const m = 'fs';\n  require(m);\n});"],
    [
      'SAFE js-return-const',
      'javascript',
      "function name(r) {\n  return 'fs';\n}\napp.get('/x', (req, res) => {\n  const n = name(req);\n  require(n);\n});",
    ],
    ['SAFE rb-block-const', 'ruby', "get '/x' do\n  ['a', 'b'].each do |t|\n    ERB.new(t).result\n  end\nend"],
    [
      'SAFE php-closure-const',
      'php',
      "<?php\n$t = 'strtoupper';\n$f = function($x) use ($t) {\n  return call_user_func($t, $x);\n};",
    ],
    [
      'SAFE java-lambda-const',
      'java',
      'import java.util.*;\npublic class A {\n  void go() {\n    List<String> names = Arrays.asList("java.util.ArrayList");\n    names.forEach(n -> { try { Class.forName(n); } catch (Exception e) {} });\n  }\n}',
    ],
    [
      'SAFE js-two-handlers-closure',
      'javascript',
      "app.get('/a', (req, res) => {\n  const m = req.query.m;\n});\napp.get('/b', (req, res) => {\n  [1].forEach((x) => {\n    require(m);\n  });\n});",
    ],
    [
      'a closure written as array_map callback over request input (code, not data)',
      'php',
      '<?php\n$up = array_map(function ($s) {\n  return strtoupper($s);\n}, $_POST);\n$low = array_map(fn($s) => strtolower($s), $_GET);\n',
    ],
  ])(
    "%s (%s): the same shapes with constants or another function's input are not critical",
    async (_name, language, code) => {
      expect(await critical(code, language)).toEqual([]);
    },
  );
  it('long lines and giant identifiers neither throw (no regex is built from a name) nor take long', () => {
    const n = 50_000;
    const sp = ' '.repeat(n);
    const shapes = [
      `a${'a'.repeat(n)}`,
      `function${sp}x`,
      'lambda '.repeat(n / 7),
      `  f()${sp}x`,
      `  f() throws a${sp}(`,
      `  public void f(${'a'.repeat(n)} b) {`,
      `n = f()${sp}x`,
      `(${'a'.repeat(n)}`,
    ];
    for (const family of ['javascript', 'java', 'python', 'php', 'ruby', 'go'] as const)
      for (const line of shapes) {
        const src = `function h(q) {\n  const n = ${line};\n${line}\n  eval(n, q);\n}\nh(req.query.a);\n${line}\n`;
        const started = performance.now();
        expect(() => inputSources(src, family, 4)).not.toThrow();
        expect(performance.now() - started, `${family} ${line.slice(0, 20)}`).toBeLessThan(1_000);
      }
    // A giant name still carries its flow (a long name is no way around the search).
    const big = 'v'.repeat(60_000);
    expect(inputSources(`${big} = request.args["c"]\neval(${big})\n`, 'python', 2)).toEqual([1]);
  });

  it('the caller, callback and return-value searches stay bounded on adversarial input', () => {
    const helpers = Array.from({ length: 400 }, (_, i) => `function h${i}(x) {\n  return h${i + 1}(x);\n}`).join('\n');
    const src = `${helpers}\nfunction h400(x) {\n  return x;\n}\napp.get('/a', (req, res) => {\n  const n = h0(req.query.m);\n  ${'[1].forEach(h0);\n  '.repeat(2000)}require(n);\n});\n`;
    const line = src.split('\n').findIndex((l) => l.includes('require(n)')) + 1;
    const started = performance.now();
    inputSources(src, 'javascript', line);
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('issue 24, session 13: families left alone until now', () => {
  it.each([
    [
      'ivm-evalSync',
      'javascript',
      "const ivm = require('isolated-vm');\nconst iso = new ivm.Isolate();\nconst ctx = iso.createContextSync();\napp.get('/x', (req, res) => {\n  res.send(ctx.evalSync(req.query.code));\n});",
      [5],
    ],
    [
      'ivm-compileScript',
      'javascript',
      "const ivm = require('isolated-vm');\nconst iso = new ivm.Isolate();\nfunction run(code) {\n  const s = iso.compileScriptSync(code);\n  return s.runSync(iso.createContextSync());\n}",
      [4],
    ],
    [
      'ivm-async',
      'javascript',
      "const ivm = require('isolated-vm');\nconst iso = new ivm.Isolate({ memoryLimit: 8 });\napp.post('/run', async (req, res) => {\n  const context = await iso.createContext();\n  res.json(await context.eval(req.body.code));\n});",
      [5],
    ],
    ['ivm-param-ctx', 'javascript', 'function run(ctx, code) {\n  return ctx.evalClosureSync(code, []);\n}', [2]],
    [
      'go-texttemplate',
      'go',
      'package main\nimport (\n  "net/http"\n  "text/template"\n  "os"\n)\nfunc h(w http.ResponseWriter, r *http.Request) {\n  t := template.Must(template.New("x").Parse(r.URL.Query().Get("t")))\n  t.Execute(os.Stdout, nil)\n}',
      [8],
    ],
    [
      'go-template-var',
      'go',
      'package main\nimport (\n  "net/http"\n  "text/template"\n)\nfunc h(w http.ResponseWriter, r *http.Request) {\n  src := r.FormValue("t")\n  t := template.New("x")\n  t.Parse(src)\n}',
      [9],
    ],
    [
      'go-template-must',
      'go',
      'package main\nimport (\n  "net/http"\n  "html/template"\n)\nfunc h(w http.ResponseWriter, r *http.Request) {\n  t, _ := template.New("x").Funcs(nil).Parse(r.URL.Query().Get("t"))\n  t.Execute(w, nil)\n}',
      [7],
    ],
    ['php-yaml_parse', 'php', "<?php\n$d = yaml_parse($_POST['y']);", [2]],
    ['php-yaml_parse_file', 'php', "<?php\n$d = yaml_parse_file($_GET['f']);", [2]],
    ['php-preg-e-input', 'php', "<?php\n$p = $_GET['p'];\necho preg_replace($p, $_GET['r'], $_GET['s']);", [3]],
  ])('%s (%s) is critical', async (_name, language, code, expected) => {
    expect((await critical(code, language)).map((i) => i.line_number)).toEqual(expected);
  });
  it.each([
    [
      'ivm-evalSync-const',
      'javascript',
      "const ivm = require('isolated-vm');\nconst iso = new ivm.Isolate();\nconst ctx = iso.createContextSync();\nctx.evalSync('1 + 1');",
    ],
    [
      'go-texttemplate-const',
      'go',
      'package main\nimport (\n  "text/template"\n  "os"\n)\nfunc main() {\n  t := template.Must(template.New("x").Parse("hello {{.}}"))\n  t.Execute(os.Stdout, 1)\n}',
    ],
    ['php-yaml_parse-const', 'php', '<?php\n$d = yaml_parse("a: 1");'],
    ['php-preg-const', 'php', "<?php\necho preg_replace('/a/', $_GET['r'], $_GET['s']);"],
    [
      'go-htmltemplate-HTML',
      'go',
      'package main\nimport (\n  "net/http"\n  "html/template"\n)\nfunc h(w http.ResponseWriter, r *http.Request) {\n  v := template.HTML(r.FormValue("x"))\n  _ = v\n}',
    ],
    [
      'v8-deser',
      'javascript',
      "const v8 = require('v8');\napp.post('/x', (req, res) => {\n  const o = v8.deserialize(Buffer.from(req.body.data, 'base64'));\n});",
    ],
    [
      'v8-deser-param',
      'javascript',
      "const v8 = require('v8');\nfunction load(buf) {\n  return v8.deserialize(buf);\n}",
    ],
    ['setTimeout-param', 'javascript', 'function later(c) {\n  setTimeout(c, 100);\n}'],
    ['page-eval-param', 'javascript', 'async function run(page, c) {\n  await page.evaluate(c);\n}'],
  ])('%s (%s) is not critical', async (_name, language, code) => {
    expect(await critical(code, language)).toEqual([]);
  });
});
