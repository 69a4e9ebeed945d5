// Issue 24, session 15 (more independent corpora): the families semgrep-rules' tests still showed
// missing outside Java and C# — an AWS Lambda handler's event read by index (`event['x']`) as
// request input; computed text written to a started command's standard input (Go
// `cmd.StdinPipe()`, including the two-result `w, err := cmd.StdinPipe()` binding); WordPress's
// maybe_unserialize; a Ruby VM instruction sequence's own `eval`; Rails cookies read with Marshal
// (`cookies_serializer = :marshal` / `:hybrid`); and a Python source line
// reported with its sink when the code string is a triple-quoted string formatted with input
// (the label on the source line). Each row has its evasion variants and the safe shapes beside
// it. Written on our own snippets, never a suite's text.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';

const scan = async (code: string, language: string) => {
  const out = await scanCode(code, language);
  const fields = out.developerFields as { issues?: Issue[]; constraint_id?: string; is_valid?: boolean };
  // A row that does not parse would pass every "no finding" check: each row must parse.
  expect(fields.constraint_id, code).not.toBe('code_verifier.does_not_parse_as_language');
  return fields;
};
const critical = async (code: string, language: string): Promise<Issue[]> =>
  ((await scan(code, language)).issues ?? []).filter((i) => i.severity === 'critical');

const GO_SHELL = (body: string) =>
  `package main\n\nimport "os/exec"\n\nfunc f(p string) {\n\tcmd := exec.Command("sh")\n${body}\n}\n`;

