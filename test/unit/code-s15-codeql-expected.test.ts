// Issue 24, session 15: CodeQL's query tests whose expectations live in `.expected` files. The
// labels are derived mechanically from the `#select` rows' locations (bench/code-suites-manifest.ts
// expectedAlertLines); a row that does not fit the stored test file (another version of it) must
// stop the build rather than label the wrong line. Written on our own snippets, never a suite's text.
import { describe, expect, it } from 'vitest';
import { expectedAlertLines } from '../../bench/code-suites-manifest.js';
import { scanCode, type Issue } from '../../engines/code/index.js';

const TEST = ['class T', '  def run(x)', '    cmd = "ls #{x}"', '    system(cmd)', '  end', 'end', ''].join('\n');

describe('issue 24, session 15: labels from a CodeQL .expected file', () => {
  it('labels the line of each #select row, not the edges or nodes', () => {
    const expected = [
      'edges',
      '| t.rb:2:10:2:10 | x | t.rb:3:11:3:18 | cmd |',
      'nodes',
      '| t.rb:3:5:3:7 | cmd | semmle.label | cmd |',
      'subpaths',
      '#select',
      '| t.rb:4:12:4:14 | cmd | t.rb:2:10:2:10 | x | t.rb:4:12:4:14 | cmd | This command depends on a $@. | t.rb:2:10:2:10 | x | user input |',
      '',
    ].join('\n');
    expect(expectedAlertLines(expected, 'ql/test/cwe-078/t.rb', TEST)).toEqual([4]);
  });

  it('reads a problem query file (no section headers) and a location relative to the test folder', () => {
    const expected =
      '| impl/t.rb:3:11:3:18 | "ls #{x}" | Built from input. |\n| impl/t.rb:4:5:4:15 | call to system | Runs it. |\n';
    expect(expectedAlertLines(expected, 'ql/test/cwe-078/impl/t.rb', TEST)).toEqual([3, 4]);
  });

  it('skips rows of another test file of the same folder (and one whose name only ends like it)', () => {
    const expected = '#select\n| other.rb:4:12:4:14 | cmd | x |\n| xt.rb:4:12:4:14 | cmd | x |\n';
    expect(expectedAlertLines(expected, 'ql/test/t.rb', TEST)).toEqual([]);
  });

  it.each([
    ['a line past the end', '#select\n| t.rb:40:1:40:3 | cmd | x |\n'],
    ['columns past the line', '#select\n| t.rb:4:12:4:90 | cmd | x |\n'],
    ['an identifier that is not at those columns', '#select\n| t.rb:4:5:4:7 | cmd | x |\n'],
  ])('refuses %s (the .expected is of another version of the test)', (_name, expected) => {
    expect(() => expectedAlertLines(expected, 'ql/test/t.rb', TEST)).toThrow(/another version/);
  });
});

const critical = async (code: string, language: string): Promise<Issue[]> => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string };
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return (fields.issues ?? []).filter((i) => i.severity === 'critical');
};

// The shapes the new files bring (all found today): a guard for each, with a variant.
describe('issue 24, session 15: the families of the .expected suites stay blocked', () => {
  it.each([
    ['ruby IO.foreach of a request path', 'ruby', 'def a\n  f = params[:f]\n  IO.foreach(f) { |l| puts l }\nend', 3],
    ['ruby IO.binwrite through an alias', 'ruby', 'def a\n  p = request.params["p"]\n  IO.binwrite(p, "x")\nend', 3],
    ['ruby URI.open of a request value', 'ruby', 'def a\n  URI.open(params[:u])\nend', 2],
    ['ruby Oj.load in object mode', 'ruby', 'def a\n  d = params[:d]\n  Oj.load(d, mode: :object)\nend', 3],
    [
      'python marshal.loads of a request arg',
      'python',
      'import marshal\ndef a(request):\n    v = request.args.get("v")\n    return marshal.loads(v)\n',
      4,
    ],
    [
      'java ProcessBuilder of a list built from input',
      'java',
      'class A { void a(String x) throws Exception {\n  java.util.List<String> c = new java.util.ArrayList<>();\n  c.add("sh"); c.add(x);\n  new ProcessBuilder(c).start();\n} }',
      4,
    ],
    [
      'go exec.Command of a stored value',
      'go',
      'package main\nimport "os/exec"\nfunc r(name string) {\n\texec.Command(name).Run()\n}\n',
      4,
    ],
  ])('%s', async (_name, language, code, line) => {
    const found = await critical(code, language);
    expect(found.map((f) => f.line_number)).toContain(line);
  });
});

