// Issue 24 (code scan), session 14, black-box rows for the families the new independent corpora
// (semgrep-rules' tests, CodeQL's JavaScript CommandInjection tests) showed missing: a Python
// sub-interpreter given computed code, logging.config.listen, a multiprocessing connection's
// recv, Airflow's BashOperator; PHP assert() of a variable; Struts' OGNL reflection provider and
// JBoss Seam's Log; a Bean Validation message template built at run time; Ruby's Shell class;
// C# fastJSON and TypeFilterLevel.Full; JavaScript process packages, SSH exec and a promisified
// child_process. The same shapes with constants or safe options are admitted; bad input refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';
import { expectBlockedAt, expectAdmitted } from './code-verdicts.js';

describe('POST /verify/code: families from the new corpora (issue 24, session 14)', () => {
  let t: Member;
  const verify = (body: unknown) => post('/verify/code', body, { 'x-api-key': t.key });
  beforeAll(async () => {
    t = await newTenant();
  });

  it.each([
    [
      'python',
      'py-subinterp',
      'import _xxsubinterpreters\ndef f(src):\n    _xxsubinterpreters.run_string(_xxsubinterpreters.create(), src)',
      3,
      'dynamic_code_execution',
      /sub-interpreter/,
    ],
    [
      'python',
      'py-logging-listen',
      'from logging.config import listen\nt = listen(9999)',
      2,
      'dynamic_code_execution',
      /logging\.config\.listen/,
    ],
    [
      'python',
      'py-mp-recv',
      "from multiprocessing.connection import Client\nx = Client(('h', 1)).recv()",
      2,
      'unsafe_deserialization',
      /unpickles/,
    ],
    [
      'python',
      'py-airflow-bash',
      'from airflow.operators.bash import BashOperator\nt = BashOperator(task_id="t", bash_command="echo " + msg)',
      2,
      'shell_execution',
      /BashOperator/,
    ],
    ['php', 'php-assert-var', "<?php\nassert($_POST['c']);", 2, 'dynamic_code_execution', /assert/],
    [
      'java',
      'java-ognl-provider',
      'class A {\n  void f(String n, OgnlReflectionProvider p, Class t) throws Exception {\n    p.getGetMethod(t, n);\n  }\n}',
      3,
      'dynamic_code_execution',
      /OGNL/,
    ],
    [
      'csharp',
      'cs-fastjson',
      'using fastJSON;\nclass A {\n  object F(string json) {\n    return JSON.ToObject(json);\n  }\n}',
      4,
      'unsafe_deserialization',
      /fastJSON/,
    ],
    [
      'csharp',
      'cs-typefilterlevel',
      'class A {\n  object F() {\n    return new BinaryServerFormatterSinkProvider { TypeFilterLevel = TypeFilterLevel.Full };\n  }\n}',
      3,
      'unsafe_deserialization',
      /TypeFilterLevel/,
    ],
    [
      'javascript',
      'js-foreground-child',
      "require('foreground-child')(process.argv[2]);",
      1,
      'shell_execution',
      undefined,
    ],
    [
      'javascript',
      'js-ssh2-exec',
      "const { Client } = require('ssh2');\nconst c = new Client();\nc.exec(cmd, () => {});",
      3,
      'shell_execution',
      /SSH/,
    ],
    [
      'javascript',
      'EVADE js-promisify-all',
      "const cp = require('child_process');\nconst { promisifyAll } = require('@google-cloud/promisify');\nconst p = promisifyAll(cp);\np.exec(cmd);",
      4,
      'shell_execution',
      undefined,
    ],
    ['ruby', 'rb-shell-instance', 'sh = Shell.new\nsh.system(params[:c])', 2, 'shell_execution', /Shell class/],
    [
      'java',
      'java-seam-log',
      'import org.jboss.seam.log.Log;\nclass A {\n  Log log;\n  void f(String u) {\n    log.info("user " + u);\n  }\n}',
      5,
      'dynamic_code_execution',
      /Seam/,
    ],
    [
      'java',
      'java-constraint-template',
      'import javax.validation.ConstraintValidatorContext;\nclass V {\n  boolean ok(String v, ConstraintValidatorContext c) {\n    c.buildConstraintViolationWithTemplate("bad: " + v).addConstraintViolation();\n    return false;\n  }\n}',
      4,
      'dynamic_code_execution',
      /Bean Validation/,
    ],
    [
      'javascript',
      'js-window-computed',
      'const m = JSON.parse(data);\nwindow[m.name](m.arg);',
      2,
      'dynamic_code_execution',
      /computed name/,
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
      'python',
      'a sub-interpreter given constant code',
      'import _xxsubinterpreters\n_xxsubinterpreters.run_string(_xxsubinterpreters.create(), "print(1)")',
    ],
    [
      'python',
      'logging.config.listen with verify=',
      'from logging.config import listen\nt = listen(9999, verify=check)',
    ],
    ['php', 'assert() of a comparison', '<?php\nassert($n > 1);'],
    [
      'java',
      'a Seam log message with positional parameters',
      'import org.jboss.seam.log.Log;\nclass A {\n  Log log;\n  void f(String u) {\n    log.info("user #0", u);\n  }\n}',
    ],
    [
      'csharp',
      'TypeFilterLevel.Low',
      'class A {\n  void F(BinaryServerFormatterSinkProvider p) {\n    p.TypeFilterLevel = TypeFilterLevel.Low;\n  }\n}',
    ],
    ['javascript', 'a method of its own object by a computed name', 'const api = { a() {}, b() {} };\napi[name](arg);'],
    ['javascript', 'opener of a URL', "const opener = require('opener');\nopener('http://example.com/' + user);"],
  ])('%s: %s is admitted', async (language, _name, code) => {
    const res = await verify({ code, language });
    expectAdmitted(res);
  });

  it('bad input is a 400 with a detail', async () => {
    const res = await verify({ code: { src: 'assert($x);' }, language: 'php' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/code/);
  });
});
