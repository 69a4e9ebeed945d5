// Issue 24, session 11 (breadth): the families the new independent suites (RuboCop's Security
// cops, dlint) and the families left from session 10 showed, and item 4 (a call into a known
// execution or deserialisation family that no rule classifies fails closed) in JavaScript, Ruby,
// Go and Bash. Each row has the dangerous shapes and the safe ones beside them.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';

const critical = async (code: string, language: string): Promise<Issue[]> => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[] };
  return (fields.issues ?? []).filter((i) => i.severity === 'critical');
};
const lines = async (code: string, language: string) => (await critical(code, language)).map((i) => i.line_number);

describe('issue 24, session 11: Ruby shapes from RuboCop Security specs', () => {
  it('Kernel#open / IO of a computed path: critical unless its first character is a constant other than `|`', async () => {
    const src = [
      'open "prefix_#{foo}"', // 1 admitted: starts with p
      'open "prefix" + foo', // 2 admitted
      "IO.read('dir/' + params[:f])", // 3 admitted
      'open "#{foo}.txt"', // 4 critical: the interpolation comes first
      'open " #{foo}"', // 5 critical: a space first (fail closed)
      'open "\\x7c#{foo}"', // 6 critical: an escape first
      "open '|' + foo", // 7 critical: a pipe
      'open "p" * 0 + foo', // 8 critical: "p" * 0 is empty
      'open "p" + x ? y : z', // 9 critical: a ternary picks y or z
      'open "p" + x.sub(/p/, "")', // 10 critical: a call with arguments
      'open(("a") + foo)', // 11 critical: not the literal shape
      'URI.open("|#{foo}")', // 12 critical
    ].join('\n');
    expect(await lines(src, 'ruby')).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });
  it('an interpolation of a bare number is constant text: eval "x#{2}" is constant code; anything else is not', async () => {
    expect(await lines('eval "something#{2}"\neval "a#{2.5}b"\n', 'ruby')).toEqual([]);
    expect(await lines('eval "x#{y}"\neval "x#{2}#{y}"\neval "system(#{1})"\neval "`ls #{2}`"\n', 'ruby')).toEqual([
      1, 2, 3, 4,
    ]);
  });
  it('Marshal.load of Marshal.dump (a deep copy) is admitted; anything mixed into the dump is not', async () => {
    expect(
      await lines(
        'Marshal.load(Marshal.dump({}))\n::Marshal.load(::Marshal.dump(x), proc)\nm = Marshal.dump(x)\nMarshal.load(m)\n',
        'ruby',
      ),
    ).toEqual([]);
    expect(
      await lines(
        'Marshal.load(Marshal.dump(x) + params[:y])\nMarshal.load(Marshal.dump(x).sub("a", params[:y]))\nMarshal.restore(params[:x])\nm = Marshal.dump(x)\nm = params[:y] if c\nMarshal.load(m)\n',
        'ruby',
      ),
    ).toEqual([1, 2, 3, 6]);
  });
});

describe('issue 24, session 11: Ruby unsafe reflection (brakeman Remote Code Execution), JS Function via constructor', () => {
  it('constantize, qualified_const_get, method objects and to_sym.to_proc of a computed name are critical; constant names are not', async () => {
    const src = [
      'def f(kind)',
      '  params[:klass].constantize.new', // 2
      '  kind.camelize.safe_constantize', // 3
      '  Module.qualified_const_get(params[:const])', // 4
      '  (params[:klass].to_s).method(params[:method]).(params[:argument])', // 5
      '  User.method("#{User.first.thing}_stuff")', // 6
      '  params[:method].to_sym.to_proc.call(Kernel)', // 7
      "  'Foo'.constantize", // 8
      '  obj.method(:to_s).call', // 9
      '  User.method("find_#{x}")', // 10: a constant prefix no dangerous method has
      'end',
    ].join('\n');
    expect(await lines(src, 'ruby')).toEqual([2, 3, 4, 5, 6, 7]);
  });
  it('JavaScript: x.constructor.constructor(code) of computed code is critical; of constant code it is not', async () => {
    expect(
      await lines(
        "[].constructor.constructor(req.body.code)();\nObject.constructor.constructor('return 1')();\n",
        'javascript',
      ),
    ).toEqual([1]);
  });
});

