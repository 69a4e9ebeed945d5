import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { canonicalJson } from '../../core/canonical-json.js';
import { buildDiagnostic, type EngineOutcome } from '../../core/diagnostic.js';
import { inputSources } from '../../engines/code/flows.js';
import {
  CONSTRAINT,
  RULES,
  RULES_SHA256,
  RULES_VERSION,
  SUPPORTED_LANGUAGES,
  resolveLanguage,
  scanCode,
  scanCodeRaw,
  type Issue,
} from '../../engines/code/index.js';
import { base62, crc32, isValidV2Body, v2Checksum } from '../../engines/code/api-key-checksum.js';
import { globToRegExp } from '../../engines/code/match.js';
import { isPasswordName } from '../../engines/code/predicates.js';

const FIXTURES = path.resolve(__dirname, '../fixtures/code');
const require = createRequire(import.meta.url);

interface CorpusEntry {
  file: string;
  language: string;
  critical: boolean;
  critical_lines: number[];
  /** Expected BLOCKED with this constraint (no verdict: e.g. a syntax error), whatever `critical` says. */
  blocked?: string;
}

const corpus: CorpusEntry[] = JSON.parse(readFileSync(path.join(FIXTURES, 'corpus.json'), 'utf8'));
const fixture = (file: string) => readFileSync(path.join(FIXTURES, file), 'utf8');

type Proven = Extract<EngineOutcome, { kind: 'proven' }>;

function proven(outcome: EngineOutcome): Proven {
  if (outcome.kind !== 'proven') throw new Error(`expected proven, got ${outcome.kind}: ${outcome.agentMessage}`);
  return outcome;
}

function issues(outcome: EngineOutcome): Issue[] {
  return proven(outcome).developerFields.issues as Issue[];
}

function criticalLines(outcome: EngineOutcome): number[] {
  return [
    ...new Set(
      issues(outcome)
        .filter((i) => i.severity === 'critical')
        .map((i) => i.line_number),
    ),
  ].sort((a, b) => a - b);
}

// v2 bodies computed independently of this code (Python zlib.crc32 + a separate Base62 encoder).
const BODY_A = 'A'.repeat(30) + '0uCPlr';
const BODY_B = '0123456789abcdefghijABCDEFGHIJ3mpbCX';
const BODY_PAD2 = 'k00000000000000000000000000044008INp';

describe('labelled corpus', () => {
  const tally = { tp: 0, fp: 0, fn: 0, snippetTp: 0, snippetFp: 0, snippetFn: 0, snippetTn: 0, benignBlocked: 0 };

  it('has at least 150 snippets covering all eight language families', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(150);
    const languages = new Set(corpus.map((c) => resolveLanguage(c.language)));
    for (const l of ['python', 'javascript', 'typescript', 'bash', 'go', 'java', 'ruby', 'php'])
      expect(languages.has(l as never)).toBe(true);
    expect(corpus.filter((c) => c.critical).length).toBeGreaterThan(50);
    expect(corpus.filter((c) => !c.critical).length).toBeGreaterThan(50);
  });

  it.each(corpus.map((c) => [c.file, c] as const))('%s', async (_file, entry) => {
    const outcome = await scanCode(fixture(entry.file), entry.language);
    let lines: number[];
    if (entry.blocked) {
      // Unproven (e.g. a syntax error): blocked whatever it contains; critical lines still listed.
      expect(outcome.kind).toBe('blocked');
      expect(outcome.developerFields).toMatchObject({ constraint_id: entry.blocked, is_valid: false });
      const listed = (outcome.developerFields.issues ?? []) as Issue[];
      lines = [...new Set(listed.filter((i) => i.severity === 'critical').map((i) => i.line_number))].sort(
        (a, b) => a - b,
      );
      if (!entry.critical) tally.benignBlocked++;
    } else {
      lines = criticalLines(outcome);
      expect(proven(outcome).developerFields.is_valid).toBe(!entry.critical);
    }
    expect(lines.length > 0).toBe(entry.critical);
    expect(lines).toEqual(entry.critical_lines);
    const expected = new Set(entry.critical_lines);
    for (const l of lines) expected.has(l) ? tally.tp++ : tally.fp++;
    for (const l of entry.critical_lines) if (!lines.includes(l)) tally.fn++;
    if (entry.critical) lines.length > 0 ? tally.snippetTp++ : tally.snippetFn++;
    else lines.length > 0 ? tally.snippetFp++ : tally.snippetTn++;
  });

  afterAll(() => {
    const precision = tally.tp / (tally.tp + tally.fp);
    const recall = tally.tp / (tally.tp + tally.fn);
    const snippetPrecision = tally.snippetTp / (tally.snippetTp + tally.snippetFp);
    const snippetRecall = tally.snippetTp / (tally.snippetTp + tally.snippetFn);
    console.log(
      `code scanner corpus: ${corpus.length} snippets; critical lines precision ${precision.toFixed(3)} recall ${recall.toFixed(3)} ` +
        `(tp ${tally.tp}, fp ${tally.fp}, fn ${tally.fn}); snippets precision ${snippetPrecision.toFixed(3)} recall ${snippetRecall.toFixed(3)} ` +
        `(tp ${tally.snippetTp}, fp ${tally.snippetFp}, fn ${tally.snippetFn}, tn ${tally.snippetTn}); ` +
        `benign snippets blocked as unproven (syntax error) ${tally.benignBlocked}`,
    );
    expect(precision).toBe(1);
    expect(recall).toBe(1);
    expect(snippetPrecision).toBe(1);
    expect(snippetRecall).toBe(1);
  });
});