describe('issue 24, session 15: families the new corpora showed missing', () => {
  it.each([
    [
      'js-lambda-event-index',
      'javascript',
      "const vm = require('vm');\nexports.handler = async (event) => {\n  const box = { v: event['q'] };\n  vm.runInNewContext('v + 1', box);\n};",
      4,
      'dynamic_code_execution',
    ],
    [
      'EVADE js-lambda-event-double-quote',
      'javascript',
      'const vm = require("vm");\nmodule.exports.handler = (event, ctx) => {\n  const q = event["query"];\n  return vm.runInNewContext("q.length", { q });\n};',
      4,
      'dynamic_code_execution',
    ],
    [
      'EVADE js-lambda-event-headers',
      'javascript',
      "const vm = require('vm');\nexport const handler = async (event) => {\n  const h = event.headers;\n  vm.runInNewContext('1', { h });\n};",
      4,
      'dynamic_code_execution',
    ],
    [
      'EVADE js-lambda-event-spaced',
      'javascript',
      "const cp = require('child_process');\nexports.handler = async (event) => {\n  cp.exec('ls ' + event [ 'dir' ]);\n};",
      3,
      'shell_execution',
    ],
    ['go-stdin-two-results', 'go', GO_SHELL('\tw, _ := cmd.StdinPipe()\n\tw.Write([]byte(p))'), 8, 'shell_execution'],
    [
      'EVADE go-stdin-writestring',
      'go',
      GO_SHELL('\tw, err := cmd.StdinPipe()\n\tif err != nil {\n\t\treturn\n\t}\n\tw.WriteString(p + "\\n")'),
      11,
      'shell_execution',
    ],
    ['EVADE go-stdin-chained', 'go', GO_SHELL('\tcmd.StdinPipe().Write([]byte("x " + p))'), 7, 'shell_execution'],
    [
      'EVADE go-stdin-command-context',
      'go',
      'package main\n\nimport (\n\t"context"\n\t"os/exec"\n)\n\nfunc f(ctx context.Context, p []byte) {\n\tc := exec.CommandContext(ctx, "bash")\n\tin, _ := c.StdinPipe()\n\tin.Write(p)\n}\n',
      11,
      'shell_execution',
    ],
    ['php-maybe-unserialize', 'php', '<?php\n$o = maybe_unserialize($row->options);', 2, 'unsafe_deserialization'],
    [
      'EVADE php-maybe-unserialize-options-ignored',
      'php',
      '<?php\n$o = maybe_unserialize($v, ["allowed_classes" => false]);',
      2,
      'unsafe_deserialization',
    ],
    [
      'EVADE php-maybe-unserialize-decoded',
      'php',
      '<?php\n$o = maybe_unserialize(base64_decode($_COOKIE["s"]));',
      2,
      'unsafe_deserialization',
    ],
    ['rb-iseq-eval', 'ruby', 'seq = RubyVM::InstructionSequence.compile(src)\nseq.eval', 2, 'dynamic_code_execution'],
    [
      'EVADE rb-iseq-binary-eval',
      'ruby',
      'seq = RubyVM::InstructionSequence.load_from_binary(blob)\nputs seq.eval',
      2,
      'dynamic_code_execution',
    ],
    [
      'EVADE rb-iseq-chained',
      'ruby',
      'RubyVM::InstructionSequence.compile_file(path).eval',
      1,
      'dynamic_code_execution',
    ],
    [
      'rb-cookies-marshal',
      'ruby',
      'Rails.application.config.action_dispatch.cookies_serializer = :marshal',
      1,
      'unsafe_deserialization',
    ],
    [
      'EVADE rb-cookies-hybrid-in-block',
      'ruby',
      'Rails.application.configure do\n  config.action_dispatch.cookies_serializer = :hybrid\nend',
      2,
      'unsafe_deserialization',
    ],
    [
      'EVADE rb-cookies-string',
      'ruby',
      "config.action_dispatch.cookies_serializer = 'marshal'",
      1,
      'unsafe_deserialization',
    ],
    [
      'EVADE rb-cookies-computed',
      'ruby',
      'mode = ENV["SER"]\nconfig.action_dispatch.cookies_serializer = mode',
      2,
      'unsafe_deserialization',
    ],
  ])('%s (%s) is critical at its line', async (_name, language, code, line, type) => {
    const found = await critical(code, language);
    expect(
      found.some((i) => i.line_number === line && i.type === type),
      JSON.stringify(found),
    ).toBe(true);
  });

  // The flow is reported with both ends: the sink's finding names the line where input entered.
  it.each([
    [
      'py-triple-quoted-percent',
      'def view(request):\n    m = request.POST.get("m")\n    src = """\n    print(%s)\n    """ % m\n    eval(src)',
      6,
      /input from line 2\b/,
    ],
    [
      'EVADE py-triple-single-format',
      "def view(request):\n    m = request.GET['m']\n    log(m)\n    src = '''\n    show({})\n    '''.format(m)\n    exec(src)",
      7,
      /input from line 2\b/,
    ],
    [
      'EVADE py-triple-quote-parens-inside',
      'def view(request):\n    m = request.POST.get("m")\n    src = """\n    f((1, 2\n    """ + m\n    eval(src)',
      6,
      /input from line 2\b/,
    ],
  ])('%s: the eval finding names the input line', async (_name, code, line, from) => {
    const found = await critical(code, 'python');
    const at = found.find((i) => i.line_number === line && i.type === 'dynamic_code_execution');
    expect(at?.description, JSON.stringify(found)).toMatch(from);
  });

  it.each([
    [
      'js-dom-event-index',
      'javascript',
      "document.addEventListener('click', (event) => {\n  const t = event['type'];\n  console.log(t);\n});",
    ],
    [
      'js-lambda-constant-context',
      'javascript',
      "const vm = require('vm');\nexports.handler = async (event) => {\n  return vm.runInNewContext('a + 1', { a: 1 });\n};",
    ],
    [
      'go-two-results-template-constant',
      'go',
      'package main\n\nimport "text/template"\n\nfunc f() {\n\tt, err := template.New("x").Parse("{{.}}")\n\t_ = t\n\t_ = err\n}\n',
    ],
    [
      'go-pipe-to-other-writer',
      'go',
      'package main\n\nimport "os"\n\nfunc f(p string) {\n\tw, _ := os.Create("/tmp/out")\n\tw.Write([]byte(p))\n}\n',
    ],
    ['php-serialize-side', 'php', '<?php\n$s = maybe_serialize($data);'],
    ['rb-other-eval-method', 'ruby', 'calc = Calculator.new\ncalc.eval'],
    ['rb-cookies-json', 'ruby', 'Rails.application.config.action_dispatch.cookies_serializer = :json'],
    ['rb-cookies-message-pack', 'ruby', 'config.action_dispatch.cookies_serializer = :message_pack'],
    ['rb-other-serializer-setting', 'ruby', 'config.active_job.serializer = :marshal'],
    [
      'py-triple-quoted-constant',
      'python',
      'def view(request):\n    m = request.POST.get("m")\n    src = """\n    print(1)\n    """\n    log(m)',
    ],
  ])('%s (%s) has no critical finding', async (_name, language, code) => {
    expect(await critical(code, language)).toEqual([]);
  });

  // A constant script written to the pipe is no finding at the Write (the Command has its own row).
  it('go: a constant []byte script written to a shell stdin has no finding at the write', async () => {
    const found = await critical(GO_SHELL('\tw, _ := cmd.StdinPipe()\n\tw.Write([]byte("exit" + "\\n"))'), 'go');
    expect(found.map((i) => i.line_number)).toEqual([6]);
  });
});