// The family the .expected suites revealed: a sink in library code whose argument is a value
// built from the function's own parameters (CodeQL's "library input"): the finding names the
// line that builds it, so the flow is shown with both lines. Annotation only: never admits.
const finding = async (code: string, language: string, line: number): Promise<Issue> => {
  const found = (await critical(code, language)).find((f) => f.line_number === line);
  expect(found, code).toBeDefined();
  return found!;
};
describe('issue 24, session 15: a sink fed by a value built from the function parameters names that line', () => {
  it.each([
    [
      'ruby splat of a list built from a parameter',
      'ruby',
      'class G\n  def go(remote)\n    list = ["clone", remote]\n    Open3.capture3("git", *list)\n  end\nend',
      4,
      3,
    ],
    [
      'ruby: through a helper called with the built list',
      'ruby',
      'class G\n  def go(remote)\n    list = ["clone", remote]\n    run_it(list)\n  end\nend\ndef run_it(list)\n  Open3.capture3("git", *list)\nend',
      8,
      3,
    ],
    [
      'EVADE ruby: helper called without parentheses',
      'ruby',
      'class G\n  def go(remote)\n    list = ["clone", remote]\n    run_it list\n  end\nend\ndef run_it(list)\n  system("git", *list)\nend',
      8,
      3,
    ],
    [
      'python: command string built from a parameter',
      'python',
      'import subprocess\ndef fetch(url):\n    cmd = "curl " + url\n    subprocess.call(cmd, shell=True)\n',
      4,
      3,
    ],
    [
      'javascript: code built from a parameter',
      'javascript',
      'function calc(expr) {\n  const src = "return " + expr;\n  return eval(src);\n}',
      3,
      2,
    ],
  ])('%s', async (_name, language, code, sink, built) => {
    const f = await finding(code, language, sink);
    expect(f.description).toMatch(
      new RegExp(`argument built from parameters on lines? (?:\\d+, )*${built}(?:, \\d+)*$`),
    );
  });

  it.each([
    [
      'the value is a constant',
      'ruby',
      'class G\n  def go(remote)\n    list = ["clone", "x"]\n    Open3.capture3("git", *list)\n  end\nend',
      4,
    ],
    [
      "another function's parameter of the same name",
      'ruby',
      'def a(remote)\n  puts remote\nend\ndef b\n  list = ["clone", remote]\n  system("git", *list)\nend',
      6,
    ],
    [
      'a helper called with a constant',
      'ruby',
      'def go(remote)\n  run_it(["x"])\nend\ndef run_it(list)\n  system("git", *list)\nend',
      5,
    ],
  ])('no "built from parameters" line when %s (the finding stays)', async (_name, language, code, sink) => {
    const f = await finding(code, language, sink);
    expect(f.description).not.toMatch(/built from parameters/);
  });

  it('request input still wins: the input line is named, not the parameter line', async () => {
    const f = await finding(
      'def go(remote)\n  x = params[:r]\n  list = ["clone", x, remote]\n  system("git", *list)\nend',
      'ruby',
      4,
    );
    expect(f.description).toMatch(/input from lines? .*\b2\b/);
    expect(f.description).not.toMatch(/built from parameters/);
  });
});