describe('verdict rows', () => {
  it('clean code: VERIFIED material, code_safe, admitted', async () => {
    const outcome = proven(await scanCode('def add(a, b):\n    return a + b\n', 'python'));
    expect(outcome.agentMessage).toBe('Code scan completed: no security issues found.');
    expect(outcome.developerFields).toEqual({
      constraint_id: 'code_verifier.code_safe',
      is_safe: true,
      is_valid: true,
      language: 'python',
      critical_count: 0,
      issues: [],
    });
    const diag = buildDiagnostic({
      status: 'VERIFIED',
      agentMessage: outcome.agentMessage,
      developerFields: outcome.developerFields,
      proofRef: `sha256:${'a'.repeat(64)}`,
      withAdmission: true,
    });
    expect(diag.admission).toBe('ADMIT');
  });

  it('critical finding: code_unsafe, is_valid false, admission BLOCKED', async () => {
    const outcome = proven(await scanCode('import subprocess as sp\nsp.run("ls")\n'));
    expect(outcome.developerFields).toEqual({
      constraint_id: 'code_verifier.code_unsafe',
      is_safe: false,
      is_valid: false,
      language: 'python',
      critical_count: 1,
      issues: [
        {
          severity: 'critical',
          type: 'shell_execution',
          line_number: 2,
          description: 'Process execution through subprocess: subprocess.run',
        },
      ],
    });
    expect(outcome.agentMessage).toBe(
      'Code scan completed: 1 critical issue found (first on line 2: Process execution through subprocess: subprocess.run); the code is not admitted.',
    );
    const diag = buildDiagnostic({
      status: 'VERIFIED',
      agentMessage: outcome.agentMessage,
      developerFields: outcome.developerFields,
      proofRef: `sha256:${'b'.repeat(64)}`,
      withAdmission: true,
    });
    expect(diag.status).toBe('VERIFIED');
    expect(diag.admission).toBe('BLOCKED');
  });

  it('high-only finding: admitted (is_valid) but not safe', async () => {
    const outcome = proven(await scanCode(fixture('go/tn_insecure_tls_high.go'), 'go'));
    expect(outcome.developerFields.is_valid).toBe(true);
    expect(outcome.developerFields.is_safe).toBe(false);
    expect(outcome.developerFields.constraint_id).toBe('code_verifier.code_unsafe');
    expect(outcome.developerFields.critical_count).toBe(0);
    expect(outcome.agentMessage).toBe(
      'Code scan completed: no blocking issue, but 1 high-severity issue found (first on line 5: TLS certificate verification disabled (InsecureSkipVerify): InsecureSkipVerify: true).',
    );
  });

  it('lower-severity findings only: safe', async () => {
    const outcome = proven(await scanCode('import requests\nrequests.get("https://example.com")\n'));
    expect(outcome.developerFields.is_safe).toBe(true);
    expect(outcome.developerFields.constraint_id).toBe('code_verifier.code_safe');
    expect(outcome.agentMessage).toBe(
      'Code scan completed: no critical or high-severity issues; 1 lower-severity finding.',
    );
    expect(issues(outcome)).toEqual([
      { severity: 'low', type: 'outbound_http', line_number: 2, description: 'Outbound HTTP request: requests.get' },
    ]);
  });

  it.each([[''], ['   \n\t  \n']])('empty code %j → BLOCKED code_verifier.empty_code', async (code) => {
    expect(await scanCode(code, 'python')).toEqual({
      kind: 'blocked',
      agentMessage: 'No code was provided to verify.',
      developerFields: { constraint_id: 'code_verifier.empty_code', is_valid: false },
    });
  });

  it('unsupported language → BLOCKED code_verifier.unsupported_language', async () => {
    expect(await scanCode('PROGRAM-ID. HELLO.', 'cobol')).toEqual({
      kind: 'blocked',
      agentMessage: `The language "cobol" is not supported; supported languages: ${SUPPORTED_LANGUAGES.join(', ')}.`,
      developerFields: {
        constraint_id: 'code_verifier.unsupported_language',
        is_valid: false,
        supported_languages: [...SUPPORTED_LANGUAGES],
      },
    });
  });

  it('input that does not parse at all → BLOCKED code_verifier.parse_failure', async () => {
    const outcome = await scanCode('This is not code at all, just some words that a model wrote.', 'python');
    expect(outcome).toEqual({
      kind: 'blocked',
      agentMessage:
        'The code could not be parsed as python: most of it is not valid python syntax (first error on line 1). It parses as bash: send it with "language": "bash" if that is what it is.',
      developerFields: {
        constraint_id: 'code_verifier.parse_failure',
        is_valid: false,
        language: 'python',
        error_coverage: 1,
        parses_as: ['bash'],
      },
    });
    const js = await scanCode('function (( {{ ', 'javascript');
    expect(js.kind).toBe('blocked');
    expect(js.developerFields.constraint_id).toBe('code_verifier.parse_failure');
  });

  it('a partial parse error blocks the scan (does_not_parse_as_language); the rest is still scanned and listed', async () => {
    const code = 'import os\n\ndef broken(:\n    pass\n\nos.system("id")\n';
    expect(await scanCode(code, 'python')).toEqual({
      kind: 'blocked',
      agentMessage:
        'The code does not parse as python: 1 syntax error (first on line 3); a safety verdict holds only for code that parses, so it was not verified. ' +
        '1 critical issue recognised in the parts that could be read (first on line 6: Shell or process execution through os: os.system).',
      developerFields: {
        constraint_id: 'code_verifier.does_not_parse_as_language',
        is_valid: false,
        language: 'python',
        error_coverage: 0,
        critical_count: 1,
        issues: [
          { severity: 'medium', type: 'parse_error', line_number: 3, description: 'Syntax error: missing ")"' },
          {
            severity: 'critical',
            type: 'shell_execution',
            line_number: 6,
            description: 'Shell or process execution through os: os.system',
          },
        ],
      },
    });
    const benign = await scanCode(fixture('python/tn_partial_parse_error.py'), 'python');
    expect(benign.kind).toBe('blocked');
    expect(benign.developerFields.issues).toEqual([
      { severity: 'medium', type: 'parse_error', line_number: 4, description: 'Syntax error: missing ")"' },
    ]);
  });

  it('code in another supported language is blocked with a hint naming it (issue 28 item 14)', async () => {
    const outcome = await scanCode('const cp = require("child_process");\ncp.exec(process.argv[2]);', 'python');
    expect(outcome.kind).toBe('blocked');
    expect(outcome.developerFields).toMatchObject({
      constraint_id: 'code_verifier.does_not_parse_as_language',
      is_valid: false,
      language: 'python',
    });
    expect((outcome.developerFields.parses_as as string[])[0]).toBe('javascript');
    expect(outcome.agentMessage).toContain('It parses as javascript');
    // A missing token alone (no ERROR node) is a syntax error too.
    expect((await scanCode('if (x) { y();\n', 'javascript')).developerFields.constraint_id).toBe(
      'code_verifier.does_not_parse_as_language',
    );
  });

  it('time budget exceeded → BLOCKED code_verifier.timeout', async () => {
    expect(await scanCode('print(1)', 'python', { timeoutMs: 0 })).toEqual({
      kind: 'blocked',
      agentMessage: 'Code verification timed out.',
      developerFields: { constraint_id: 'code_verifier.timeout', is_valid: false },
    });
  });

  it('a parse that overruns its budget is abandoned, and the parser stays usable', async () => {
    const big = 'def f(a):\n    return a + 1\n\n'.repeat(20_000);
    await scanCode('x = 1', 'python'); // grammar loaded: the budget is spent in the parse itself
    expect(await scanCode(big, 'python', { timeoutMs: 2 })).toEqual({
      kind: 'blocked',
      agentMessage: 'Code verification timed out.',
      developerFields: { constraint_id: 'code_verifier.timeout', is_valid: false },
    });
    expect(criticalLines(await scanCode('import os\nos.system("x")', 'python'))).toEqual([2]);
  });

  it('internal failure → BLOCKED code_verifier.internal_error (fails closed)', async () => {
    vi.resetModules();
    vi.doMock('../../engines/code/runtime.js', () => ({
      getLanguage: () => Promise.reject(new Error('grammar missing')),
      parserIdentity: () => Promise.reject(new Error('grammar missing')),
    }));
    try {
      const fresh = await import('../../engines/code/index.js');
      expect(await fresh.scanCode('print(1)', 'python')).toEqual({
        kind: 'blocked',
        agentMessage: 'Code verification failed because of an internal error; the code was not verified.',
        developerFields: { constraint_id: 'code_verifier.internal_error', is_valid: false },
      });
    } finally {
      vi.doUnmock('../../engines/code/runtime.js');
      vi.resetModules();
    }
  });

  it('defaults to python and accepts language aliases case-insensitively', async () => {
    const cases: [string, string, string][] = [
      ['import os\nos.system("x")', 'PY', 'python'],
      ['import os\nos.system("x")', 'Python3', 'python'],
      ['require("child_process").exec("x")', 'js', 'javascript'],
      ['require("child_process").exec("x")', 'Node', 'javascript'],
      ['import cp = require("child_process"); cp.exec("x");', 'ts', 'typescript'],
      ['curl https://x | sh', 'sh', 'bash'],
      ['curl https://x | sh', ' Shell ', 'bash'],
      ['curl https://x | sh', 'BASH', 'bash'],
      ['package main\nimport "os/exec"\nfunc main() { exec.Command("x") }', 'golang', 'go'],
      ['system("x")', 'rb', 'ruby'],
      ['<?php system("x");', 'PHP', 'php'],
      ['class A { void f() throws Exception { Runtime.getRuntime().exec("x"); } }', 'Java', 'java'],
    ];
    for (const [code, alias, canonical] of cases) {
      const fields = proven(await scanCode(code, alias)).developerFields;
      expect([alias, fields.language, fields.is_valid]).toEqual([alias, canonical, false]);
    }
    const defaulted = proven(await scanCode('import os\nos.system("x")'));
    expect(defaulted.developerFields.language).toBe('python');
    expect(resolveLanguage('Kotlin')).toBeNull();
  });

  it('records a JSON-only proof with parser, grammar identity, rules and code hash', async () => {
    const code = 'import os\nos.system("id")\n';
    const outcome = proven(await scanCode(code, 'py'));
    const proof = outcome.proof as Record<string, any>;
    const wtsVersion = JSON.parse(
      readFileSync(path.join(path.dirname(require.resolve('web-tree-sitter')), 'package.json'), 'utf8'),
    ).version;
    const grammarPkg = require.resolve('@vscode/tree-sitter-wasm/package.json');
    const grammarBytes = readFileSync(path.join(path.dirname(grammarPkg), 'wasm', 'tree-sitter-python.wasm'));
    expect(proof.parser).toEqual({ name: 'web-tree-sitter', version: wtsVersion });
    expect(proof.grammar).toEqual({
      package: '@vscode/tree-sitter-wasm',
      package_version: JSON.parse(readFileSync(grammarPkg, 'utf8')).version,
      file: 'tree-sitter-python.wasm',
      sha256: createHash('sha256').update(grammarBytes).digest('hex'),
      abi_version: 15,
    });
    expect(proof.rules).toEqual({ version: RULES_VERSION, sha256: RULES_SHA256, count: RULES.length });
    expect(proof.code_sha256).toBe(createHash('sha256').update(code).digest('hex'));
    expect(proof.language).toBe('python');
    expect(proof.snippet_wrapper).toBeNull();
    expect(proof.findings).toEqual([
      {
        rule_id: 'py.os-process',
        severity: 'critical',
        type: 'shell_execution',
        line_number: 2,
        description: 'Shell or process execution through os: os.system',
      },
    ]);
    expect(proof.verdict).toEqual({
      constraint_id: 'code_verifier.code_unsafe',
      is_safe: false,
      is_valid: false,
      critical_count: 1,
    });
    // Canonical-encodable (the activity layer hashes it into proof_ref) and deterministic.
    const again = proven(await scanCode(code, 'python'));
    expect(canonicalJson(again.proof)).toBe(canonicalJson(outcome.proof));
    expect(RULES_SHA256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('records the snippet completion applied to PHP without an opening tag', async () => {
    const outcome = proven(await scanCode('$x = shell_exec($_GET["q"]);\necho $x;\n', 'php'));
    expect((outcome.proof as Record<string, unknown>).snippet_wrapper).toBe('php_open_tag');
    expect(criticalLines(outcome)).toEqual([1]);
  });

  it('parallel first use initialises once and every scan completes', async () => {
    const jobs = corpus.slice(0, 40).map((c) => scanCode(fixture(c.file), c.language));
    const outcomes = await Promise.all(jobs);
    expect(outcomes.map((o) => o.kind)).toEqual(new Array(40).fill('proven'));
  });
});

describe('name resolution (aliases must be caught, look-alikes must not)', () => {
  const cases: [string, string, string, number[]][] = [
    ['python', 'import subprocess as sp; sp.run(["ls"])', 'import alias', [1]],
    ['python', 'from os import system as s\ns("echo hi")', 'from-import alias', [2]],
    ['python', 'import os.path as p\np.join("a")', 'os.path.join', []],
    ['python', 'import os\nf = os.system\nf("x")', 're-binding', [3]],
    ['python', 'g = getattr(__import__("o" + "s"), "sys" + "tem")\ng("x")', 'getattr + __import__ of constants', [2]],
    ['python', 'import importlib\nimportlib.import_module("subprocess").check_call(["x"])', 'importlib', [2]],
    ['python', 'import re\nre.compile("x")', 're.compile', []],
    ['python', 'model.eval()', 'method named eval', []],
    ['python', '# subprocess.run("x")\ns = "os.system(1)"', 'comment and string', []],
    ['python', 'exec = make()\nexec("x")', 'exec as a variable', []],
    ['python', 'import hashlib\nsum = hashlib.md5(data).hexdigest()', 'md5 checksum', []],
    ['python', 'exec("exec(\\"exec(\'print(1)\')\\")")', 'nesting deeper than the limit fails closed', [1]],
    ['python', "x = f\"{__import__('os').system('id')}\"", 'call inside an f-string', [1]],
    ['python', 'import os; os.system("a")', 'statement after ;', [1]],
    [
      'python',
      'try: import subprocess as sp\nexcept ImportError: sp = None\nsp.call(["x"])',
      'import in a one-line block',
      [3],
    ],
    ['python', 'from os import (\n    getcwd,\n    system as run,\n)\nrun("x")', 'multi-line import', [5]],
    ['python', '(os.system)("x")', 'parenthesised callee', [1]],
    ['python', 'import os\r\nos.popen("x")\r\n', 'CRLF line endings', [2]],
    [
      'python',
      'import subprocess\nclass A:\n    run = subprocess.run\n    def go(self):\n        self.run("x")',
      'class attribute through self',
      [5],
    ],
    [
      'python',
      'import os\ndef f():\n    os = None\n    os.system("x")\nos.system("y")',
      'local shadowing in one function only',
      [5],
    ],
    ['javascript', 'const { exec: run } = require("child_process"); run("x");', 'destructured alias', [1]],
    ['javascript', 'import { execSync as sh } from "node:child_process";\nsh("x");', 'named import alias', [2]],
    [
      'javascript',
      'const cp = require("child_process");\nconst p = cp.spawn("x");\np.on("exit", done);',
      'method on the result is not another execution',
      [2],
    ],
    ['javascript', 'const re = /a/; re.exec("a");', 'RegExp#exec', []],
    ['go', 'package main\nimport x "os/exec"\nfunc main() { x.Command("ls") }', 'Go import alias', [3]],
    [
      'java',
      'import java.io.*;\nclass A { Object f(InputStream i) throws Exception { return new ObjectInputStream(i).readObject(); } }',
      'Java star import',
      [2],
    ],
    [
      'java',
      'class H {\n  private Runtime runtime = Runtime.getRuntime();\n  void go(String c) throws Exception { this.runtime.exec(c); }\n}',
      'Java this.field of type Runtime',
      [3],
    ],
    ['ruby', 'm = method(:system)\nm.call("ls")', 'Ruby method object', [2]],
    ['php', '<?php\n$f = "sys" . "tem";\n$f("ls");', 'PHP variable function', [3]],
    ['bash', 'c=eval\n$c "$x"', 'Bash command through a variable', [2]],
  ];
  it.each(cases)('%s: %s (%s)', async (language, code, _label, lines) => {
    expect(criticalLines(await scanCode(code, language))).toEqual(lines);
  });

  // Constructs the third-party corpus (bench/code-corpus.ts) showed missing; our own snippets.
  it.each([
    ['python', 'import dill\nwith open(p, "rb") as fh:\n    obj = dill.Unpickler(fh).load()', 'dill.Unpickler', [3]],
    ['python', 'import jsonpickle\nstate = jsonpickle.unpickler.decode(blob)', 'jsonpickle.unpickler.decode', [2]],
    [
      'python',
      'import jsonpickle\nobj = jsonpickle.unpickler.Unpickler().restore(doc)',
      'jsonpickle.unpickler.Unpickler',
      [2],
    ],
    ['python', 'import commands\nmode = commands.getstatus(target)', 'commands.getstatus runs ls -ld', [2]],
    ['python', 'import torch\nnet = torch.load(checkpoint_path)', 'torch.load without weights_only', [2]],
    [
      'python',
      'import torch\nnet = torch.load(checkpoint_path, weights_only=True)',
      'torch.load with weights_only=True',
      [],
    ],
    ['ruby', 'report = open(params[:source]).read', 'Kernel#open of a computed path', [1]],
    ['ruby', 'listing = open("| du -sh #{folder}")', 'Kernel#open of an interpolated pipe', [1]],
    ['ruby', 'require "open-uri"\nbody = URI.open(feed_url).read', 'URI.open of a computed value', [2]],
    ['ruby', 'text = IO.read(input_name)', 'IO.read of a computed path', [1]],
    ['ruby', 'text = File.read(input_name)\nf = File.open(input_name)', 'File.read / File.open never run commands', []],
    ['ruby', 'cfg = open("settings.yml").read', 'Kernel#open of a constant file name', []],
    [
      'java',
      'class Q {\n  boolean check(String field) {\n    ExpressionParser p = new SpelExpressionParser();\n    return (Boolean) p.parseExpression(field + " > 3").getValue();\n  }\n}',
      'SpEL through the ExpressionParser interface',
      [4],
    ],
    [
      'java',
      'class Q {\n  Object f(ExpressionFactory ef, ELContext c, String expr) {\n    return ef.createValueExpression(c, expr, Object.class).getValue(c);\n  }\n}',
      'EL value expression from a parameter',
      [3],
    ],
    [
      'java',
      'class Q {\n  Object f(ExpressionFactory ef, ELContext c) {\n    return ef.createValueExpression(c, "#{order.total}", Object.class).getValue(c);\n  }\n}',
      'EL value expression that is a constant',
      [],
    ],
    [
      'java',
      'class Q {\n  void render(VelocityContext vc, Writer w, String body) {\n    Velocity.evaluate(vc, w, "mail", body);\n  }\n}',
      'Velocity template from a parameter',
      [3],
    ],
    [
      'java',
      'public String getUserProperty(String property) {\n  return ognlUtil.getValue("user." + property, ctx, root, String.class);\n}',
      'OGNL through an undeclared OgnlUtil-named receiver',
      [2],
    ],
    [
      'java',
      'class Q {\n  @Inject OgnlUtil util;\n  Object f(String p) { return util.setValue(p, ctx, root, v); }\n}',
      'OGNL through a declared OgnlUtil field',
      [3],
    ],
    [
      'java',
      'Object price(String path) {\n  return stack.findValue("order." + path);\n}',
      'OGNL through an undeclared ValueStack-named receiver',
      [2],
    ],
    [
      'java',
      'Object user() {\n  return ognlUtil.getValue("user.name", ctx, root, String.class);\n}',
      'OGNL with a constant expression',
      [],
    ],
    [
      'java',
      'class Q {\n  Cache ognlCache;\n  Object f(String k) { return ognlCache.getValue(k); }\n}',
      'receiver declared with another type',
      [],
    ],
    ['java', 'Object f(String k) {\n  return entry.getValue(k);\n}', 'undeclared receiver without an OGNL name', []],
    [
      'typescript',
      'import type { execaCommand } from "execa";\nclass Builder {\n  constructor(private readonly run: typeof execaCommand) {}\n  async build(cmd: string) {\n    await this.run(cmd);\n  }\n}',
      'injected parameter property typed typeof execaCommand',
      [5],
    ],
    [
      'typescript',
      'import { execaCommandSync } from "execa";\nfunction registry(sh: typeof execaCommandSync): string {\n  return sh("npm config get registry").stdout;\n}',
      'parameter typed typeof execaCommandSync',
      [3],
    ],
    [
      'typescript',
      'import * as cp from "node:child_process";\nclass T {\n  private spawnFn?: typeof cp.spawn | undefined;\n  go(c: string) { this.spawnFn!(c, []); }\n}',
      'optional field typed typeof cp.spawn | undefined',
      [4],
    ],
    [
      'typescript',
      'let runner: typeof import("node:child_process").exec;\nrunner = pick();\nrunner(line);',
      'variable typed typeof import(...).exec',
      [3],
    ],
    [
      'typescript',
      'import { exec } from "node:child_process";\nfunction f(p: ReturnType<typeof exec>, q: typeof format) {\n  p.kill();\n  q("x");\n}',
      'ReturnType<typeof exec> and typeof of a harmless function',
      [],
    ],
    [
      'typescript',
      'import { execaCommand } from "execa";\nclass A {\n  constructor(private readonly log: Logger) {}\n  f(x: string) { this.log(x); }\n}',
      'parameter property of another type',
      [],
    ],
    [
      'typescript',
      'import { exec } from "node:child_process";\nclass A {\n  constructor(run: typeof exec) {}\n  f(c: string) { this.run(c); }\n}',
      'plain constructor parameter: no this.run property',
      [],
    ],
    [
      'typescript',
      'import { childProcessAsPromised } from "@acme/util";\nexport async function fmt(file: string) {\n  await childProcessAsPromised.exec(`npx prettier --write ${file}`);\n}',
      'a wrapper named after child_process',
      [3],
    ],
    [
      'javascript',
      'const { childProcess } = require("./helpers");\nchildProcess.spawn(cmd, args);',
      'an imported helper named childProcess',
      [2],
    ],
    [
      'typescript',
      'import type { ChildProcess } from "node:child_process";\nfunction stop(child: ChildProcess) {\n  child.kill();\n  child.stdout?.on("data", log);\n}',
      'a ChildProcess instance killed and read',
      [],
    ],
  ] as [string, string, string, number[]][])('corpus construct %s: %s (%s)', async (language, code, _label, lines) => {
    expect(criticalLines(await scanCode(code, language))).toEqual(lines);
  });

  it('reports non-critical sinks with their severities', async () => {
    const rows: [string, string, Issue[]][] = [
      [
        'python',
        'cur.execute("SELECT * FROM t WHERE id = %s" % uid)',
        [
          {
            severity: 'high',
            type: 'sql_injection',
            line_number: 1,
            description: 'SQL statement built from run-time values passed to a query call: cur.execute',
          },
        ],
      ],
      [
        'python',
        'import os\nos.remove(p)',
        [
          {
            severity: 'medium',
            type: 'file_deletion',
            line_number: 2,
            description: 'File or directory deletion: os.remove',
          },
        ],
      ],
      [
        'python',
        'import tempfile\ntempfile.mktemp()',
        [
          {
            severity: 'medium',
            type: 'insecure_tempfile',
            line_number: 2,
            description: 'Race-prone temporary file name (mktemp): tempfile.mktemp',
          },
        ],
      ],
      [
        'javascript',
        'el.outerHTML = html;',
        [
          {
            severity: 'medium',
            type: 'xss_sink',
            line_number: 1,
            description: 'HTML injection sink (innerHTML/outerHTML assignment): outerHTML',
          },
        ],
      ],
      [
        'javascript',
        'const fs = require("fs");\nfs.rmSync(dir, { recursive: true });',
        [
          {
            severity: 'medium',
            type: 'file_deletion',
            line_number: 2,
            description: 'File or directory deletion: fs.rmSync',
          },
        ],
      ],
      [
        'bash',
        'chmod 777 /srv/app',
        [
          {
            severity: 'medium',
            type: 'insecure_permissions',
            line_number: 1,
            description: 'World-writable permissions (chmod 777 / o+w): chmod 777',
          },
        ],
      ],
      [
        'python',
        'import socket\ns = socket.socket()',
        [{ severity: 'low', type: 'raw_socket', line_number: 2, description: 'Raw network socket: socket.socket' }],
      ],
    ];
    for (const [language, code, expected] of rows) expect(issues(await scanCode(code, language))).toEqual(expected);
  });
});

describe('input tree-sitter cannot fully parse: blocked or scanned, dangerous lines still reported', () => {
  const fn = (n: number) => `f${n}() {\n  local a="$1"\n  printf '%s\\n' "$a"\n}\n`;
  const pad = [1, 2, 3, 4, 5, 6].map(fn).join(''); // 24 lines of ordinary shell

  it('a parse failure lists the critical lines of what error recovery recognised', async () => {
    const code = 'XMLDecoder d = new XMLDecoder(in);\ntry {\n    Object result = d.readObject();\n}\n[...]';
    const outcome = await scanCode(code, 'java');
    expect(outcome.kind).toBe('blocked');
    expect(outcome.developerFields).toMatchObject({
      constraint_id: 'code_verifier.parse_failure',
      is_valid: false,
      critical_count: 1,
    });
    expect(outcome.developerFields.issues).toEqual([
      {
        severity: 'critical',
        type: 'unsafe_deserialization',
        line_number: 3,
        description: 'Unsafe deserialization: java.beans.XMLDecoder#readObject',
      },
    ]);
    expect(outcome.agentMessage).toMatch(
      /first error on line \d+\)\. 1 critical issue recognised in the parts that could be read \(first on line 3: /,
    );
  });

  it('prose that names a dangerous call is blocked as a parse failure without issues (the line does not parse alone)', async () => {
    const outcome = await scanCode('Found child_process.exec() with non Literal first argument', 'javascript');
    expect(outcome).toEqual({
      kind: 'blocked',
      agentMessage:
        'The code could not be parsed as javascript: most of it is not valid javascript syntax (first error on line 1).',
      developerFields: {
        constraint_id: 'code_verifier.parse_failure',
        is_valid: false,
        language: 'javascript',
        error_coverage: 0.75,
      },
    });
  });

  it('shell: an eval that error recovery turned into a plain word is found by scanning its line alone (parse failure)', async () => {
    const outcome = await scanCode(`${pad}case x in\neval "$b"\n${pad}`, 'bash');
    expect(outcome.kind).toBe('blocked');
    expect(outcome.developerFields.issues).toEqual([
      {
        severity: 'critical',
        type: 'dynamic_code_execution',
        line_number: 26,
        description: 'eval of shell text: eval (line scanned alone: it lies in a region that does not parse)',
      },
    ]);
  });

  it('shell: the same fallback lists the eval of a partly parsed script (blocked as a syntax error anyway)', async () => {
    const outcome = await scanCode(`${pad}((( x\neval xspec="\${xspec}"\n${pad}`, 'bash');
    expect(outcome.kind).toBe('blocked');
    expect(outcome.developerFields).toMatchObject({
      is_valid: false,
      constraint_id: 'code_verifier.does_not_parse_as_language',
      critical_count: 1,
    });
    const listed = outcome.developerFields.issues as Issue[];
    expect(listed.filter((i) => i.severity === 'critical').map((i) => i.line_number)).toEqual([26]);
    expect(listed.find((i) => i.severity === 'critical')?.description).toContain('line scanned alone');
  });

  it('shell: ordinary lines in a region that does not parse add no finding (blocked for the syntax error only)', async () => {
    // Line 26 lies in the error region (lines 25-26), as the eval of the previous test does.
    const outcome = await scanCode(`${pad}((( x\necho xspec="eval \${xspec}" # eval later\n${pad}`, 'bash');
    expect(outcome.developerFields).toMatchObject({
      is_valid: false,
      constraint_id: 'code_verifier.does_not_parse_as_language',
      critical_count: 0,
    });
    expect((outcome.developerFields.issues as Issue[]).every((i) => i.type === 'parse_error')).toBe(true);
  });
});

describe('hard-coded svc_live_ keys', () => {
  const keyCases = (key: string) => `API_KEY = "${key}"\n`;

  it('flags a v2 key with a valid checksum, masked', async () => {
    const key = `svc_live_${BODY_B}`;
    const outcome = proven(await scanCode(keyCases(key), 'python'));
    expect(issues(outcome)).toEqual([
      {
        severity: 'critical',
        type: 'hardcoded_credential',
        line_number: 1,
        description: 'Hard-coded production API key (SVC_LIVE_API_KEY): svc_live_****pbCX',
      },
    ]);
    expect(JSON.stringify(outcome)).not.toContain(BODY_B);
  });

  it('ignores a v2-shaped key whose checksum does not match, and test keys', async () => {
    const badChecksum = `svc_live_${'A'.repeat(30)}0uCPls`;
    expect(issues(await scanCode(keyCases(badChecksum), 'python'))).toEqual([]);
    expect(issues(await scanCode(keyCases(`svc_test_${BODY_B}`), 'python'))).toEqual([]);
  });

  it('flags a legacy v1 key, including one ending in "-", and anchors on the key charset', async () => {
    const v1 = `svc_live_${'Ab3_'.repeat(10)}xy-`;
    expect(issues(await scanCode(keyCases(v1), 'python'))).toEqual([
      {
        severity: 'critical',
        type: 'hardcoded_credential',
        line_number: 1,
        description: 'Hard-coded production API key (SVC_LIVE_API_KEY_V1): svc_live_****_xy-',
      },
    ]);
    // Glued to more key characters on either side: not a key.
    expect(issues(await scanCode(keyCases(`x${`svc_live_${BODY_B}`}`), 'python'))).toEqual([]);
    expect(issues(await scanCode(keyCases(`svc_live_${BODY_B}Z`), 'python'))).toEqual([]);
    expect(issues(await scanCode(keyCases(`${v1}-`), 'python'))).toEqual([]);
  });

  it('finds keys in comments of any language', async () => {
    const key = `svc_live_${BODY_A}`;
    const cases: [string, string, number[]][] = [
      ['go', `package main\n// key: ${key}\n`, [2]],
      ['bash', `# ${key}\necho ok\n`, [1]],
      ['ruby', `puts 1\n# ${key}\n`, [2]],
    ];
    for (const [language, code, lines] of cases) expect(criticalLines(await scanCode(code, language))).toEqual(lines);
  });

  it('checksum: CRC32 and Base62 agree with the contract vectors and node:zlib', () => {
    expect(crc32(Buffer.from('123456789'))).toBe(0xcbf43926);
    expect(base62(0, 6)).toBe('000000');
    expect(base62(61, 6)).toBe('00000z');
    expect(base62(0xffffffff, 6)).toBe('4gfFC3');
    for (const body of [BODY_A, BODY_B, BODY_PAD2]) {
      expect(v2Checksum(body.slice(0, 30))).toBe(body.slice(30));
      expect(isValidV2Body(body)).toBe(true);
    }
    expect(isValidV2Body(`${'A'.repeat(30)}0uCPls`)).toBe(false);
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => crc32(bytes) === zlibCrc32(Buffer.from(bytes))),
      { numRuns: 300 },
    );
  });
});

describe('rule table', () => {
  it('has unique ids, valid languages and severities', () => {
    const ids = RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const families = new Set(['python', 'javascript', 'bash', 'go', 'java', 'ruby', 'php', 'csharp']);
    for (const r of RULES) {
      if (r.languages !== 'all') for (const l of r.languages) expect(families.has(l)).toBe(true);
      expect(['critical', 'high', 'medium', 'low']).toContain(r.severity);
    }
    // Shell/process execution is critical in every language family.
    for (const f of families) {
      expect(
        RULES.some(
          (r) =>
            r.type === 'shell_execution' &&
            r.severity === 'critical' &&
            r.languages !== 'all' &&
            r.languages.includes(f as never),
        ),
      ).toBe(true);
    }
  });

  it('name patterns: * stays within one call step, a leading * matches any receiver', () => {
    expect(globToRegExp('child_process.*').test('child_process.exec')).toBe(true);
    expect(globToRegExp('child_process.*').test('child_process.spawn().on')).toBe(false);
    expect(globToRegExp('*.execute').test('conn.cursor().execute')).toBe(true);
    expect(globToRegExp('hashlib.md5(*).update').test('hashlib.md5().update')).toBe(true);
    expect(globToRegExp('os.exec*').test('os.execvp')).toBe(true);
    expect(globToRegExp('os.exec*').test('os.path.exists')).toBe(false);
  });

  it('password-like names are recognised by their words', () => {
    for (const n of [
      'password',
      'user_password',
      'userPassword',
      'PASSWORD',
      'pwHash',
      'hashed_pw',
      'passwd',
      'credentials',
      'new_pass',
    ])
      expect([n, isPasswordName(n)]).toEqual([n, true]);
    for (const n of ['compass', 'bypass', 'passenger', 'checksum', 'data', 'pwned'])
      expect([n, isPasswordName(n)]).toEqual([n, false]);
  });

  it('exports the constraint ids of the contract', () => {
    expect(CONSTRAINT).toEqual({
      safe: 'code_verifier.code_safe',
      unsafe: 'code_verifier.code_unsafe',
      emptyCode: 'code_verifier.empty_code',
      unsupportedLanguage: 'code_verifier.unsupported_language',
      parseFailure: 'code_verifier.parse_failure',
      syntaxError: 'code_verifier.does_not_parse_as_language',
      timeout: 'code_verifier.timeout',
      analysisLimit: 'code_verifier.analysis_limit_exceeded',
      internalError: 'code_verifier.internal_error',
    });
  });
});

describe('scanCodeRaw', () => {
  it('returns findings without a verdict', async () => {
    const raw = await scanCodeRaw('system("ls")', 'ruby');
    expect(raw.status).toBe('scanned');
    if (raw.status !== 'scanned') return;
    expect(raw.language).toBe('ruby');
    expect(raw.findings).toEqual([
      {
        rule_id: 'rb.kernel-process',
        severity: 'critical',
        type: 'shell_execution',
        line_number: 1,
        description: 'Shell or process execution: Kernel.system',
      },
    ]);
    expect(await scanCodeRaw('  ', 'ruby')).toEqual({ status: 'empty_code' });
    expect(await scanCodeRaw('x', 'brainfuck')).toEqual({ status: 'unsupported_language', requested: 'brainfuck' });
  });
});

// Issue 24 (code scan): families missed on third-party code, fixed by general rules; each row
// is our own snippet, not a line of any suite.
describe('issue 24: families missed on held-out code', () => {
  const critical = async (code: string, language: string) =>
    ((await scanCode(code, language)).developerFields.issues as Issue[])
      .filter((i) => i.severity === 'critical')
      .map((i) => [i.line_number, i.type] as const);

  it.each([
    [
      'python',
      'import asyncio\nasync def f(cmd):\n    p = await asyncio.subprocess.create_subprocess_exec(cmd)\n',
      [[3, 'shell_execution']],
    ],
    [
      'python',
      'import shelve, dill, _pickle, cPickle\nd = shelve.open(path)\nx = dill.loads(blob)\ny = _pickle.Unpickler(f).load()\nz = cPickle.loads(blob)\n',
      [
        [2, 'unsafe_deserialization'],
        [3, 'unsafe_deserialization'],
        [4, 'unsafe_deserialization'],
        [5, 'unsafe_deserialization'],
      ],
    ],
    [
      'python',
      'import yaml\nw = yaml.load(s, Loader=yaml.UnsafeLoader)\nv = yaml.full_load(s)\nu = yaml.UnsafeLoader(s).get_single_data()\n',
      [
        [2, 'unsafe_deserialization'],
        [3, 'unsafe_deserialization'],
        [4, 'unsafe_deserialization'],
      ],
    ],
    [
      'java',
      'class A {\n  void f(String cmd) throws Exception {\n    new ProcessBuilder()\n        .command("sh", "-c", cmd)\n        .start();\n  }\n}\n',
      [
        [3, 'shell_execution'],
        [4, 'shell_execution'],
        [5, 'shell_execution'],
      ],
    ],
    [
      'java',
      'class A {\n  void f(String name) {\n    Runtime.getRuntime().loadLibrary(String.format("lib%s", name));\n    System.loadLibrary("zip");\n  }\n}\n',
      [[3, 'dynamic_code_execution']],
    ],
    [
      'java',
      'import org.apache.commons.io.input.ClassLoaderObjectInputStream;\nclass A {\n  Object f(java.io.InputStream s) throws Exception {\n    ClassLoaderObjectInputStream in = new ClassLoaderObjectInputStream(getClass().getClassLoader(), s);\n    return in.readObject();\n  }\n}\n',
      [[5, 'unsafe_deserialization']],
    ],
    [
      'ruby',
      'data = Oj.load(params[:json])\nsafe = Oj.load(params[:json], mode: :strict)\nrows = CSV.load(io)\nRubyVM::InstructionSequence.compile(src).eval\nobj = Oj.object_load(s, mode: :strict)\n',
      [
        [1, 'unsafe_deserialization'],
        [3, 'unsafe_deserialization'],
        [4, 'dynamic_code_execution'],
        [5, 'unsafe_deserialization'],
      ],
    ],
    ['ruby', 'POSIX::Spawn::spawn(cmd)\n', [[1, 'shell_execution']]],
    [
      'javascript',
      "const { spawn } = require('cross-spawn');\nspawn(cmd, args, { shell: true });\n",
      [
        [2, 'shell_execution'],
        [2, 'shell_execution'],
      ],
    ],
    [
      'javascript',
      "const { spawn } = require('./my-spawn');\nspawn(cmd, args, { shell: true });\nspawn(cmd, args, { cwd: dir });\n",
      [[2, 'shell_execution']],
    ],
    [
      'javascript',
      "const puppeteer = require('puppeteer');\nasync function f(sel) {\n  const browser = await puppeteer.launch();\n  const page = await browser.newPage();\n  await page.evaluate(`document.querySelector('${sel}').click()`);\n  await page.evaluate(() => document.title);\n}\n",
      [[5, 'dynamic_code_execution']],
    ],
    [
      'javascript',
      "const yaml = require('js-yaml');\nyaml.load(text);\nyaml.load(text, { schema: yaml.JSON_SCHEMA });\n",
      [[2, 'unsafe_deserialization']],
    ],
    [
      'javascript',
      "const vm = require('vm');\nvm.runInNewContext('1 + 1', {});\nvm.runInNewContext(userCode, {});\n",
      [[3, 'dynamic_code_execution']],
    ],
    [
      'javascript',
      "const hb = require('handlebars');\napp.get('/', (req, res) => {\n  const t = 'Hi ' + req.query.name;\n  res.send(hb.compile(t)({}));\n  res.send(hb.compile('Hi {{name}}')({ name: req.query.name }));\n});\n",
      [[4, 'dynamic_code_execution']],
    ],
    [
      'javascript',
      "app.get('/', (req, res) => {\n  const m = require(req.query.plugin);\n  setInterval(req.body.tick, 10);\n  const ok = require('./local');\n});\n",
      [
        [2, 'dynamic_code_execution'],
        [3, 'dynamic_code_execution'],
      ],
    ],
    ['php', '<?php\nextract($_GET);\nextract($row);\n', [[2, 'dynamic_code_execution']]],
  ] as const)('%s: %j', async (language, code, expected) => {
    expect(await critical(code, language)).toEqual(expected);
  });

  it('safe members of those families stay admitted', async () => {
    for (const [language, code] of [
      [
        'python',
        'import pickle, subprocess, marshal\ns = pickle.dumps(obj)\nq = subprocess.list2cmdline(["a"])\nm = marshal.dumps(1)\n',
      ],
      ['ruby', 'json = Oj.dump(obj)\nsafe = Oj.safe_load(s)\nbytes = Marshal.dump(obj)\n'],
      ['javascript', "const vm = require('vm');\nconst ctx = vm.createContext({ a: 1 });\n"],
      ['javascript', "const ser = require('node-serialize');\nconst s = ser.serialize({ a: 1 });\n"],
    ] as const) {
      expect(proven(await scanCode(code, language)).developerFields.is_valid, code).toBe(true);
    }
  });

  it('an unclassified call into a known family fails closed with a finding that says so (item 4)', async () => {
    for (const [language, code, line] of [
      ['python', 'import pickle\nx = pickle.some_future_loader(blob)\n', 2],
      ['python', 'import subprocess\nsubprocess.run_pipeline(cmds)\n', 2],
      ['ruby', 'x = Oj.sc_parse(handler, io)\n', 1],
      ['javascript', "const vm = require('vm');\nvm.someNewApi(code);\n", 2],
      ['go', 'package main\nimport "os/exec"\nfunc f(c string) { _ = exec.NewFutureRunner(c) }\n', 3],
    ] as const) {
      const found = issues(await scanCode(code, language)).filter((i) => i.severity === 'critical');
      expect(
        found.map((i) => i.line_number),
        code,
      ).toEqual([line]);
      expect(found[0].description).toMatch(
        /^Call into a process, code-execution or deserialization family that the scanner cannot classify as safe \(fail closed\): /,
      );
    }
  });

  it('a sink fed by input read on an earlier line reports the flow with both lines (item 3)', async () => {
    const code =
      'from flask import request\n\ndef view():\n    code = request.POST.get("code")\n    x = 1\n    y = 2\n    eval(code)\n';
    expect(issues(await scanCode(code, 'python'))).toEqual([
      {
        severity: 'critical',
        type: 'dynamic_code_execution',
        line_number: 7,
        description: 'Dynamic code execution: builtins.eval; input from line 4',
      },
    ]);
    const js =
      "const vm = require('vm');\napp.get('/', (req, res) => {\n  const sandbox = {\n    foo: req.query.input,\n  };\n  vm.runInNewContext('run(foo)', sandbox);\n});\n";
    const found = issues(await scanCode(js, 'javascript')).filter((i) => i.severity === 'critical');
    expect(found.map((i) => i.line_number)).toEqual([6]);
    expect(found[0].description).toMatch(/input from line 3$/);
    // Another handler's input does not count: the search stops at the enclosing function.
    const two =
      "const cp = require('child_process');\napp.get('/a', (req, res) => {\n  const cmd = req.query.c;\n});\napp.get('/b', (req, res) => {\n  cp.exec(cmd);\n});\n";
    const sink = issues(await scanCode(two, 'javascript')).filter((i) => i.severity === 'critical');
    expect(sink).toEqual([
      {
        severity: 'critical',
        type: 'shell_execution',
        line_number: 6,
        description: 'Process execution through child_process: child_process.exec',
      },
    ]);
    // Constant code with a context that carries no input is not critical.
    expect(
      proven(await scanCode("const vm = require('vm');\nvm.runInNewContext('run(foo)', { foo: 1 });\n", 'javascript'))
        .developerFields.is_valid,
    ).toBe(true);
  });

  it('the input-source search is bounded on long adversarial input', () => {
    const src = `code = input()\n${'x = y + code + z + w + v\n'.repeat(20_000)}eval(x)\n`;
    const started = performance.now();
    expect(inputSources(src, 'python', 20_002)).toEqual([]); // the source lies beyond the look-back window
    expect(inputSources(`x = input()\n${'y = x + 1\n'.repeat(50)}eval(y)\n`, 'python', 52)).toEqual([1]);
    // Long runs of blanks after a `do` (the function-header test) stay linear.
    expect(inputSources(`x = gets\n${`  do${' '.repeat(200_000)}x\n`.repeat(5)}  eval(x)\n`, 'ruby', 7)).toEqual([1]);
    // Linear (~0.1 s on a quiet machine); a quadratic search of these inputs (~10^10 steps for the blank runs) takes minutes.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('long assignment chains (issue 24): resolved iteratively, bounded, never an internal error', () => {
  it('a 5,000-long chain from input() to eval is found, and a long `a = b = … = 1` chain is admitted', async () => {
    const n = 5_000;
    const chain = `x0 = input()\n${Array.from({ length: n }, (_, i) => `x${i + 1} = x${i}`).join('\n')}\neval(x${n})\n`;
    const out = await scanCode(chain, 'python');
    expect(out.developerFields.constraint_id).toBe('code_verifier.code_unsafe');
    expect(
      issues(out)
        .filter((i) => i.severity === 'critical')
        .map((i) => i.line_number),
    ).toEqual([n + 2]);
    const alias = `import subprocess\ns0 = subprocess\n${Array.from({ length: n }, (_, i) => `s${i + 1} = s${i}`).join('\n')}\ns${n}.run(cmd)\n`;
    expect(
      issues(await scanCode(alias, 'python'))
        .filter((i) => i.severity === 'critical')
        .map((i) => [i.line_number, i.type]),
    ).toEqual([[n + 3, 'shell_execution']]);
    const targets = `${Array.from({ length: 10_000 }, (_, i) => `c${i}`).join(' = ')} = 1\nprint(c9999)\n`;
    expect(proven(await scanCode(targets, 'python')).developerFields).toMatchObject({
      constraint_id: 'code_verifier.code_safe',
      is_valid: true,
    });
  }, 120_000); // ~8 s on a busy machine, 42 s seen under heavy load: bounded work, not a timed test
  it('JavaScript: a long const chain reaching child_process is found', async () => {
    const n = 3_000;
    const js = `const c0 = require('child_process');\n${Array.from({ length: n }, (_, i) => `const c${i + 1} = c${i};`).join('\n')}\nc${n}.exec(cmd);\n`;
    expect(
      issues(await scanCode(js, 'javascript'))
        .filter((i) => i.severity === 'critical')
        .map((i) => [i.line_number, i.type]),
    ).toEqual([[n + 2, 'shell_execution']]);
  });
});

describe('find-sec-bugs and phpcs shapes (issue 24)', () => {
  const critical = async (code: string, language: string) =>
    issues(await scanCode(code, language))
      .filter((i) => i.severity === 'critical')
      .map((i) => i.line_number);
  it("a class's own readObject hook reading the next object starts no deserialization; a direct call of the hook does", async () => {
    const hook =
      'class A implements java.io.Serializable {\n  Object p;\n  private void readObject(java.io.ObjectInputStream in) throws Exception {\n    p = in.readObject();\n  }\n}\n';
    expect(proven(await scanCode(hook, 'java')).developerFields.is_valid).toBe(true);
    const handed = hook.replace(
      '  Object p;\n',
      '  Object p;\n  void h(java.io.InputStream s) throws Exception { readObject(new java.io.ObjectInputStream(s)); }\n',
    );
    expect(await critical(handed, 'java')).toContain(5);
    // Any other method reading an ObjectInputStream is still reported.
    expect(
      await critical(
        'class A {\n  Object f(java.io.ObjectInputStream in) throws Exception {\n    return in.readObject();\n  }\n}\n',
        'java',
      ),
    ).toContain(3);
  });
  it('PHP: a multi-line backtick command in a region that does not parse is reported on its lines with variables', async () => {
    const php = '<?php\n$a = `ls`;\n$output = `git blame\n\t--date=$_POST[\'key\']\n\t"$filename"`;\n$x = `ls\n';
    const out = await scanCode(php, 'php');
    expect(out.kind).toBe('blocked');
    const lines = ((out.developerFields.issues as Issue[]) ?? [])
      .filter((i) => i.severity === 'critical' && i.type === 'shell_execution')
      .map((i) => i.line_number);
    expect(lines).toEqual(expect.arrayContaining([2, 3, 4, 5]));
  });
});

describe('families found on CodeQL query tests (issue 24)', () => {
  const critical = async (code: string, language: string) =>
    issues(await scanCode(code, language))
      .filter((i) => i.severity === 'critical')
      .map((i) => [i.line_number, i.type] as const);
  it.each([
    [
      'ruby',
      'a = JSON.load(params[:j])\nb = JSON.restore(s)\nc = JSON.parse(s)\n',
      [
        [1, 'unsafe_deserialization'],
        [2, 'unsafe_deserialization'],
      ],
    ],
    [
      'ruby',
      'a = Ox.parse_obj(x)\nb = Ox.load(x, mode: :object)\nc = Ox.load(x)\nd = Ox.load(x, mode: :generic)\n',
      [
        [1, 'unsafe_deserialization'],
        [2, 'unsafe_deserialization'],
      ],
    ],
    [
      'ruby',
      'h = Hash.from_trusted_xml(xml)\nr = Plist.parse_xml(d)\ns = Plist.parse_xml(d, marshal: false)\n',
      [
        [1, 'unsafe_deserialization'],
        [2, 'unsafe_deserialization'],
      ],
    ],
    [
      'ruby',
      'tree = Psych.parse_stream(y)\nobj = tree.to_ruby\no2 = YAML.parse(y).to_ruby\nsafe = Psych.parse(y)\n',
      [
        // Session 16: a stream parsed from computed text fails closed where it is parsed.
        [1, 'unsafe_deserialization'],
        [2, 'unsafe_deserialization'],
        [3, 'unsafe_deserialization'],
      ],
    ],
    ['ruby', "Terrapin::CommandLine.new(params[:foo], 'bar')\n", [[1, 'shell_execution']]],
    [
      'java',
      'import com.esotericsoftware.kryo.Kryo;\nclass A {\n  Object f(com.esotericsoftware.kryo.io.Input in) {\n    Kryo k = new Kryo();\n    return k.readClassAndObject(in);\n  }\n}\n',
      [[5, 'unsafe_deserialization']],
    ],
    [
      'java',
      'import org.yaml.snakeyaml.Yaml;\nclass A {\n  Object f(String s) {\n    Yaml y = new Yaml();\n    return y.loadAs(s, A.class);\n  }\n}\n',
      [[5, 'unsafe_deserialization']],
    ],
  ] as const)('%s: %j', async (language, code, expected) => {
    expect(await critical(code, language)).toEqual(expected);
  });
  it('SnakeYAML built with a SafeConstructor is admitted; a look-alike SafeConstructor is not trusted', async () => {
    const safe =
      'import org.yaml.snakeyaml.Yaml;\nimport org.yaml.snakeyaml.constructor.SafeConstructor;\nclass A {\n  Object f(String s) {\n    Yaml y = new Yaml(new SafeConstructor());\n    return y.load(s) + "" + new Yaml(new SafeConstructor()).loadAll(s);\n  }\n}\n';
    expect(proven(await scanCode(safe, 'java')).developerFields.is_valid).toBe(true);
    const lookalike =
      'import org.yaml.snakeyaml.Yaml;\nclass SafeConstructor {}\nclass A {\n  Object f(String s) {\n    Yaml y = new Yaml(new SafeConstructor());\n    return y.load(s);\n  }\n}\n';
    expect(await critical(lookalike, 'java')).toEqual([[6, 'unsafe_deserialization']]);
  });
});

describe('CodeQL CWE-094 and CWE-502 families (issue 24, third round)', () => {
  const crit = async (code: string, language: string) =>
    issues(await scanCode(code, language))
      .filter((i) => i.severity === 'critical')
      .map((i) => [i.line_number, i.type]);
  const SPEL =
    'import org.springframework.expression.*;\nimport org.springframework.expression.spel.standard.SpelExpressionParser;\nimport org.springframework.expression.spel.support.SimpleEvaluationContext;\nclass T {\n  void f(String input) {\n    ExpressionParser parser = new SpelExpressionParser();\n';
  it('SpEL: evaluating an expression parsed from a computed string is critical at the evaluation; a constant expression or a SimpleEvaluationContext is not', async () => {
    expect(
      await crit(
        `${SPEL}    Expression e = parser.parseExpression(input);\n    e.getValue();\n    e.setValue(null, 1);\n  }\n}\n`,
        'java',
      ),
    ).toEqual([
      [7, 'dynamic_code_execution'],
      [8, 'dynamic_code_execution'],
      [9, 'dynamic_code_execution'],
    ]);
    expect(
      await crit(
        `${SPEL}    Expression c = parser.parseExpression("1 + 1");\n    c.getValue();\n    parser.parseExpression("a").getValue();\n  }\n}\n`,
        'java',
      ),
    ).toEqual([]);
    expect(
      await crit(
        `${SPEL}    Expression e = parser.parseExpression(input);\n    SimpleEvaluationContext ctx = SimpleEvaluationContext.forReadOnlyDataBinding().build();\n    e.getValue(ctx);\n  }\n}\n`,
        'java',
      ),
    ).toEqual([[7, 'dynamic_code_execution']]);
  });
  it('MVEL: running a compiled expression, script or template fails closed unless compiled from a visible constant', async () => {
    const head =
      'import org.mvel2.compiler.*;\nimport org.mvel2.templates.*;\nclass T {\n  void f(String s, java.util.Map m) {\n';
    expect(
      await crit(
        `${head}    ExpressionCompiler c = new ExpressionCompiler(s);\n    ExecutableStatement st = c.compile();\n    st.getValue(null, null);\n    TemplateRuntime.eval(s, m);\n    TemplateRuntime.execute(TemplateCompiler.compileTemplate(s), m);\n  }\n}\n`,
        'java',
      ),
    ).toEqual([
      [7, 'dynamic_code_execution'],
      [8, 'dynamic_code_execution'],
      [9, 'dynamic_code_execution'],
    ]);
    expect(
      await crit(
        `${head}    ExpressionCompiler c = new ExpressionCompiler("a + b");\n    ExecutableStatement st = c.compile();\n    st.getValue(null, null);\n    TemplateRuntime.eval("@{a}", m);\n  }\n}\n`,
        'java',
      ),
    ).toEqual([]);
  });
  it('SnakeYAML parse/compose on a Yaml without a SafeConstructor fails closed; with a SafeConstructor it is admitted', async () => {
    const head =
      'import org.yaml.snakeyaml.Yaml;\nimport org.yaml.snakeyaml.constructor.SafeConstructor;\nclass A {\n  void f(java.io.Reader r) {\n';
    expect(await crit(`${head}    Yaml y = new Yaml();\n    y.parse(r);\n    y.compose(r);\n  }\n}\n`, 'java')).toEqual(
      [
        [6, 'unsafe_deserialization'],
        [7, 'unsafe_deserialization'],
      ],
    );
    expect(
      await crit(`${head}    Yaml y = new Yaml(new SafeConstructor());\n    y.parse(r);\n  }\n}\n`, 'java'),
    ).toEqual([]);
  });
  it('Kryo from a factory method of the snippet that requires registration is admitted; without it, or set back to false, it is critical', async () => {
    const kryo = (factory: string, extra = '') =>
      `import com.esotericsoftware.kryo.Kryo;\nimport com.esotericsoftware.kryo.io.Input;\nclass A {\n  private Kryo safe() {\n    Kryo k = new Kryo();\n${factory}    return k;\n  }\n  Object f(Input in) {\n    Kryo kryo = safe();\n${extra}    return kryo.readClassAndObject(in);\n  }\n}\n`;
    expect(await crit(kryo('    k.setRegistrationRequired(true);\n'), 'java')).toEqual([]);
    expect(await crit(kryo(''), 'java')).toEqual([[10, 'unsafe_deserialization']]);
    expect(
      await crit(kryo('    k.setRegistrationRequired(true);\n', '    kryo.setRegistrationRequired(false);\n'), 'java'),
    ).toEqual([[12, 'unsafe_deserialization']]);
  });
  it('Ruby: a `def eval` in another class does not shadow Kernel#eval; one in the same class does', async () => {
    expect(
      await crit(
        'class Foo\n  def eval(x)\n    true\n  end\n  def bar(x)\n    eval(x)\n  end\nend\nclass C\n  def create\n    eval(params[:code])\n  end\nend\n',
        'ruby',
      ),
    ).toEqual([[11, 'dynamic_code_execution']]);
  });
  it('Ruby: a backtick heredoc is a command (its first line and each interpolated body line); a plain heredoc is text', async () => {
    expect(
      await crit('cmd = params[:cmd]\nr = <<~`EOF`\n  ls #{cmd}\nEOF\nt = <<~EOF\n  ls #{cmd}\nEOF\n', 'ruby'),
    ).toEqual([
      [2, 'shell_execution'],
      [3, 'shell_execution'],
    ]);
  });
  it("Ruby: send with a computed name, const_get by a computed name and ActiveJob deserialization are critical; a constrained name or the class's own singleton method is not", async () => {
    expect(
      await crit(
        'class C\n  def create\n    code = params[:code]\n    obj().send(code, "x")\n    public_send(params[:m])\n    Foo.const_get(code)\n    ActiveJob::Serializers.deserialize(code)\n    obj().send("prefix_#{code}", "x")\n    obj().send("get_" + code)\n    obj().send("ev#{code}")\n    Bar.class_eval(code)\n    Bar.const_get(code)\n  end\nend\nclass Bar\n  def self.class_eval(x)\n    x\n  end\n  def self.const_get(x)\n    x\n  end\nend\n',
        'ruby',
      ),
    ).toEqual([
      [4, 'dynamic_code_execution'],
      [5, 'dynamic_code_execution'],
      [6, 'dynamic_code_execution'],
      [7, 'unsafe_deserialization'],
      [10, 'dynamic_code_execution'],
    ]);
  });
  it('js-yaml: load without a schema, or with DEFAULT_SCHEMA (js-yaml 3: the full schema), stays critical; a js-yaml 4 `.extend` schema of safe types is admitted', async () => {
    const head = "const y = require('js-yaml');\n";
    expect(await crit(`${head}y.load(s);\ny.load(s, { schema: y.DEFAULT_SCHEMA });\n`, 'javascript')).toEqual([
      [2, 'unsafe_deserialization'],
      [3, 'unsafe_deserialization'],
    ]);
    expect(
      await crit(
        `${head}y.load(s, { schema: y.DEFAULT_SCHEMA.extend(require('js-yaml-js-types').undefined) });\ny.load(s, { schema: y.CORE_SCHEMA });\n`,
        'javascript',
      ),
    ).toEqual([]);
    expect(
      await crit(
        `${head}y.load(s, { schema: y.DEFAULT_SCHEMA.extend(require('js-yaml-js-types').function) });\ny.load(s, { schema: y.DEFAULT_SCHEMA.extend(types) });\n`,
        'javascript',
      ),
    ).toEqual([
      [2, 'unsafe_deserialization'],
      [3, 'unsafe_deserialization'],
    ]);
  });
});

describe('JavaScript code-injection families from CodeQL CWE-094 (issue 24, third round)', () => {
  const crit = async (code: string) =>
    issues(await scanCode(code, 'javascript'))
      .filter((i) => i.severity === 'critical')
      .map((i) => i.line_number);
  it('AngularJS: scope methods and injected $compile/$parse/$interpolate given a computed expression are critical; a function or a constant is not', async () => {
    expect(
      await crit(
        "app.controller('C', function($scope, $compile, $parse) {\n  $scope.$eval(location.search);\n  $scope.$watch(q);\n  $compile(html);\n  $parse(expr);\n  $scope.$apply(function () { x = 1; });\n  $scope.$watch('name', (v) => v);\n  $compile('<b>hi</b>');\n});\n",
      ),
    ).toEqual([2, 3, 4, 5]);
  });
  it('WebAssembly from computed bytes, an on* attribute through jQuery, Module#_compile, WebView injection, node-pty writes, webix templates and Mongo $where', async () => {
    expect(await crit('WebAssembly.compile(buf);\nWebAssembly.instantiate(bytes, imports);\n')).toEqual([1, 2]);
    expect(await crit("$('<a>').attr('onclick', location.hash);\n$('<a>').attr('title', location.hash);\n")).toEqual([
      1,
    ]);
    expect(
      await crit(
        "const Module = require('module');\nconst m = new Module('x');\nm._compile(src, 'x.js');\nm._compile('1 + 1', 'y.js');\n",
      ),
    ).toEqual([3]);
    expect(await crit('function f(webView, js) {\n  webView.injectJavaScript(js);\n}\n')).toEqual([2]);
    expect(
      await crit(
        'const a = <WebView injectedJavaScript="x()" />;\nconst b = <WebView injectedJavaScript={\'y()\'} />;\nconst c = <WebView injectedJavaScript={code} />;\n',
      ),
    ).toEqual([3]);
    expect(
      await crit("const pty = require('node-pty');\nconst sh = pty.spawn('bash', []);\nsh.write(cmd);\n"),
    ).toContain(3);
    expect(
      await crit(
        "const webix = require('webix');\nwebix.ui({ template: t });\nwebix.ui({ template: '#name#' });\nwebix.ui({ template: function () { return t; } });\n",
      ),
    ).toEqual([2, 4]);
    expect(
      await crit(
        "function q(db, body) {\n  const d = db.collection('d');\n  d.find({ $where: body.q });\n  d.find({ $where: 'name = ' + body.n });\n  d.find({ $where: 'this.a > 1' });\n  d.find({ a: body.a });\n}\n",
      ),
    ).toEqual([3, 4]);
  });
});

describe('headless-browser page.evaluate on a page the snippet receives (issue 24)', () => {
  it('a page or frame parameter given code built at run time is critical; a function or constant code is not; XPath document.evaluate is not', async () => {
    const crit = async (code: string) =>
      issues(await scanCode(code, 'javascript'))
        .filter((i) => i.severity === 'critical')
        .map((i) => i.line_number);
    expect(await crit('async function f(page, c) {\n  await page.evaluate("return " + c);\n}\n')).toEqual([2]);
    expect(await crit('async function f(frame, c) {\n  return frame.evaluateHandle(`${c}()`);\n}\n')).toEqual([2]);
    expect(
      await crit(
        'async function f(page) {\n  await page.evaluate(() => document.title);\n  await page.evaluate("1 + 1");\n}\n',
      ),
    ).toEqual([]);
    expect(await crit('function f(doc, c) {\n  return doc.evaluate(c, doc);\n}\n')).toEqual([]);
  });
});

describe('issue 24, session 10: chained receivers, SpEL out of sight, unclassified families in Java and PHP', () => {
  const crit = async (code: string, language: string) =>
    issues(await scanCode(code, language))
      .filter((i) => i.severity === 'critical')
      .map((i) => i.line_number);
  it('JavaScript: a method rule sees a call on a chained receiver (the text prefix stops at the first call)', async () => {
    expect(
      await crit(
        "function h(db, req, getScope) {\n  db.collection('d').find({ $where: 'this.a == ' + req.query.a });\n  getDb().collection('d').findOne({ $where: req.query.a });\n  getScope().$eval(req.query.e);\n  db.collection('d').find({ a: req.query.a });\n  db.collection('d').find({ $where: 'this.a > 1' });\n  getScope().$eval(function () {});\n}\n",
        'javascript',
      ),
    ).toEqual([2, 3, 4]);
  });
  it('Java: a parseExpression evaluated at once on a parser the snippet does not declare is critical unless constant or in a SimpleEvaluationContext', async () => {
    expect(
      await crit(
        'import org.springframework.expression.spel.support.SimpleEvaluationContext;\nclass A {\n  Object f(String s) {\n    Object a = helper.parseExpression(s).getValue();\n    Object b = getParser().parseExpression(s).getValue(ctx);\n    Object c = helper.parseExpression("1 + 1").getValue();\n    Object d = helper.parseExpression(s).getValue(SimpleEvaluationContext.forReadOnlyDataBinding().build());\n    return this.parser().parseRaw(s).setValue(ctx, 1);\n  }\n}\n',
        'java',
      ),
    ).toEqual([4, 5, 8]);
  });
  it('Java: an unclassified member of a process, script or deserialization class fails closed; the known-harmless members do not', async () => {
    const src =
      'import java.io.*;\nimport java.util.List;\nimport javax.script.*;\nimport groovy.lang.GroovyShell;\nclass U {\n  void f(InputStream in, String s, List<ProcessBuilder> pbs, ScriptEngine eng) throws Exception {\n    ProcessBuilder.startPipeline(pbs);\n    new GroovyShell().parseLater(s);\n    new ObjectInputStream(in).readSomething();\n    ((Compilable) eng).compile(s);\n    new ProcessBuilder("ls").directory(new File("/tmp")).redirectErrorStream(true);\n    Runtime.getRuntime().availableProcessors();\n    new ObjectInputStream(in).readInt();\n    eng.put("x", 1);\n    ((Compilable) eng).compile("1 + 1");\n  }\n}\n';
    const found = issues(await scanCode(src, 'java')).filter((i) => i.severity === 'critical');
    // Line 11 still constructs a ProcessBuilder (a process the contract always blocks).
    expect(found.map((i) => i.line_number)).toEqual([7, 8, 9, 10, 11]);
    expect(found.filter((i) => /cannot classify/.test(i.description)).map((i) => i.line_number)).toEqual([7, 8, 9]);
  });
  it('PHP: igbinary and msgpack deserializers are critical like unserialize', async () => {
    expect(
      await crit(
        "<?php\n$a = igbinary_unserialize($_GET['d']);\n$b = msgpack_unpack($_POST['d']);\n$c = igbinary_serialize($a);\n",
        'php',
      ),
    ).toEqual([2, 3]);
  });
  it('Python: the code module and runpy run computed code; constant code, a constant module and an unbound `code` variable do not', async () => {
    expect(
      await crit(
        'import code, runpy\nrunpy.run_path(p)\nrunpy.run_module("json.tool")\nii = code.InteractiveInterpreter()\nii.runsource(src)\ncode.InteractiveConsole().push("print(1)")\ncode.interact()\nrunpy.run_later(p)\n',
        'python',
      ),
    ).toEqual([2, 5, 7, 8]);
    expect(await crit('print(code.upper())\n', 'python')).toEqual([]);
  });
  it('Ruby: an Oj options hash whose mode is certainly set to a safe mode before the call is admitted; any other shape keeps the default object mode', async () => {
    const def = (body: string) => `class C\n  def r\n${body}  end\nend\n`;
    expect(
      await crit(def('    o = { allow_blank: true }\n    o[:mode] = :json\n    Oj.load params[:a], o\n'), 'ruby'),
    ).toEqual([]);
    expect(await crit(def('    o = { allow_blank: true, mode: :rails }\n    Oj.load params[:a], o\n'), 'ruby')).toEqual(
      [],
    );
    for (const body of [
      '    o = { allow_blank: true }\n    Oj.load params[:a], o\n',
      '    o = { mode: :json }\n    o[:mode] = :object\n    Oj.load params[:a], o\n',
      '    o = { mode: :json }\n    o.merge!(mode: :object)\n    Oj.load params[:a], o\n',
      '    o = { mode: :json }\n    o[:mode] = :object if params[:x]\n    Oj.load params[:a], o\n',
      '    o = { mode: :json }\n    p = o\n    p[:mode] = :object\n    Oj.load params[:a], o\n',
      '    o = { mode: :json }\n    evil(binding)\n    Oj.load params[:a], o\n',
      '    o = { mode: :json }\n    [1].each do\n      Oj.load params[:a], o\n      o[:mode] = :object\n    end\n',
    ])
      expect(await crit(def(body), 'ruby')).toHaveLength(1);
  });
  it('80,000 characters of chained calls scan in linear time', async () => {
    const js = `function f(db, x) {\n${"  db.collection('d').find({ $where: x });\n".repeat(2_000)}}\n`;
    const java = `class A {\n  void f(String s) {\n${'    helper.next().parseExpression(s).getValue();\n'.repeat(1_800)}  }\n}\n`;
    expect(js.length).toBeGreaterThan(80_000);
    expect(java.length).toBeGreaterThan(80_000);
    const t0 = performance.now();
    expect((await crit(js, 'javascript')).length).toBe(2_000);
    expect((await crit(java, 'java')).length).toBe(1_800);
    // Many Oj calls in one long method: each reads a bounded window of lines; a method longer than
    // the window is not read at all (fail closed), so every call keeps the default object mode.
    const ruby = `class C\n  def r\n    o = { mode: :json }\n${'    Oj.load params[:a], o\n'.repeat(3_200)}  end\nend\n`;
    expect(ruby.length).toBeGreaterThan(80_000);
    expect((await crit(ruby, 'ruby')).length).toBe(3_200);
    // Seconds, not minutes: a match quadratic in the input would take far longer on 80,000 characters.
    expect(performance.now() - t0).toBeLessThan(30_000);
  });
});
