// Issue 24 (code scan), session 14, black-box rows: request input reaching a sink through a C#
// action's parameter and the helper it calls, an object's field written in another method (Java,
// Python, JavaScript, PHP, Ruby), a Ruby method defined or called without parentheses, the
// arguments after a multi-line anonymous function's body, and a builder or list the input is
// written into; a constructor's argument stored in a field; request input read through Django
// class-based views, argparse, PHP filter_input and Laravel's request, a servlet's path info and
// gin's query. The same shapes with constants are admitted; bad input is refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: flows through C# methods, fields, Ruby calls, trailing arguments, builders (issue 24, session 14)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'csharp',
      'cs-controller-action-to-helper',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : Controller {\n    public IActionResult Index(string t) {\n        return Ok(Load(t));\n    }\n    private object Load(string name) {\n        return Activator.CreateInstance(Type.GetType(name));\n    }\n}',
      8,
      'dynamic_code_execution',
      4,
    ],
    [
      'csharp',
      'EVADE cs-allman-braces',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : ControllerBase\n{\n    public IActionResult Index(string t)\n    {\n        return Ok(Load(t));\n    }\n    private object Load(string name)\n    {\n        return Type.GetType(name);\n    }\n}',
      11,
      'dynamic_code_execution',
      5,
    ],
    [
      'csharp',
      'EVADE cs-expression-bodied-helper',
      'using System;\nusing System.Web;\npublic class P : System.Web.UI.Page {\n    protected void Page_Load(object s, EventArgs e) {\n        Make(Request.QueryString["t"]);\n    }\n    private Type Make(string n) => Type.GetType(n);\n}',
      7,
      'dynamic_code_execution',
      5,
    ],
    [
      'csharp',
      'cs-xmlserializer-type-via-helper',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\nusing System.IO;\nusing System.Xml.Serialization;\npublic class C : Controller {\n    public object Post(string type, string body) {\n        return Read(type, body);\n    }\n    private object Read(string tn, string b) {\n        var s = new XmlSerializer(Type.GetType(tn));\n        return s.Deserialize(new StringReader(b));\n    }\n}',
      10,
      'unsafe_deserialization',
      6,
    ],
    [
      'java',
      'java-this-field-between-methods',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  private String name;\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    this.name = req.getParameter("c");\n    load();\n  }\n  private Object load() throws Exception {\n    return Class.forName(this.name).newInstance();\n  }\n}',
      9,
      'dynamic_code_execution',
      5,
    ],
    [
      'java',
      'EVADE java-field-through-setter',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  private String name;\n  void setName(String n) { this.name = n; }\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    setName(req.getParameter("c"));\n    Class.forName(this.name);\n  }\n}',
      7,
      'dynamic_code_execution',
      6,
    ],
    [
      'python',
      'py-self-field-between-methods',
      "import importlib\nfrom flask import request\nclass H:\n    def setup(self):\n        self.mod = request.args['m']\n    def run(self):\n        return importlib.import_module(self.mod)\n",
      7,
      'dynamic_code_execution',
      5,
    ],
    [
      'javascript',
      'js-this-field-from-constructor',
      'class H {\n  constructor(req) {\n    this.mod = req.query.m;\n  }\n  run() {\n    return require(this.mod);\n  }\n}',
      6,
      'dynamic_code_execution',
      3,
    ],
    [
      'php',
      'php-this-field',
      "<?php\nclass A {\n  private $doc;\n  function set() { $this->doc = $_POST['doc']; }\n  function run() { return yaml_parse($this->doc); }\n}",
      5,
      'unsafe_deserialization',
      4,
    ],
    [
      'ruby',
      'rb-ivar-between-actions',
      'class C < ApplicationController\n  before_action :set\n  def set\n    @tpl ||= params[:t]\n  end\n  def show\n    ERB.new(@tpl).result\n  end\nend',
      7,
      'dynamic_code_execution',
      4,
    ],
    [
      'ruby',
      'rb-def-without-parentheses',
      'class C < ApplicationController\n  def show\n    load_it params[:n]\n  end\n  def load_it name\n    require name\n  end\nend',
      6,
      'dynamic_code_execution',
      3,
    ],
    [
      'ruby',
      'EVADE rb-def-self-without-parentheses',
      'class C < ApplicationController\n  def show\n    n = params[:n]\n    C.build n, 1\n  end\n  def self.build name, opt = {}\n    ERB.new(name).result\n  end\nend',
      7,
      'dynamic_code_execution',
      3,
    ],
    [
      'python',
      'py-lambda-arguments-after-body',
      "import importlib\nfrom flask import request\nmods = list(map(lambda m:\n    importlib.import_module(m),\n    request.args.getlist('m')))",
      4,
      'dynamic_code_execution',
      5,
    ],
    [
      'php',
      'php-closure-arguments-after-body',
      "<?php\n$docs = array_map(function ($y) {\n    return yaml_parse($y);\n}, $_POST['docs']);",
      3,
      'unsafe_deserialization',
      4,
    ],
    [
      'javascript',
      'js-iife-arguments-after-body',
      "const app = require('express')();\napp.get('/x', function (req, res) {\n  ((m) => {\n    require(m);\n  })(req.query.m);\n});",
      4,
      'dynamic_code_execution',
      5,
    ],
    [
      'java',
      'java-stringbuilder-append',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    StringBuilder sb = new StringBuilder("com.x.");\n    sb.append(req.getParameter("c"));\n    Class.forName(sb.toString());\n  }\n}',
      6,
      'dynamic_code_execution',
      5,
    ],
    [
      'python',
      'py-list-append-join',
      'import importlib\nfrom flask import request\ndef v():\n    parts = ["plugins"]\n    parts.append(request.args[\'m\'])\n    return importlib.import_module(".".join(parts))\n',
      6,
      'dynamic_code_execution',
      5,
    ],
    [
      'csharp',
      'cs-stringbuilder-append',
      'using System;\nusing System.Text;\nusing System.Web;\npublic class P : System.Web.UI.Page {\n    protected void Page_Load(object s, EventArgs e) {\n        var sb = new StringBuilder("My.Types.");\n        sb.Append(Request.QueryString["t"]);\n        Type.GetType(sb.ToString());\n    }\n}',
      8,
      'dynamic_code_execution',
      7,
    ],
    [
      'ruby',
      'rb-string-shovel',
      'class C < ApplicationController\n  def show\n    t = "<%= "\n    t << params[:x]\n    ERB.new(t).result\n  end\nend',
      5,
      'dynamic_code_execution',
      4,
    ],
    [
      'python',
      'py-django-class-based-view-argument',
      'import importlib\nfrom django.views import View\nclass V(View):\n    def get(self, request, mod):\n        return importlib.import_module(mod)\n',
      5,
      'dynamic_code_execution',
      4,
    ],
    [
      'python',
      'py-argparse-arguments',
      'import argparse, importlib\np = argparse.ArgumentParser()\np.add_argument("mod")\nargs = p.parse_args()\nimportlib.import_module(args.mod)\n',
      5,
      'dynamic_code_execution',
      4,
    ],
    [
      'php',
      'php-filter-input',
      "<?php\n$d = filter_input(INPUT_POST, 'doc');\nyaml_parse($d);",
      3,
      'unsafe_deserialization',
      2,
    ],
    [
      'php',
      'php-laravel-request-input',
      "<?php\nclass C {\n  public function store(Request $request) {\n    $d = $request->input('doc');\n    return yaml_parse($d);\n  }\n}",
      5,
      'unsafe_deserialization',
      4,
    ],
    [
      'java',
      'java-path-info',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    String c = req.getPathInfo().substring(1);\n    Class.forName(c);\n  }\n}',
      5,
      'dynamic_code_execution',
      4,
    ],
    [
      'go',
      'go-gin-query',
      'package main\nimport ("github.com/gin-gonic/gin"; "html/template")\nfunc h(c *gin.Context) {\n\tt := c.Query("t")\n\ttemplate.New("x").Parse(t)\n}',
      5,
      'dynamic_code_execution',
      4,
    ],
    [
      'python',
      'py-constructor-argument-to-field',
      "import importlib\nfrom flask import request\nclass H:\n    def __init__(self, m):\n        self.mod = m\n    def run(self):\n        return importlib.import_module(self.mod)\ndef v():\n    return H(request.args['m']).run()\n",
      7,
      'dynamic_code_execution',
      9,
    ],
    [
      'javascript',
      'js-constructor-argument-to-field',
      "class H {\n  constructor(m) {\n    this.mod = m;\n  }\n  run() {\n    return require(this.mod);\n  }\n}\napp.get('/x', (req, res) => new H(req.query.m).run());",
      6,
      'dynamic_code_execution',
      9,
    ],
  ] as Array<[string, string, string, number, string, number]>)(
    '%s: %s is blocked at its sink, naming the input line',
    async (language, _name, code, line, type, source) => {
      const res = await verify({ code, language });
      expectBlockedAt(res, line, type, new RegExp(`input from lines? (?:\\d+, )*${source}(?:, \\d+)*$`));
    },
  );

  it.each([
    [
      'csharp',
      'SAFE cs-helper-constant',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : Controller {\n    public IActionResult Index(string t) {\n        return Ok(Load("System.String"));\n    }\n    private object Load(string name) {\n        return Type.GetType(name);\n    }\n}',
    ],
    [
      'csharp',
      'SAFE cs-private-method-of-controller',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : Controller {\n    private object Helper(string n) { return Type.GetType(n); }\n    public IActionResult Index() { return Ok(Helper("System.Int32")); }\n}',
    ],
    [
      'csharp',
      'SAFE cs-static-public-not-action',
      'using System;\npublic class Util {\n    public static object Go() { return Make("System.Text.StringBuilder"); }\n    public static object Make(string n) => Activator.CreateInstance(Type.GetType(n));\n}',
    ],
    [
      'java',
      'SAFE java-field-constant',
      'public class A {\n  private String name;\n  void init() { this.name = "java.util.ArrayList"; }\n  Object load() throws Exception {\n    return Class.forName(this.name).newInstance();\n  }\n}',
    ],
    [
      'javascript',
      'SAFE js-this-field-constant',
      "class H {\n  constructor() {\n    this.mod = './plugins/default';\n  }\n  run() {\n    return require(this.mod);\n  }\n}",
    ],
    [
      'ruby',
      'SAFE rb-def-without-parentheses-constant',
      'class C\n  def show\n    load_it "json"\n  end\n  def load_it name\n    require name\n  end\nend',
    ],
    [
      'java',
      'SAFE java-stringbuilder-constants',
      'public class A {\n  Object go() throws Exception {\n    StringBuilder sb = new StringBuilder("com.x.");\n    sb.append("Impl");\n    return Class.forName(sb.toString());\n  }\n}',
    ],
    [
      'go',
      'SAFE go-gin-constant-template',
      'package main\nimport ("github.com/gin-gonic/gin"; "html/template")\nfunc h(c *gin.Context) {\n\tt := c.Query("t")\n\ttemplate.New("x").Parse("hello {{.}}")\n\t_ = t\n}',
    ],
    ['ruby', 'SAFE rb-string-shovel-constants', 'def show\n  t = "<%= 1"\n  t << " %>"\n  ERB.new(t).result\nend'],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: 'class A {}', language: 7 });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/language/);
  });
});