describe('issue 24, session 11: PHP shapes from Psalm taint tests', () => {
  it('a function, class or callback chosen by request input is critical; a constant, a closure or a parameter is not', async () => {
    const bad = [
      "<?php\n$f = $_GET['f'];\n$f($_GET['a']);\n",
      "<?php\n$_GET['f']($_GET['a']);\n",
      "<?php\n$a = $_GET['a'];\n$b = $_GET['b'];\nnew $a($b);\n",
      "<?php\n$r = new ReflectionClass($_POST['c']);\n$r->newInstance();\n",
      "<?php\n$foo = $_GET['foo'];\nregister_shutdown_function($foo);\n",
      "<?php\nusort($arr, $_GET['cmp']);\n",
      '<?php\n$array = $_GET;\nextract($array);\n',
    ];
    const at = [3, 2, 4, 2, 3, 2, 3];
    for (const [k, code] of bad.entries()) {
      const found = await critical(code, 'php');
      expect(found.length, code).toBe(1);
      expect(found[0].type, code).toBe('dynamic_code_execution');
      expect(found[0].line_number, code).toBe(at[k]);
    }
    const good = [
      '<?php\nfunction f($cb, $arr) { return array_map($cb, $arr); }\n',
      '<?php\nfunction f($cls) { return new $cls(); }\n',
      "<?php\n$cls = 'App\\\\Models\\\\User';\n$u = new $cls();\n",
      "<?php\n$f = 'strtoupper';\necho $f('a');\n",
      "<?php\n$r = new ReflectionClass('Foo');\n$r->newInstance();\n",
      '<?php\nusort($arr, function ($a, $b) { return $a <=> $b; });\n',
      "<?php\nextract(['a' => 1]);\n",
    ];
    for (const code of good) expect(await lines(code, 'php'), code).toEqual([]);
  });
});

describe('issue 24, session 11: families left from session 10', () => {
  it('a page from browser.pages() given code built at run time is critical; a function or constant code is not', async () => {
    const src =
      "async function f(browser, req) {\n  await (await browser.pages())[0].evaluate(`x = '${req.query.t}'`);\n  const [p] = await browser.pages();\n  await p.evaluate('x = ' + req.query.t);\n  await p.evaluate(() => document.title);\n  await p.evaluate('document.title');\n}\n";
    expect(await lines(src, 'javascript')).toEqual([2, 4]);
    // Without pages() in the snippet an unknown receiver's evaluate (an expression parser, XPath) is not this row's.
    expect(await lines('function f(req, parser) {\n  return parser.evaluate(req.query.x);\n}\n', 'javascript')).toEqual(
      [],
    );
  });
  it('jQuery globalEval of computed code is critical; of constant code it is not', async () => {
    expect(
      await lines(
        "function f(req) {\n  $.globalEval(req.query.code);\n  jQuery.globalEval('var a = ' + req.query.code);\n  $.globalEval('var a = 1');\n}\n",
        'javascript',
      ),
    ).toEqual([2, 3]);
  });
  // Session 16: a stream parsed from computed text fails closed too (its documents reach to_ruby
  // through a block or its children, which are not followed); a single parsed tree does not.
  it('YAML.parse_documents (not a Psych method) and a computed parse_stream fail closed; Psych.parse does not', async () => {
    const found = await critical(
      'def f\n  YAML.parse_documents(params[:y]) { |d| d.to_ruby }\n  YAML.parse_stream(params[:y])\n  Psych.parse(params[:y])\n  YAML.dump(x)\n  Psych::Nodes::Scalar.new("a")\nend\n',
      'ruby',
    );
    expect(found.map((i) => i.line_number)).toEqual([2, 3]);
    expect(found[0].description).toMatch(/cannot classify as safe \(fail closed\): YAML\.parse_documents/);
    expect(found[1].description).toMatch(/YAML stream parsed from computed text/);
  });
});

