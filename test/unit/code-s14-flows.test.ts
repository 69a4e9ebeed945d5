// Issue 24, session 14 (flows): input reaching a sink through a C# method's parameter (an
// action's parameters and the helpers it calls), an object's field written in another method
// (Java/JS `this.x`, Python `self.x`, PHP `$this->x`, Ruby `@x`), a Ruby method defined or called
// without parentheses, the arguments written after a multi-line anonymous function's body, and
// values written into a builder or a list (`sb.append(x)`, `parts.push(x)`, `$a[] = x`, `s << x`).
// Each dangerous row names its sink line and the input's line; the safe rows are the same shapes
// with constants.
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

/** The line numbers a finding's description names as its input ("input from lines 3, 5"). */
const inputLines = (i: Issue): number[] =>
  [...i.description.matchAll(/input from lines? ([\d, ]+)$/g)].flatMap((m) => m[1].split(', ').map(Number));

describe('issue 24, session 14: flows through C# methods, fields, Ruby calls, trailing arguments and builders', () => {
  it.each([
    [
      'cs-controller-action-to-helper',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : Controller {\n    public IActionResult Index(string t) {\n        return Ok(Load(t));\n    }\n    private object Load(string name) {\n        return Activator.CreateInstance(Type.GetType(name));\n    }\n}',
      8,
      4,
    ],
    [
      'EVADE cs-allman-braces',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : ControllerBase\n{\n    public IActionResult Index(string t)\n    {\n        return Ok(Load(t));\n    }\n    private object Load(string name)\n    {\n        return Type.GetType(name);\n    }\n}',
      11,
      5,
    ],
    [
      'EVADE cs-httppost-frombody-static-helper',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class Api {\n    [HttpPost("run")]\n    public async System.Threading.Tasks.Task<object> Run([FromBody] string t) {\n        return Make(t, 1);\n    }\n    static object Make(string n, int depth = 0) {\n        return Type.GetType(n);\n    }\n}',
      9,
      5,
    ],
    [
      'EVADE cs-frombody-param-attribute-only',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class Api {\n    public object Run([FromQuery] string t) {\n        return Make(t);\n    }\n    static object Make(string n) {\n        return Type.GetType(n);\n    }\n}',
      8,
      4,
    ],
    [
      'cs-request-read-then-helper',
      'csharp',
      'using System;\nusing System.Web;\npublic class P : System.Web.UI.Page {\n    protected void Page_Load(object s, EventArgs e) {\n        var t = Request.QueryString["t"];\n        Make(t);\n    }\n    void Make(string n) {\n        var o = Activator.CreateInstance(Type.GetType(n));\n    }\n}',
      9,
      5,
    ],
    [
      'EVADE cs-expression-bodied-helper',
      'csharp',
      'using System;\nusing System.Web;\npublic class P : System.Web.UI.Page {\n    protected void Page_Load(object s, EventArgs e) {\n        Make(Request.QueryString["t"]);\n    }\n    private Type Make(string n) => Type.GetType(n);\n}',
      7,
      5,
    ],
    [
      'EVADE cs-two-hop-helpers',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class C : Controller {\n    public object Get(string t) { return A(t); }\n    private object A(string x) { return B("prefix", x); }\n    private object B(string p, string y) {\n        return Activator.CreateInstance(Type.GetType(y));\n    }\n}',
      7,
      4,
    ],
    [
      'cs-xmlserializer-type-via-helper',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\nusing System.IO;\nusing System.Xml.Serialization;\npublic class C : Controller {\n    public object Post(string type, string body) {\n        return Read(type, body);\n    }\n    private object Read(string tn, string b) {\n        var s = new XmlSerializer(Type.GetType(tn));\n        return s.Deserialize(new StringReader(b));\n    }\n}',
      10,
      6,
    ],
    [
      'java-this-field-between-methods',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  private String name;\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    this.name = req.getParameter("c");\n    load();\n  }\n  private Object load() throws Exception {\n    return Class.forName(this.name).newInstance();\n  }\n}',
      9,
      5,
    ],
    [
      'EVADE java-field-read-before-write',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  private String name;\n  private Object load() throws Exception {\n    return Class.forName(this.name).newInstance();\n  }\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    this.name = req.getParameter("c");\n    load();\n  }\n}',
      5,
      8,
    ],
    [
      'EVADE java-field-through-setter',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  private String name;\n  void setName(String n) { this.name = n; }\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    setName(req.getParameter("c"));\n    Class.forName(this.name);\n  }\n}',
      7,
      6,
    ],
    [
      'java-field-exec-names-source',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  private String cmd;\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    this.cmd = req.getParameter("c");\n    run();\n  }\n  private void run() throws Exception {\n    Runtime.getRuntime().exec(this.cmd);\n  }\n}',
      9,
      5,
    ],
    [
      'py-self-field-between-methods',
      'python',
      "import importlib\nfrom flask import request\nclass H:\n    def setup(self):\n        self.mod = request.args['m']\n    def run(self):\n        return importlib.import_module(self.mod)\n",
      7,
      5,
    ],
    [
      'EVADE py-self-field-augmented',
      'python',
      'import importlib\nfrom flask import request\nclass H:\n    def run(self):\n        return importlib.import_module(self.mod)\n    def setup(self):\n        self.mod = "plugins."\n        self.mod += request.args[\'m\']\n',
      5,
      8,
    ],
    [
      'js-this-field-from-constructor',
      'javascript',
      'class H {\n  constructor(req) {\n    this.mod = req.query.m;\n  }\n  run() {\n    return require(this.mod);\n  }\n}',
      6,
      3,
    ],
    [
      'php-this-field',
      'php',
      "<?php\nclass A {\n  private $doc;\n  function set() { $this->doc = $_POST['doc']; }\n  function run() { return yaml_parse($this->doc); }\n}",
      5,
      4,
    ],
    [
      'rb-ivar-between-actions',
      'ruby',
      'class C < ApplicationController\n  before_action :set\n  def set\n    @tpl ||= params[:t]\n  end\n  def show\n    ERB.new(@tpl).result\n  end\nend',
      7,
      4,
    ],
    [
      'rb-def-without-parentheses',
      'ruby',
      'class C < ApplicationController\n  def show\n    load_it params[:n]\n  end\n  def load_it name\n    require name\n  end\nend',
      6,
      3,
    ],
    [
      'EVADE rb-def-self-without-parentheses',
      'ruby',
      'class C < ApplicationController\n  def show\n    n = params[:n]\n    C.build n, 1\n  end\n  def self.build name, opt = {}\n    ERB.new(name).result\n  end\nend',
      7,
      3,
    ],
    [
      'EVADE rb-bare-call-of-paren-def',
      'ruby',
      'class C < ApplicationController\n  def show\n    render_it params[:t] if params[:t]\n  end\n  def render_it(t)\n    ERB.new(t).result(binding)\n  end\nend',
      6,
      3,
    ],
    [
      'py-lambda-arguments-after-body',
      'python',
      "import importlib\nfrom flask import request\nmods = list(map(lambda m:\n    importlib.import_module(m),\n    request.args.getlist('m')))",
      4,
      5,
    ],
    [
      'php-closure-arguments-after-body',
      'php',
      "<?php\n$docs = array_map(function ($y) {\n    return yaml_parse($y);\n}, $_POST['docs']);",
      3,
      4,
    ],
    [
      'js-iife-arguments-after-body',
      'javascript',
      "const app = require('express')();\napp.get('/x', function (req, res) {\n  ((m) => {\n    require(m);\n  })(req.query.m);\n});",
      4,
      5,
    ],
    [
      'go-func-literal-invoked',
      'go',
      'package main\nimport ("net/http"; "html/template")\nfunc h(w http.ResponseWriter, r *http.Request) {\n\tfunc(s string) {\n\t\ttemplate.New("x").Parse(s)\n\t}(r.FormValue("t"))\n}',
      5,
      6,
    ],
    [
      'java-stringbuilder-append',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    StringBuilder sb = new StringBuilder("com.x.");\n    sb.append(req.getParameter("c"));\n    Class.forName(sb.toString());\n  }\n}',
      6,
      5,
    ],
    [
      'EVADE java-stringbuilder-chained-append',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    String c = req.getParameter("c");\n    StringBuilder sb = new StringBuilder();\n    sb.append("com.x.").append(c);\n    Class.forName(sb.toString());\n  }\n}',
      7,
      4,
    ],
    [
      'py-list-append-join',
      'python',
      'import importlib\nfrom flask import request\ndef v():\n    parts = ["plugins"]\n    parts.append(request.args[\'m\'])\n    return importlib.import_module(".".join(parts))\n',
      6,
      5,
    ],
    [
      'js-array-push-join',
      'javascript',
      "function h(req) {\n  const parts = ['.', 'plugins'];\n  parts.push(req.query.p);\n  return require(parts.join('/'));\n}",
      4,
      3,
    ],
    [
      'php-array-append',
      'php',
      '<?php\n$parts = [];\n$parts[] = $_GET[\'doc\'];\nyaml_parse(implode("\\n", $parts));',
      4,
      3,
    ],
    [
      'rb-string-shovel',
      'ruby',
      'class C < ApplicationController\n  def show\n    t = "<%= "\n    t << params[:x]\n    ERB.new(t).result\n  end\nend',
      5,
      4,
    ],
    [
      'EVADE rb-array-shovel-then-block',
      'ruby',
      'def show\n  names = []\n  names << params[:m]\n  names.each { |n| require n }\nend',
      4,
      3,
    ],
    [
      'cs-stringbuilder-append',
      'csharp',
      'using System;\nusing System.Text;\nusing System.Web;\npublic class P : System.Web.UI.Page {\n    protected void Page_Load(object s, EventArgs e) {\n        var sb = new StringBuilder("My.Types.");\n        sb.Append(Request.QueryString["t"]);\n        Type.GetType(sb.ToString());\n    }\n}',
      8,
      7,
    ],
    [
      'py-fstring-across-lines',
      'python',
      'import importlib\nfrom flask import request\ndef v():\n    name = request.args[\'m\']\n    path = f"plugins.{name}"\n    return importlib.import_module(path)\n',
      6,
      4,
    ],
    [
      'py-plus-equals-across-lines',
      'python',
      'import importlib\nfrom flask import request\ndef v():\n    mod = "plugins."\n    mod += request.args[\'m\']\n    return importlib.import_module(mod)\n',
      6,
      5,
    ],
    [
      'js-template-literal-across-lines',
      'javascript',
      'function h(req, res) {\n  const name = req.query.p;\n  const p = `./plugins/${name}`;\n  require(p);\n}',
      4,
      2,
    ],
    [
      'java-string-format',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    String c = req.getParameter("c");\n    String n = String.format("com.x.%s", c);\n    Class.forName(n);\n  }\n}',
      6,
      4,
    ],
    [
      'py-django-class-based-view-argument',
      'python',
      'import importlib\nfrom django.views import View\nclass V(View):\n    def get(self, request, mod):\n        return importlib.import_module(mod)\n',
      5,
      4,
    ],
    [
      'py-argparse-arguments',
      'python',
      'import argparse, importlib\np = argparse.ArgumentParser()\np.add_argument("mod")\nargs = p.parse_args()\nimportlib.import_module(args.mod)\n',
      5,
      4,
    ],
    [
      'py-flask-get-data',
      'python',
      'import importlib\nfrom flask import request\ndef v():\n    m = request.get_data(as_text=True)\n    return importlib.import_module(m)\n',
      5,
      4,
    ],
    ['php-filter-input', 'php', "<?php\n$d = filter_input(INPUT_POST, 'doc');\nyaml_parse($d);", 3, 2],
    [
      'php-laravel-request-input',
      'php',
      "<?php\nclass C {\n  public function store(Request $request) {\n    $d = $request->input('doc');\n    return yaml_parse($d);\n  }\n}",
      5,
      4,
    ],
    [
      'EVADE php-symfony-request-query',
      'php',
      "<?php\nclass C {\n  public function store(Request $request) {\n    $d = $request->query->get('doc');\n    return yaml_parse($d);\n  }\n}",
      5,
      4,
    ],
    [
      'java-path-info',
      'java',
      'import javax.servlet.http.*;\npublic class A extends HttpServlet {\n  protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws Exception {\n    String c = req.getPathInfo().substring(1);\n    Class.forName(c);\n  }\n}',
      5,
      4,
    ],
    [
      'java-system-in',
      'java',
      'import java.util.Scanner;\npublic class A {\n  public static void main(String[] a) throws Exception {\n    Scanner s = new Scanner(System.in);\n    String c = s.nextLine();\n    Class.forName(c);\n  }\n}',
      6,
      4,
    ],
    [
      'go-gin-query',
      'go',
      'package main\nimport ("github.com/gin-gonic/gin"; "html/template")\nfunc h(c *gin.Context) {\n\tt := c.Query("t")\n\ttemplate.New("x").Parse(t)\n}',
      5,
      4,
    ],
    [
      'go-mux-vars',
      'go',
      'package main\nimport ("net/http"; "github.com/gorilla/mux"; "text/template")\nfunc h(w http.ResponseWriter, r *http.Request) {\n\tt := mux.Vars(r)["t"]\n\ttemplate.New("x").Parse(t)\n}',
      5,
      4,
    ],
    [
      'py-constructor-argument-to-field',
      'python',
      "import importlib\nfrom flask import request\nclass H:\n    def __init__(self, m):\n        self.mod = m\n    def run(self):\n        return importlib.import_module(self.mod)\ndef v():\n    return H(request.args['m']).run()\n",
      7,
      9,
    ],
    [
      'js-constructor-argument-to-field',
      'javascript',
      "class H {\n  constructor(m) {\n    this.mod = m;\n  }\n  run() {\n    return require(this.mod);\n  }\n}\napp.get('/x', (req, res) => new H(req.query.m).run());",
      6,
      9,
    ],
  ] as Array<[string, string, string, number, number]>)(
    '%s (%s) is critical on the sink line and names the input line',
    async (_name, language, code, sink, source) => {
      const found = (await critical(code, language)).filter((i) => i.line_number === sink);
      expect(found.length, JSON.stringify(await critical(code, language))).toBeGreaterThan(0);
      expect(found.flatMap(inputLines)).toContain(source);
    },
  );
  it.each([
    [
      'SAFE cs-helper-constant',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : Controller {\n    public IActionResult Index(string t) {\n        return Ok(Load("System.String"));\n    }\n    private object Load(string name) {\n        return Type.GetType(name);\n    }\n}',
    ],
    [
      'SAFE cs-static-public-not-action',
      'csharp',
      'using System;\npublic class Util {\n    public static object Go() { return Make("System.Text.StringBuilder"); }\n    public static object Make(string n) => Activator.CreateInstance(Type.GetType(n));\n}',
    ],
    [
      'SAFE cs-private-method-of-controller',
      'csharp',
      'using System;\nusing Microsoft.AspNetCore.Mvc;\npublic class HomeController : Controller {\n    private object Helper(string n) { return Type.GetType(n); }\n    public IActionResult Index() { return Ok(Helper("System.Int32")); }\n}',
    ],
    [
      'SAFE java-field-constant',
      'java',
      'public class A {\n  private String name;\n  void init() { this.name = "java.util.ArrayList"; }\n  Object load() throws Exception {\n    return Class.forName(this.name).newInstance();\n  }\n}',
    ],
    [
      'SAFE py-self-field-constant',
      'python',
      'import importlib\nclass H:\n    def __init__(self):\n        self.mod = "json"\n    def run(self):\n        return importlib.import_module(self.mod)\n',
    ],
    [
      'SAFE js-this-field-constant',
      'javascript',
      "class H {\n  constructor() {\n    this.mod = './plugins/default';\n  }\n  run() {\n    return require(this.mod);\n  }\n}",
    ],
    [
      'SAFE rb-ivar-constant',
      'ruby',
      'class C\n  def set\n    @tpl = "<%= 1 %>"\n  end\n  def show\n    ERB.new(@tpl).result\n  end\nend',
    ],
    [
      'SAFE rb-def-without-parentheses-constant',
      'ruby',
      'class C\n  def show\n    load_it "json"\n  end\n  def load_it name\n    require name\n  end\nend',
    ],
    [
      'SAFE py-lambda-arguments-constant',
      'python',
      "import importlib\nmods = list(map(lambda m:\n    importlib.import_module(m),\n    ['json', 'os']))",
    ],
    [
      'SAFE js-callback-then-constant-delay',
      'javascript',
      "function go(req) {\n  const m = req.query.m;\n  setTimeout(() => {\n    require('./plugins/a');\n  }, 1000);\n}",
    ],
    ['SAFE rb-string-shovel-constants', 'ruby', 'def show\n  t = "<%= 1"\n  t << " %>"\n  ERB.new(t).result\nend'],
    [
      'SAFE java-stringbuilder-constants',
      'java',
      'public class A {\n  Object go() throws Exception {\n    StringBuilder sb = new StringBuilder("com.x.");\n    sb.append("Impl");\n    return Class.forName(sb.toString());\n  }\n}',
    ],
    [
      'SAFE py-list-append-constants',
      'python',
      'import importlib\ndef v():\n    parts = ["plugins"]\n    parts.append("core")\n    return importlib.import_module(".".join(parts))\n',
    ],
    [
      'SAFE php-laravel-constant',
      'php',
      '<?php\nclass C {\n  public function store(Request $request) {\n    $n = $request->input(\'name\');\n    return yaml_parse("a: 1");\n  }\n}',
    ],
    [
      'SAFE go-gin-constant-template',
      'go',
      'package main\nimport ("github.com/gin-gonic/gin"; "html/template")\nfunc h(c *gin.Context) {\n\tt := c.Query("t")\n\ttemplate.New("x").Parse("hello {{.}}")\n\t_ = t\n}',
    ],
    [
      'SAFE java-system-in-constant',
      'java',
      'import java.util.Scanner;\npublic class A {\n  public static void main(String[] a) throws Exception {\n    Scanner s = new Scanner(System.in);\n    String c = s.nextLine();\n    Class.forName("java.util.ArrayList");\n  }\n}',
    ],
    [
      'SAFE py-constructor-constant',
      'python',
      'import importlib\nclass H:\n    def __init__(self, m):\n        self.mod = m\n    def run(self):\n        return importlib.import_module(self.mod)\ndef v():\n    return H("json").run()\n',
    ],
    [
      'SAFE js-constructor-constant',
      'javascript',
      "class H {\n  constructor(m) {\n    this.mod = m;\n  }\n  run() {\n    return require(this.mod);\n  }\n}\nnew H('./plugins/a').run();",
    ],
  ])('%s (%s): the same shape with constants is not critical', async (_name, language, code) => {
    expect(await critical(code, language)).toEqual([]);
  });

  it('the field, Ruby-call, trailing-argument and builder searches stay bounded on adversarial input', () => {
    const n = 3_000;
    const shapes: Array<[string, string, number]> = [
      // 3,000 writes of one field, each from another field: every field is followed once.
      [
        'java',
        `class A {\n${Array.from({ length: n }, (_, i) => `  void s${i}() { this.f${i} = this.f${i + 1}; this.g = this.f${i}; }`).join('\n')}\n  Object l() throws Exception { return Class.forName(this.f0); }\n}\n`,
        n + 2,
      ],
      // 3,000 Ruby bare calls of one method.
      ['ruby', `def go x\n  require x\nend\n${'go y, z\n'.repeat(n)}`, 2],
      // A lambda whose body never closes, with 3,000 lines of brackets after it.
      [
        'python',
        `import importlib\nmods = list(map(lambda m:\n    importlib.import_module(m),\n${'    ((((([[[{\n'.repeat(n)}`,
        3,
      ],
      // 3,000 appends into one list.
      ['python', `import importlib\np = []\n${'p.append(q)\n'.repeat(n)}importlib.import_module(p)\n`, n + 3],
    ];
    for (const [family, src, line] of shapes) {
      const started = performance.now();
      expect(() => inputSources(src, family as 'java', line)).not.toThrow();
      expect(performance.now() - started, family).toBeLessThan(5_000);
    }
  });
});
