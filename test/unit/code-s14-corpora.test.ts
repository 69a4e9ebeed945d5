// Issue 24, session 14 (new independent corpora): the families semgrep-rules' own tests showed the
// scanner missing — Python sub-interpreters, codeop/code compile_command, logging.config.listen,
// a multiprocessing connection's recv, Airflow's BashOperator; PHP assert() of a variable and
// mb_ereg_replace with computed options; Struts' OGNL reflection providers and text parser; C#
// fastJSON, FsPickler and .NET Remoting's TypeFilterLevel.Full; and from CodeQL's JavaScript
// CommandInjection tests, process packages (exec, foreground-child, ssh2, opener's command) and
// promisifiers that hand back child_process's functions; a global called by a computed name; Ruby's Shell class and JBoss Seam's Log
// (EL in the message). Each
// dangerous row has its evasion variants (aliases, another spelling, a value through a variable)
// and the safe shapes beside it. Written on our own snippets, never a suite's text.
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

describe('issue 24, session 14: families the new corpora showed missing', () => {
  it.each([
    [
      'py-subinterp',
      'python',
      'import _xxsubinterpreters\ndef f(src):\n    _xxsubinterpreters.run_string(_xxsubinterpreters.create(), src)',
      3,
      'dynamic_code_execution',
    ],
    [
      'EVADE py-subinterp-alias',
      'python',
      'import _interpreters as ip\ndef f(src):\n    ip.run_string(ip.create(), src)',
      3,
      'dynamic_code_execution',
    ],
    [
      'EVADE py-subinterp-from',
      'python',
      'from _interpreters import exec as run\ndef f(src):\n    run(1, src)',
      3,
      'dynamic_code_execution',
    ],
    [
      'py-testcapi',
      'python',
      'import _testcapi\ndef f(p):\n    _testcapi.run_in_subinterp(p)',
      3,
      'dynamic_code_execution',
    ],
    [
      'EVADE py-test-support',
      'python',
      'from test import support\ndef f(p):\n    support.run_in_subinterp(p)',
      3,
      'dynamic_code_execution',
    ],
    [
      'py-compile-command',
      'python',
      'import code\ndef f(p):\n    c = code.compile_command(p)',
      3,
      'dynamic_code_execution',
    ],
    [
      'EVADE py-codeop',
      'python',
      'from codeop import compile_command as cc\ndef f(p):\n    cc(p)',
      3,
      'dynamic_code_execution',
    ],
    [
      'py-logging-listen',
      'python',
      'import logging.config\nt = logging.config.listen(9999)',
      2,
      'dynamic_code_execution',
    ],
    [
      'EVADE py-logging-listen-from',
      'python',
      'from logging.config import listen as l\nt = l()',
      2,
      'dynamic_code_execution',
    ],
    [
      'py-mp-recv',
      'python',
      "import multiprocessing.connection\nc = multiprocessing.connection.Client(('h', 1))\nx = c.recv()",
      3,
      'unsafe_deserialization',
    ],
    [
      'EVADE py-mp-recv-chained',
      'python',
      "from multiprocessing.connection import Client\nx = Client(('h', 1)).recv()",
      2,
      'unsafe_deserialization',
    ],
    [
      'EVADE py-mp-listener',
      'python',
      "from multiprocessing.connection import Listener\nl = Listener(('h', 1))\nx = l.accept().recv()",
      3,
      'unsafe_deserialization',
    ],
    [
      'py-airflow-bash',
      'python',
      'from airflow.operators.bash import BashOperator\nt = BashOperator(task_id="t", bash_command="echo " + msg)',
      2,
      'shell_execution',
    ],
    [
      'EVADE py-airflow-bash-legacy',
      'python',
      'from airflow.operators import bash_operator as b\nt = b.BashOperator(task_id="t", bash_command="date")',
      2,
      'shell_execution',
    ],
    ['php-assert-var', 'php', '<?php\nassert($code);', 2, 'dynamic_code_execution'],
    ['EVADE php-assert-array', 'php', "<?php\nassert($_POST['c']);", 2, 'dynamic_code_execution'],
    ['EVADE php-assert-prop', 'php', '<?php\nassert($o->code);', 2, 'dynamic_code_execution'],
    ['php-mb-ereg-options', 'php', '<?php\nmb_ereg_replace($p, $r, $s, $opts);', 2, 'dynamic_code_execution'],
    [
      'java-ognl-provider',
      'java',
      'import com.opensymphony.xwork2.ognl.OgnlReflectionProvider;\nclass A {\n  void f(String n, OgnlReflectionProvider p, Class t) throws Exception {\n    p.getGetMethod(t, n);\n  }\n}',
      4,
      'dynamic_code_execution',
    ],
    [
      'EVADE java-reflection-provider-no-import',
      'java',
      'class A {\n  void f(String e, ReflectionProvider p) throws Exception {\n    p.getValue(e, null, null);\n  }\n}',
      3,
      'dynamic_code_execution',
    ],
    [
      'java-ognl-text-parser',
      'java',
      'class A {\n  void f(String e, OgnlTextParser p) {\n    p.evaluate(e);\n  }\n}',
      3,
      'dynamic_code_execution',
    ],
    [
      'cs-fastjson',
      'csharp',
      'using fastJSON;\nclass A {\n  object F(string json) {\n    return JSON.ToObject(json);\n  }\n}',
      4,
      'unsafe_deserialization',
    ],
    [
      'cs-fspickler',
      'csharp',
      'using MBrace.FsPickler.Json;\nclass A {\n  object F(System.IO.Stream s) {\n    var p = FsPickler.CreateJsonSerializer();\n    return p.Deserialize<object>(s);\n  }\n}',
      5,
      'unsafe_deserialization',
    ],
    [
      'cs-typefilterlevel-setter',
      'csharp',
      'class A {\n  void F(BinaryServerFormatterSinkProvider p) {\n    p.TypeFilterLevel = System.Runtime.Serialization.Formatters.TypeFilterLevel.Full;\n  }\n}',
      3,
      'unsafe_deserialization',
    ],
    [
      'EVADE cs-typefilterlevel-initializer',
      'csharp',
      'class A {\n  object F() {\n    return new BinaryServerFormatterSinkProvider { TypeFilterLevel = TypeFilterLevel.Full };\n  }\n}',
      3,
      'unsafe_deserialization',
    ],
    ['js-exec-package', 'javascript', "const run = require('exec');\nrun(process.argv[2]);", 2, 'shell_execution'],
    [
      'EVADE js-foreground-child-inline',
      'javascript',
      "require('foreground-child')(process.argv[2]);",
      1,
      'shell_execution',
    ],
    [
      'js-ssh2-exec',
      'javascript',
      "const { Client } = require('ssh2');\nconst c = new Client();\nc.exec(cmd, () => {});",
      3,
      'shell_execution',
    ],
    [
      'js-opener-command',
      'javascript',
      "const opener = require('opener');\nopener('x', { command: cmd });",
      2,
      'shell_execution',
    ],
    [
      'EVADE js-promisify-all',
      'javascript',
      "const cp = require('child_process');\nconst { promisifyAll } = require('@google-cloud/promisify');\nconst p = promisifyAll(cp);\np.exec(cmd);",
      4,
      'shell_execution',
    ],
    [
      'EVADE js-es6-promisify',
      'javascript',
      "const es6Promisify = require('es6-promisify');\nconst run = es6Promisify(require('child_process').exec);\nrun(cmd);",
      3,
      'shell_execution',
    ],
    [
      'EVADE js-thenify-all',
      'javascript',
      "const thenifyAll = require('thenify-all');\nconst cp = thenifyAll(require('child_process'), {}, ['exec']);\ncp.exec(cmd);",
      3,
      'shell_execution',
    ],
    ['rb-shell-class', 'ruby', 'Shell.cat(params[:f])', 1, 'shell_execution'],
    ['EVADE rb-shell-instance', 'ruby', 'sh = Shell.new\nsh.system(params[:c])', 2, 'shell_execution'],
    ['EVADE rb-shell-cd-instance', 'ruby', 'sh = Shell.cd("/tmp")\nsh.open(params[:f])', 2, 'shell_execution'],
    [
      'java-seam-log',
      'java',
      'import org.jboss.seam.log.Log;\nclass A {\n  Log log;\n  void f(String u) {\n    log.info("user " + u);\n  }\n}',
      5,
      'dynamic_code_execution',
    ],
    [
      'java-constraint-template',
      'java',
      'import javax.validation.ConstraintValidatorContext;\nclass V {\n  boolean ok(String v, ConstraintValidatorContext c) {\n    c.buildConstraintViolationWithTemplate("bad: " + v).addConstraintViolation();\n    return false;\n  }\n}',
      4,
      'dynamic_code_execution',
    ],
    [
      'js-window-computed',
      'javascript',
      'const m = JSON.parse(data);\nwindow[m.name](m.arg);',
      2,
      'dynamic_code_execution',
    ],
    ['EVADE js-globalthis-alias', 'javascript', 'const f = globalThis[name];\nf(arg);', 2, 'dynamic_code_execution'],
    ['EVADE js-self-computed', 'javascript', 'self[a + b](arg);', 1, 'dynamic_code_execution'],
  ])('%s (%s) is critical at line %i', async (_name, language, code, line, type) => {
    const found = await critical(code, language);
    expect(
      found.some((i) => i.line_number === line && i.type === type),
      JSON.stringify(found),
    ).toBe(true);
  });

  it.each([
    [
      'py-subinterp-constant',
      'python',
      'import _xxsubinterpreters\n_xxsubinterpreters.run_string(_xxsubinterpreters.create(), "print(1)")',
    ],
    ['py-logging-listen-verify', 'python', 'from logging.config import listen\nt = listen(9999, verify=check)'],
    ['py-logging-listen-verify-positional', 'python', 'from logging.config import listen\nt = listen(9999, check)'],
    ['py-recv-other', 'python', 'import socket\ns = socket.socket()\nx = s.recv(10)'],
    ['php-assert-comparison', 'php', '<?php\nassert($n > 1);'],
    ['php-assert-call', 'php', '<?php\nassert(is_int($n));'],
    ['php-mb-ereg-constant-options', 'php', '<?php\nmb_ereg_replace($p, $r, $s, "msr");'],
    ['php-mb-ereg-no-options', 'php', '<?php\nmb_ereg_replace($p, $r, $s);'],
    [
      'java-ognl-provider-constant',
      'java',
      'class A {\n  void f(OgnlReflectionProvider p, Class t) throws Exception {\n    p.getField(t, "name");\n  }\n}',
    ],
    [
      'cs-fastjson-constant',
      'csharp',
      'using fastJSON;\nclass A {\n  object F() {\n    return JSON.ToObject("{}");\n  }\n}',
    ],
    [
      'cs-typefilterlevel-low',
      'csharp',
      'class A {\n  void F(BinaryServerFormatterSinkProvider p) {\n    p.TypeFilterLevel = TypeFilterLevel.Low;\n  }\n}',
    ],
    ['js-opener-url', 'javascript', "const opener = require('opener');\nopener('http://example.com/' + user);"],
    [
      'js-promisify-fs',
      'javascript',
      "const { promisify } = require('es6-promisify');\nconst read = promisify(require('fs').readFile);\nread(name);",
    ],
    [
      'java-seam-log-params',
      'java',
      'import org.jboss.seam.log.Log;\nclass A {\n  Log log;\n  void f(String u) {\n    log.info("user #0", u);\n  }\n}',
    ],
    [
      'java-other-log',
      'java',
      'import org.slf4j.Logger;\nclass A {\n  Logger log;\n  void f(String u) {\n    log.info("user " + u);\n  }\n}',
    ],
    [
      'java-constraint-template-constant',
      'java',
      'import javax.validation.ConstraintValidatorContext;\nclass V {\n  boolean ok(String v, ConstraintValidatorContext c) {\n    c.buildConstraintViolationWithTemplate("{my.message}").addConstraintViolation();\n    return false;\n  }\n}',
    ],
    ['js-window-constant', 'javascript', "window['alert'](msg);"],
    ['js-own-object-computed', 'javascript', 'const api = { a() {}, b() {} };\napi[name](arg);'],
  ])('%s (%s) has no critical finding', async (_name, language, code) => {
    expect(await critical(code, language)).toEqual([]);
  });
});