describe('issue 24, session 11, item 4: unclassified calls of a known family fail closed', () => {
  it('Ruby: an unknown YAML / Psych member and Psych visitors fail closed (Marshal, Oj, Open3 already did)', async () => {
    const src =
      'def f\n  Psych.frobnicate(params[:y])\n  Psych::Visitors::ToRuby.create.accept(node)\n  Marshal.frobnicate(params[:y])\n  Oj.frobnicate(params[:y])\n  Open3.frobnicate(params[:y])\n  YAML.safe_load(params[:y])\nend\n';
    const found = await critical(src, 'ruby');
    expect(found.map((i) => i.line_number)).toEqual([2, 3, 4, 5, 6]);
    expect(found.filter((i) => /cannot classify/.test(i.description)).map((i) => i.line_number)).toEqual([2, 3, 4, 5]);
  });
  it('JavaScript: unknown members of child_process, vm and node-serialize fail closed', async () => {
    expect(
      await lines(
        "const cp = require('child_process');\nconst vm = require('vm');\nconst s = require('node-serialize');\ncp.frobnicate(process.argv[2]);\nvm.frobnicate(process.argv[2]);\ns.frobnicate(process.argv[2]);\ns.serialize({});\n",
        'javascript',
      ),
    ).toEqual([4, 5, 6]);
  });
  it('Go: an unknown member of os/exec fails closed; exec.LookPath does not', async () => {
    expect(
      await lines(
        'package main\nimport "os/exec"\nfunc f(s string) {\n  exec.Frobnicate(s)\n  exec.LookPath("ls")\n}\n',
        'go',
      ),
    ).toEqual([4]);
  });
  it('Go: a parameter typed *exec.Cmd is the process family (Run, Start, an unknown method); String does not run it', async () => {
    const found = await critical(
      'package main\nimport "os/exec"\nfunc f(c *exec.Cmd, d exec.Cmd) error {\n  _ = c.String()\n  c.Frobnicate()\n  return d.Run()\n}\nfunc g(s string) error { return s.Run() }\n',
      'go',
    );
    expect(found.map((i) => i.line_number)).toEqual([5, 6]);
  });
  it('Go: plugin.Open of a computed path is critical; of a constant path it is not', async () => {
    expect(
      await lines(
        'package main\nimport "plugin"\nfunc f(p string) {\n  plugin.Open(p)\n  plugin.Open("./x.so")\n}\n',
        'go',
      ),
    ).toEqual([4]);
  });
  it('Bash: a shell or interpreter given computed code (-c / -e / -r) is critical; constant code, a script path and errexit are not', async () => {
    const src = [
      'bash -c "$1"', // 1
      'sh -xc "$cmd"', // 2
      'python3 -c "$CODE"', // 3
      'perl -e "print $1"', // 4
      'sudo -u bob bash -c "$1"', // 5: through a wrapper
      'node -e "$js"', // 6
      'php -r "$p"', // 7
      'xargs -I{} sh -c "$cmd {}"', // 8
      "bash -c 'echo hi'", // 9 constant
      'bash -x ./script.sh "$1"', // 10 a script with an argument
      'sh -e "$script"', // 11 errexit: -e is not code for a shell
      'python3 -m "$mod"', // 12 not a code option
    ].join('\n');
    expect(await lines(src, 'bash')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });
});

describe('issue 24, session 11: linear time on the new shapes', () => {
  it('80,000 characters of open / Marshal / interpreter shapes scan in bounded time', async () => {
    const rb = 'open "p" + x ? y : z\nMarshal.load(Marshal.dump(x) + y)\n'.repeat(1500);
    const sh = 'bash -c "$1" "$(printf %s "$x")"\n'.repeat(2500);
    const t0 = Date.now();
    expect((await critical(rb, 'ruby')).length).toBeGreaterThan(0);
    expect((await critical(sh, 'bash')).length).toBe(2500);
    expect(Date.now() - t0).toBeLessThan(30_000);
  });
});
