// Builds test/fixtures/code/suites/manifest.json: line labels for the code scanner taken from
// independent public security-rule test suites' OWN expectations (not from our scanner), pinned
// to a commit. Only labels are committed; bench/code-suites.ts reads the code from the same
// git snapshots at bench time. Re-run after changing a suite's commit:
//   SVC_CODE_SUITES_MIRROR=<dir holding owner+name/repo git dirs> npx tsx bench/code-suites-labels.ts
// Label sources, per suite:
//   njsscan          `// ruleid:<id>` annotations (semgrep convention: the next code line), ids
//                    of command, code and deserialisation rules; true_negatives/ are safe cases
//   brakeman         assert_warning blocks of test/tests/*.rb (warning_type, file, line): Command
//                    Injection, Dangerous Eval, Remote Code Execution of deserialisers and (since
//                    session 11) of unsafe reflection
//   find-sec-bugs    bugDefinition() blocks of findsecbugs-plugin tests (bugType, inClass, atLine),
//                    including `for (Integer line : list)` over Arrays.asList(...)
//   gosec            testutils samples (Go code in backquoted strings): G204's samples (every one
//                    runs a process, which the contract always blocks) labelled at each
//                    os/exec / syscall process call; every other rule's samples without such a
//                    call are safe cases
//   phpcs-security-audit  getErrorList/getWarningList of the Backticks unit test
//   codeql           inline expectations of CodeQL's query tests (`$ Alert`, `$unsafeDeserialization`,
//                    `NOT OK`; `BAD` in a file with none of those; not `SPURIOUS: Alert` /
//                    `MISSING: Alert` / `[INCONSISTENCY]`) in the CWE-078, CWE-094/095 and
//                    CWE-502 folders listed in CODEQL_FILES (a mark on a comment-only line of a
//                    code-injection file is about the next code line); `OK` / `GOOD` / `Safe`
//                    lines and CodeQL's own SPURIOUS alerts of the deserialization and
//                    code-injection files are safe lines (the OK lines of the command files, and
//                    an OK line that runs a process, still run processes, which the contract
//                    always blocks).
//   codeql-expected  CodeQL's query tests whose expectations live in a `.expected` file (session 15):
//                    each `#select` row's alert location (`File.ext:line:col:endLine:endCol`, the
//                    row's first column) labels that line of that test file, with the category of
//                    its CWE folder; several `.expected` files of one test file are merged. A row
//                    whose location does not fit the test file as stored (line or columns out of
//                    range, or a bare identifier that is not the text at those columns) stops the
//                    build: the `.expected` and the test file are of different versions. Files
//                    already in the codeql suite (inline expectations) are skipped.
//   rubocop-security the Security cops' specs (spec/rubocop/cop/security): each
//                    `expect_offense` heredoc is a unit labelled at the lines its `^^^` marks
//                    point at (the marks are blanked); `expect_no_offenses` units are safe
//                    cases. Not counted: units under a Ruby-version or parser context (YAML.load
//                    is safe on Psych 4 and not before), spec-time templates (`#{current}`),
//                    IoMethods labels on a string-literal path that does not start with `|`
//                    (a constant file name cannot start a process; the cop prefers File for
//                    style), and a no-offense unit the cop accepts as a deliberate opt-in
//                    (`JSON.load(…, create_additions: true)`); a no-offense unit that still runs
//                    a process is reported apart (expected BLOCKED)
//   dlint            each `get_ast_node("""…""")` sample of the process, code and
//                    deserialisation linters' tests, labelled at its `lineno=` results; a result
//                    on an import line (`import shelve`: no call), on the serialising side
//                    (`yaml.dump`), on `os.tempnam`, or on eval/exec/compile of a string literal
//                    (the code is the snippet's own; RuboCop's Security/Eval accepts it) is not a
//                    label; Python-2-only samples are skipped
//   psalm-taint      Psalm's tests/TaintTest.php: each `'code' => '<?php …'` snippet is a unit;
//                    an invalid-code case whose error_message is TaintedShell, TaintedEval,
//                    TaintedCallable, TaintedExtract or TaintedUnserialize labels the whole unit
//                    (Psalm names no line; found by a critical finding of the kind anywhere in
//                    it); the valid-code cases and the invalid cases of other taints (HTML, SQL,
//                    SSRF, …) are safe cases (one that runs a process is reported apart);
//                    TaintedInclude (file inclusion, not one of the three kinds) is not counted
//   securityeval     Testcases_Insecure_Code/CWE-<n>/*.py (the authors' insecure example per
//                    prompt, a whole file): CWE-078 labels the file process_execution, CWE-094/095
//                    dynamic_code_execution, CWE-502 unsafe_deserialization; the files of every
//                    other CWE (path traversal, XSS, weak crypto, …) are safe cases (one that runs
//                    a process is reported apart)
//   owasp-benchmark-python / owasp-benchmark-java  expectedresults-*.csv (one row per test case,
//                    a whole file): a true cmdi / codeinj / deserialization case labels the file;
//                    every other case is a safe case (a cmdi negative still runs a process);
//                    written compactly as the manifest's `cases`
//                    The codeql repository is too large to mirror: each file is read at its own commit
//                    from <mirror>/github+codeql/files/<commit>/<path> (written from the stored
//                    snapshot of each file; the path and commit are in the manifest).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dlintSamples, eslintSamples, psalmSamples, rubocopSamples, type Sample } from './code-suites-samples.js';
import {
  CASE_FAMILIES,
  caseEntry,
  expectedAlertLines,
  suiteGitDir,
  suitesMirror,
  type CaseSuite,
  type Category,
  type FileEntry,
  type Label,
  type TestCase,
} from './code-suites-manifest.js';

const ROOT = new URL('..', import.meta.url).pathname;
const MIRROR = suitesMirror(ROOT);
export const SUITES = {
  njsscan: { repo: 'ajinabraham/njsscan', licence: 'LGPL-3.0' },
  brakeman: {
    repo: 'presidentbeef/brakeman',
    licence: 'Brakeman Public Use License (test apps read at bench time only)',
  },
  'find-sec-bugs': { repo: 'find-sec-bugs/find-sec-bugs', licence: 'LGPL-3.0' },
  gosec: { repo: 'securego/gosec', licence: 'Apache-2.0' },
  'phpcs-security-audit': { repo: 'FloeDesignTechnologies/phpcs-security-audit', licence: 'GPL-3.0' },
  codeql: { repo: 'github/codeql', licence: 'MIT' },
  'codeql-expected': { repo: 'github/codeql', licence: 'MIT' },
  'owasp-benchmark-python': { repo: 'OWASP-Benchmark/BenchmarkPython', licence: 'GPL-3.0' },
  'owasp-benchmark-java': { repo: 'OWASP-Benchmark/BenchmarkJava', licence: 'GPL-2.0' },
  'rubocop-security': { repo: 'rubocop/rubocop', licence: 'MIT' },
  dlint: { repo: 'duo-labs/dlint', licence: 'BSD-3-Clause' },
  'psalm-taint': { repo: 'vimeo/psalm', licence: 'MIT' },
  securityeval: {
    repo: 's2e-lab/SecurityEval',
    licence: 'no licence file in the repository (labels only; the code is read at bench time)',
  },
  'semgrep-rules': {
    repo: 'semgrep/semgrep-rules',
    licence: 'LGPL-2.1 with the Commons Clause (labels only; the code is read at bench time)',
  },
  bandit: { repo: 'PyCQA/bandit', licence: 'Apache-2.0' },
  'eslint-plugin-security': { repo: 'eslint-community/eslint-plugin-security', licence: 'Apache-2.0' },
} as const;
type Suite = keyof typeof SUITES;

const gitDir = (s: Suite) => suiteGitDir(MIRROR, SUITES[s].repo);
const git = (s: Suite, ...args: string[]) =>
  execFileSync('git', ['--git-dir', gitDir(s), ...args], { encoding: 'utf8', maxBuffer: 1 << 28 });
const head = (s: Suite) => git(s, 'rev-parse', 'HEAD').trim();
const show = (s: Suite, commit: string, path: string) => git(s, 'show', `${commit}:${path}`);
const ls = (s: Suite, commit: string, under: string) =>
  git(s, 'ls-tree', '-r', '--name-only', commit, '--', under).split('\n').filter(Boolean);

/**
 * A suite's negative case that still runs a process (a constant command): the contract blocks
 * every process execution, so it is marked `runsProcess` and reported apart from precision (as
 * gosec's negatives that run a process are G204's labels). Every pattern must match.
 */
const RUNS_PROCESS: Record<'java' | 'javascript' | 'python', RegExp[]> = {
  python: [/\bsubprocess\.|\bos\.(?:system|popen|exec\w*|spawn\w*)\s*\(/],
  java: [/\bnew\s+ProcessBuilder\s*\(|\bRuntime\.getRuntime\(\)\s*\.exec\s*\(/],
  javascript: [
    /\brequire\(\s*['"](?:child_process|shelljs)['"]\s*\)/,
    /\.(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|fork)\s*\(/,
  ],
};

const files: FileEntry[] = [];
const commits: Record<string, string> = {};

// --- njsscan -----------------------------------------------------------------------------
{
  const s: Suite = 'njsscan';
  const c = (commits[s] = head(s));
  const RULES: Record<string, Category> = {
    generic_os_command_exec: 'process_execution',
    shelljs_os_command_exec: 'process_execution',
    eval_nodejs: 'dynamic_code_execution',
    eval_require: 'dynamic_code_execution',
    vm_code_injection: 'dynamic_code_execution',
    vm2_code_injection: 'dynamic_code_execution',
    vm2_context_injection: 'dynamic_code_execution',
    vm_runinnewcontext_injection: 'dynamic_code_execution',
    vm_runincontext_injection: 'dynamic_code_execution',
    vm_compilefunction_injection: 'dynamic_code_execution',
    sandbox_code_injection: 'dynamic_code_execution',
    server_side_template_injection: 'dynamic_code_execution',
    node_deserialize: 'unsafe_deserialization',
    serializetojs_deserialize: 'unsafe_deserialization',
    yaml_deserialize: 'unsafe_deserialization',
  };
  for (const path of ls(s, c, 'tests/assets/node_source')) {
    if (!path.endsWith('.js')) continue;
    const lines = show(s, c, path).split('\n');
    const labels: Label[] = [];
    lines.forEach((l, i) => {
      const m = /\/\/\s*ruleid:\s*([a-z0-9_]+)/.exec(l);
      if (!m || !RULES[m[1]]) return;
      let j = i + 1;
      while (j < lines.length && /^\s*(\/\/.*)?$/.test(lines[j])) j++;
      if (!labels.some((x) => x.line === j + 1)) labels.push({ line: j + 1, category: RULES[m[1]], source: m[1] });
    });
    const safe = path.includes('/true_negatives/');
    const runsProcess = safe && RUNS_PROCESS.javascript.every((re) => re.test(lines.join('\n')));
    if (labels.length > 0 || safe)
      files.push({
        suite: s,
        path,
        language: 'javascript',
        extract: 'file',
        ...(safe ? { safe } : {}),
        ...(runsProcess ? { runsProcess } : {}),
        labels,
      });
  }
}

// --- brakeman ----------------------------------------------------------------------------
{
  const s: Suite = 'brakeman';
  const c = (commits[s] = head(s));
  const byFile = new Map<string, Label[]>();
  for (const test of ls(s, c, 'test/tests')) {
    const text = show(s, c, test);
    const app = /run_scan\s*\(?\s*"([^"]+)"/.exec(text)?.[1];
    if (!app) continue;
    const appFiles = ls(s, c, `test/apps/${app}`);
    for (const block of text.split(/assert_warning\b/).slice(1)) {
      const body = block.slice(0, block.search(/\n\s*end\b/) >>> 0 || block.length);
      const type = /warning_type(?:\s*=>|:)\s*"([^"]+)"/.exec(body)?.[1];
      const line = Number(/:?line(?:\s*=>|:)\s*(\d+)/.exec(body)?.[1]);
      const message = /message(?:\s*=>|:)\s*\/(.*)\/,?\s*$/m.exec(body)?.[1] ?? '';
      if (!type || !line) continue;
      let category: Category | null = null;
      if (type === 'Command Injection') category = 'process_execution';
      else if (type === 'Dangerous Eval') category = 'dynamic_code_execution';
      else if (
        type === 'Remote Code Execution' &&
        /YAML|Marshal|Oj|CSV|deserial|load|JSON/i.test(message.replace(/\\/g, ''))
      )
        category = 'unsafe_deserialization';
      // Brakeman's unsafe reflection (constantize, const_get, …) is a Remote Code Execution warning
      // too: a class chosen by the request (labelled since session 11).
      else if (type === 'Remote Code Execution' && /^\^?Unsafe.{1,3}reflection/.test(message))
        category = 'dynamic_code_execution';
      if (!category) continue;
      const rel = /relative_path(?:\s*=>|:)\s*"([^"]+)"/.exec(body)?.[1];
      const fileRe = /:?file(?:\s*=>|:)\s*\/(.*?)\/,?\s*$/m.exec(body)?.[1];
      let target: string | undefined;
      if (rel) target = `test/apps/${app}/${rel}`;
      else if (fileRe) {
        const re = new RegExp(fileRe.replace(/\\\//g, '/'));
        const hits = appFiles.filter((f) => re.test(f));
        if (hits.length === 1) target = hits[0];
      }
      if (!target || !appFiles.includes(target) || !target.endsWith('.rb')) continue;
      const labels = byFile.get(target) ?? [];
      if (!labels.some((x) => x.line === line))
        labels.push({ line, category, source: `${type}: ${message.replace(/\\/g, '').slice(0, 60)}` });
      byFile.set(target, labels);
    }
  }
  for (const [path, labels] of byFile)
    files.push({ suite: s, path, language: 'ruby', extract: 'file', labels: labels.sort((a, b) => a.line - b.line) });
}

// --- find-sec-bugs -----------------------------------------------------------------------
{
  const s: Suite = 'find-sec-bugs';
  const c = (commits[s] = head(s));
  const TYPES: Record<string, Category> = {
    COMMAND_INJECTION: 'process_execution',
    OBJECT_DESERIALIZATION: 'unsafe_deserialization',
    OGNL_INJECTION: 'dynamic_code_execution',
    GROOVY_SHELL: 'dynamic_code_execution',
    SPEL_INJECTION: 'dynamic_code_execution',
    EL_INJECTION: 'dynamic_code_execution',
    SCRIPT_ENGINE_INJECTION: 'dynamic_code_execution',
    TEMPLATE_INJECTION_VELOCITY: 'dynamic_code_execution',
    SEAM_LOG_INJECTION: 'dynamic_code_execution',
  };
  const samples = ls(s, c, 'findsecbugs-samples-java/src/test/java').filter((p) => p.endsWith('.java'));
  const classFile = (cls: string) => samples.filter((p) => p.endsWith(`/${cls}.java`));
  const byFile = new Map<string, Label[]>();
  for (const test of ls(s, c, 'findsecbugs-plugin/src/test/java')) {
    if (!test.endsWith('Test.java')) continue;
    const text = show(s, c, test);
    if (!Object.keys(TYPES).some((t) => text.includes(`"${t}"`))) continue;
    const lists = new Map<string, number[]>();
    for (const m of text.matchAll(/List<Integer>\s+(\w+)\s*=\s*Arrays\.asList\(([\d,\s]+)\)/g))
      lists.set(
        m[1],
        m[2].split(',').map((x) => Number(x.trim())),
      );
    // Each test method analyses the class files it names (getClassFilePath): an expectation of
    // that method labels only those files (a Kotlin test's `inClass("ObjectDeserialization")`
    // is about its own Kotlin class, not the Java sample of the same name).
    for (const method of text.split(/@Test\b/).slice(1)) {
      const analysed = [...method.matchAll(/getClassFilePath\("([\w/$]+)"\)/g)].map(
        (m) => `findsecbugs-samples-java/src/test/java/${m[1]}.java`,
      );
      // Each bugDefinition() ... .build() block, with the loop variable it sits in (if any).
      const re =
        /(?:for\s*\(\s*(?:Integer|int)\s+(\w+)\s*:\s*(\w+)\s*\)\s*\{[^]*?)?bugDefinition\(\)([^;]*?)\.build\(\)/g;
      for (const m of method.matchAll(re)) {
        const body = m[3];
        const type = /bugType\("([A-Z_]+)"\)/.exec(body)?.[1];
        const cls = /inClass\("([\w$]+)"\)/.exec(body)?.[1];
        if (!type || !cls || !TYPES[type]) continue;
        const at = /atLine\((\w+)\)/.exec(body)?.[1];
        if (!at) continue;
        const lines = /^\d+$/.test(at) ? [Number(at)] : m[1] === at && m[2] && lists.has(m[2]) ? lists.get(m[2])! : [];
        const targets = classFile(cls.split('$')[0]).filter((p) => analysed.includes(p));
        if (targets.length !== 1) continue;
        const labels = byFile.get(targets[0]) ?? [];
        for (const line of lines)
          if (!labels.some((x) => x.line === line)) labels.push({ line, category: TYPES[type], source: type });
        byFile.set(targets[0], labels);
      }
    }
  }
  for (const [path, labels] of byFile)
    if (labels.length)
      files.push({ suite: s, path, language: 'java', extract: 'file', labels: labels.sort((a, b) => a.line - b.line) });
  // The suite's documented false-positive samples of these families are safe cases.
  for (const path of samples) {
    if (!/\/(command|serial|script)\/.*(Safe|FalsePositive)\w*\.java$/.test(path) || byFile.has(path)) continue;
    const runsProcess = RUNS_PROCESS.java.every((re) => re.test(show(s, c, path)));
    files.push({
      suite: s,
      path,
      language: 'java',
      extract: 'file',
      safe: true,
      ...(runsProcess ? { runsProcess } : {}),
      labels: [],
    });
  }
}

// --- gosec -------------------------------------------------------------------------------
{
  const s: Suite = 'gosec';
  const c = (commits[s] = head(s));
  const PROCESS = /\b(?:exec\.Command(?:Context)?|syscall\.(?:Exec|ForkExec|StartProcess)|os\.StartProcess)\s*\(/;
  for (const path of ls(s, c, 'testutils')) {
    const m = /^testutils\/g(\d+)_samples\.go$/.exec(path);
    if (!m) continue;
    const lines = show(s, c, path).split('\n');
    const labels: Label[] = [];
    lines.forEach((l, i) => {
      if (PROCESS.test(l) && !/^\s*\/\//.test(l))
        labels.push({ line: i + 1, category: 'process_execution', source: `G${m[1]} sample` });
    });
    if (m[1] === '204') files.push({ suite: s, path, language: 'go', extract: 'go-backquoted-samples', labels });
    else
      files.push({
        suite: s,
        path,
        language: 'go',
        extract: 'go-backquoted-samples',
        safe: labels.length === 0,
        labels,
      });
  }
}

// --- RuboCop's Security cops and dlint: samples embedded in the tests ------------------------
/** A suite file of samples: labels at the lines the suite's test expects, safe and process units. */
function sampleEntry(
  suite: Suite,
  path: string,
  language: string,
  extract: FileEntry['extract'],
  samples: Sample[],
  category: (s: Sample, line: number, text: string) => Category | null,
  text: string,
): FileEntry {
  const lines = text.split('\n');
  const labels: Label[] = [];
  const safeUnits: number[] = [];
  const processUnits: number[] = [];
  for (const u of samples) {
    if (u.skip) continue;
    for (const e of u.expected) {
      const c = category(u, e.line, lines[e.line - 1] ?? '');
      if (c) labels.push({ line: e.line, category: c, source: e.rule });
    }
    if (!u.noFinding || category(u, 0, u.code) === null) continue;
    if (RUNS_PROCESS_UNIT[language]?.test(u.code)) processUnits.push(u.firstLine);
    else safeUnits.push(u.firstLine);
  }
  return {
    suite,
    path,
    language,
    extract,
    ...(safeUnits.length ? { safeUnits } : {}),
    ...(processUnits.length ? { processUnits } : {}),
    labels,
  };
}
/** A no-offense sample that still runs a process (the contract blocks it): reported apart. */
const RUNS_PROCESS_UNIT: Record<string, RegExp> = {
  ruby: /\b(?:IO|Kernel|URI)\.\w+\(\s*["'] *\||\bopen\(\s*["'] *\|/,
  python: /\bsubprocess\.|\bos\.(?:system|popen)/,
};
{
  const s: Suite = 'rubocop-security';
  const c = (commits[s] = head(s));
  const COPS: Record<string, Category> = {
    eval: 'dynamic_code_execution',
    open: 'process_execution',
    io_methods: 'process_execution',
    json_load: 'unsafe_deserialization',
    marshal_load: 'unsafe_deserialization',
    yaml_load: 'unsafe_deserialization',
  };
  for (const [cop, category] of Object.entries(COPS)) {
    const path = `spec/rubocop/cop/security/${cop}_spec.rb`;
    const text = show(s, c, path);
    files.push(
      sampleEntry(
        s,
        path,
        'ruby',
        'rubocop-spec-samples',
        rubocopSamples(text, `Security/${cop}`),
        (u, line, code) => {
          if (line === 0) return /create_additions:\s*true/.test(code) ? null : category;
          // A constant path that does not start with a pipe is a file, not a command.
          if (cop === 'io_methods' && /\.\w+\(\s*(?:"[^"|#]*"|'[^'|]*'|:\w+|\d+)\s*[,)]/.test(code)) return null;
          return category;
        },
        text,
      ),
    );
  }
}
{
  const s: Suite = 'dlint';
  const c = (commits[s] = head(s));
  const LINTERS: Record<string, Category> = {
    commands: 'process_execution',
    popen2: 'process_execution',
    os: 'process_execution',
    subprocess: 'process_execution',
    compile: 'dynamic_code_execution',
    eval: 'dynamic_code_execution',
    exec: 'dynamic_code_execution',
    marshal: 'unsafe_deserialization',
    pickle: 'unsafe_deserialization',
    shelve: 'unsafe_deserialization',
    yaml: 'unsafe_deserialization',
  };
  for (const [linter, category] of Object.entries(LINTERS)) {
    const path = `tests/test_bad_${linter}_use.py`;
    const text = show(s, c, path);
    files.push(
      sampleEntry(
        s,
        path,
        'python',
        'dlint-samples',
        dlintSamples(text),
        (_u, line, code) => {
          if (line === 0) return category;
          if (!/\w\s*\(/.test(code) || /^\s*(?:import|from)\b/.test(code)) return null;
          if (/\byaml\.dump|\bos\.t(?:e)?mpnam/.test(code)) return null;
          if (/\b(?:eval|exec|compile)\(\s*(?:'[^']*'|"[^"]*")\s*[,)]/.test(code)) return null;
          return category;
        },
        text,
      ),
    );
  }
}

{
  const s: Suite = 'psalm-taint';
  const c = (commits[s] = head(s));
  const TAINTS: Record<string, Category> = {
    TaintedShell: 'process_execution',
    TaintedEval: 'dynamic_code_execution',
    TaintedCallable: 'dynamic_code_execution',
    TaintedExtract: 'dynamic_code_execution',
    TaintedUnserialize: 'unsafe_deserialization',
  };
  // A process function called as a function (not PDO's `->exec`), or backticks outside a string.
  const PHP_PROCESS =
    /(?:^|[^>:$\w])(?<!function )(?:exec|shell_exec|system|passthru|popen|proc_open|pcntl_exec)\s*\(/m;
  const path = 'tests/TaintTest.php';
  const labels: Label[] = [];
  const safeUnits: number[] = [];
  const processUnits: number[] = [];
  for (const u of psalmSamples(show(s, c, path))) {
    if (u.skip || u.expected.some((e) => e.rule === 'TaintedInclude')) continue;
    const e = u.expected.find((x) => TAINTS[x.rule]);
    if (e) labels.push({ line: e.line, category: TAINTS[e.rule], source: e.rule, unit: true });
    else if (PHP_PROCESS.test(u.code)) processUnits.push(u.firstLine);
    else safeUnits.push(u.firstLine);
  }
  files.push({ suite: s, path, language: 'php', extract: 'psalm-samples', safeUnits, processUnits, labels });
}

// --- phpcs-security-audit ----------------------------------------------------------------
{
  const s: Suite = 'phpcs-security-audit';
  const c = (commits[s] = head(s));
  const test = show(s, c, 'Security/Tests/BadFunctions/BackticksUnitTest.php');
  const byFile = new Map<string, Set<number>>();
  for (const m of test.matchAll(/case '([\w.]+)':\s*return \[([^\]]*)\]/g)) {
    const set = byFile.get(m[1]) ?? new Set<number>();
    for (const n of m[2].matchAll(/(\d+)\s*=>/g)) set.add(Number(n[1]));
    byFile.set(m[1], set);
  }
  for (const [name, set] of byFile) {
    files.push({
      suite: s,
      path: `Security/Tests/BadFunctions/${name}`,
      language: 'php',
      extract: 'file',
      labels: [...set]
        .sort((a, b) => a - b)
        .map((line) => ({ line, category: 'process_execution' as Category, source: 'BadFunctions.Backticks' })),
    });
  }
}

// --- codeql ------------------------------------------------------------------------------
{
  const s: Suite = 'codeql';
  commits[s] = 'per file';
  const CODEQL_FILES: Array<[commit: string, path: string, language: string]> = [
    [
      '02a3729c46ea9f616c592ce29ead9ea7dae07c23',
      'python/ql/test/query-tests/Security/CWE-078-CommandInjection/command_injection.py',
      'python',
    ],
    [
      '92b13c4259cd282def9a029f7e5da71086a7b0ff',
      'python/ql/test/query-tests/Security/CWE-502-UnsafeDeserialization/unsafe_deserialization.py',
      'python',
    ],
    [
      '112ed64b5c94a46ab8ec03916dc790318c8b5cb7',
      'ruby/ql/test/query-tests/security/cwe-078/CommandInjection/CommandInjection.rb',
      'ruby',
    ],
    [
      '092cae0355226e324a792260b37284136ed2bafd',
      'ruby/ql/test/query-tests/security/cwe-502/unsafe-deserialization/UnsafeDeserialization.rb',
      'ruby',
    ],
    ['9d164d0f0652d4170f961f3d1e5e4b818dabdc95', 'go/ql/test/query-tests/Security/CWE-078/CommandInjection.go', 'go'],
    [
      '845f384df6f14db6c5887d97a96550635480c526',
      'javascript/ql/test/query-tests/Security/CWE-502/tst.js',
      'javascript',
    ],
    ['0ac3e5c3ad60c4f0604120ad2f64fd8544938e15', 'java/ql/test/query-tests/security/CWE-502/A.java', 'java'],
    // JavaScript CWE-078 (session 14): the CommandInjection query's tests.
    [
      'c397487325e0021ac083254dc7bf90ea5d5c5aed',
      'javascript/ql/test/query-tests/Security/CWE-078/CommandInjection/child_process-test.js',
      'javascript',
    ],
    [
      'a77859b6c6f6fe55340fa493ee91e2f13ae7e99a',
      'javascript/ql/test/query-tests/Security/CWE-078/CommandInjection/exec-sh.js',
      'javascript',
    ],
    [
      'd05de1ba4e9bf98fd1f91b43ade3e48292238bb8',
      'javascript/ql/test/query-tests/Security/CWE-078/CommandInjection/execa.js',
      'javascript',
    ],
    [
      '1b30cf8eca8e8afb668ae9fbfee733a61cf0a395',
      'javascript/ql/test/query-tests/Security/CWE-078/CommandInjection/other.js',
      'javascript',
    ],
    [
      '1e24627de3aa592aa8e5c5b2cb9f284a2c166cf0',
      'javascript/ql/test/query-tests/Security/CWE-078/CommandInjection/third-party-command-injection.js',
      'javascript',
    ],
    [
      '89a8d59421cf0393fa66d966ec8b88d62fd3b4e0',
      'javascript/ql/test/query-tests/Security/CWE-078/CommandInjection/promisification.js',
      'javascript',
    ],
    [
      '0d3b65a35bcfc50519afd1deca366548dd977c82',
      'javascript/ql/test/query-tests/Security/CWE-078/CommandInjection/form-parsers.js',
      'javascript',
    ],
    // C# (session 13): command injection, code injection and the BinaryFormatter, XmlSerializer
    // and Json.NET deserialization tests (bad and good files).
    ...(
      [
        ['02a3729c46ea9f616c592ce29ead9ea7dae07c23', 'CWE-078/CommandInjection.cs'],
        ['3cb9a4921d35895dbfbbcf192b4d71dbe9a01760', 'CWE-094/CodeInjection.cs'],
        [
          '6a6607667bd79d9ff7a0d8c166a58c8db5c7e723',
          'CWE-502/UnsafeDeserializationUntrustedInput/BinaryFormatterUntrustedInputBad.cs',
        ],
        [
          '0315b000239b6e734e697312b2726fa2a8716e68',
          'CWE-502/UnsafeDeserializationUntrustedInput/BinaryFormatterUntrustedInputGood.cs',
        ],
        [
          '95c9f89b049d8badf2f19f733944322daba90bc2',
          'CWE-502/UnsafeDeserializationUntrustedInput/XmlSerializerUntrustedInputBad.cs',
        ],
        [
          '0315b000239b6e734e697312b2726fa2a8716e68',
          'CWE-502/UnsafeDeserializationUntrustedInput/XmlSerializerUntrustedInputGood.cs',
        ],
        [
          '26b7e65c17e26609169f5635d708d5b21a99a15c',
          'CWE-502/UnsafeDeserializationUntrustedInputNewtonsoftJson/Test.cs',
        ],
      ] as const
    ).map(([commit, name]): [string, string, string] => [
      commit,
      `csharp/ql/test/query-tests/Security Features/${name}`,
      'csharp',
    ]),
    // CWE-094/095 (code injection). Go has no such query test.
    [
      '89a8d59421cf0393fa66d966ec8b88d62fd3b4e0',
      'python/ql/test/query-tests/Security/CWE-094-CodeInjection/code_injection.py',
      'python',
    ],
    [
      '1d6b8c5120ae49201b4043cef68e9b14b6cdee76',
      'ruby/ql/test/query-tests/security/cwe-094/CodeInjection/CodeInjection.rb',
      'ruby',
    ],
    ...(
      [
        ['0d3b65a35bcfc50519afd1deca366548dd977c82', 'tst.js'],
        ['04b28c511887675a89992697e8f204d7092ffbeb', 'express.js'],
        ['08b9a5e2b20f32d24fea22f03469a7dc047d5914', 'template-sinks.js'],
        ['09b4250b570611824e194af42995e7acca575a91', 'lib/index.js'],
        ['5e462a897d373262a692d159c6db9d2cf3a025e7', 'NoSQLCodeInjection.js'],
        ['0ac3e5c3ad60c4f0604120ad2f64fd8544938e15', 'module.js'],
        ['64d39da5f81be4600aa207c997ed0643a711a631', 'react-native.js'],
        ['0d3b65a35bcfc50519afd1deca366548dd977c82', 'actions.js'],
        ['7741a72cc5696479829f2cd8bc5d4569f5762141', 'angularjs.js'],
        ['ca063663972f054641054867c4a89dd26ca3a288', 'rxjs.js'],
      ] as const
    ).map(([commit, name]): [string, string, string] => [
      commit,
      `javascript/ql/test/query-tests/Security/CWE-094/CodeInjection/${name}`,
      'javascript',
    ]),
    [
      '1cc91e964d44ae4b0815432a92ce855ab7b96157',
      'java/ql/test/query-tests/security/CWE-094/GroovyInjection/GroovyShellTest.java',
      'java',
    ],
    [
      '942cfc3bd63dac7f25f7a09a8df76b65172446e8',
      'java/ql/test/query-tests/security/CWE-094/SpelInjection/SpelInjectionTest.java',
      'java',
    ],
    [
      'c397487325e0021ac083254dc7bf90ea5d5c5aed',
      'java/ql/test/query-tests/security/CWE-094/MvelInjection/MvelInjectionTest.java',
      'java',
    ],
  ];
  for (const [commit, path, language] of CODEQL_FILES) {
    const file = join(MIRROR, 'github+codeql', 'files', commit, path);
    if (!existsSync(file)) throw new Error(`codeql: ${file} is missing (see the header)`);
    const deserialization = /cwe-502/i.test(path);
    const category: Category = deserialization
      ? 'unsafe_deserialization'
      : /cwe-094|cwe-095/i.test(path)
        ? 'dynamic_code_execution'
        : 'process_execution';
    const labels: Label[] = [];
    const safeLines: number[] = [];
    const lines = readFileSync(file, 'utf8').split('\n');
    const code = category === 'dynamic_code_execution';
    // A mark on a comment-only line (`// NOT OK` above the statement) is about the next code line.
    const commentOnly = (l: string) => /^\s*(?:\/\/|#)/.test(l);
    const nextCode = (i: number) => {
      let j = i + 1;
      while (j < lines.length && (lines[j].trim() === '' || commentOnly(lines[j]))) j++;
      return j < lines.length ? j : -1;
    };
    // `BAD` marks count only in a file without `$ Alert` / `NOT OK` expectations (angularjs.js);
    // elsewhere a `# BAD` comment above a `def` is prose about the method.
    const expectations = lines.some((l) => /\$\s?Alert\b|\$unsafeDeserialization\b|\bNOT OK\b/.test(l));
    const bad = (l: string) => !expectations && /(?:\/\/|#)\s*BAD\b/.test(l);
    // In a file with `$ Alert` marks, `NOT OK` is prose ("technically NOT OK, but …"), not a mark.
    const alerts = lines.some((l) => /\$\s?Alert\b/.test(l));
    const process = /\.(?:exec|execSync|spawn|spawnSync|execFile|execFileSync|fork)\s*\(|\bsystem\s*\(/;
    lines.forEach((l, i) => {
      const spurious = /SPURIOUS:\s*Alert|MISSING:\s*Alert/.test(l);
      // `[INCONSISTENCY]`: CodeQL's note that another query reports the line, not this one.
      const marked =
        !spurious &&
        !/\[INCONSISTENCY\]/.test(l) &&
        (/\$\s?Alert\b/.test(l) || /\$unsafeDeserialization\b/.test(l) || (!alerts && /\bNOT OK\b/.test(l)) || bad(l));
      // C# marks every family on the comment line above (`// BAD`, `// GOOD`): about the next code line.
      const above = code || language === 'csharp';
      const at = above && commentOnly(l) ? nextCode(i) : i;
      if (marked) {
        if (at >= 0 && !labels.some((x) => x.line === at + 1))
          labels.push({ line: at + 1, category, source: /\bNOT OK\b/.test(l) ? 'NOT OK' : bad(l) ? 'BAD' : 'Alert' });
      } else if (deserialization && (spurious || /(?:#|\/\/)\s*(?:OK|GOOD)\b/.test(l)))
        safeLines.push((language === 'csharp' && at >= 0 ? at : i) + 1);
      else if (
        code &&
        at >= 0 &&
        (spurious || /(?:#|\/\/)\s*(?:OK|GOOD|Safe)\b/.test(l)) &&
        // A safe line that runs a process is still blocked by the contract; a comment above a
        // method header is about the method.
        !process.test(lines[at]) &&
        !/^\s*(?:def|function|public|private|protected|class)\b/.test(lines[at])
      )
        safeLines.push(at + 1);
    });
    safeLines.sort((a, b) => a - b);
    files.push({
      suite: s,
      path,
      commit,
      language,
      extract: 'file',
      labels,
      ...(safeLines.length ? { safeLines } : {}),
    });
  }
}

// --- codeql-expected (session 15) ------------------------------------------------------------
// Test files and their `.expected` files, each at its own stored commit (both written to
// <mirror>/github+codeql/files/<commit>/<path>, as the codeql suite's files).
const CODEQL_EXPECTED: Array<{
  test: [commit: string, path: string];
  expected: Array<[commit: string, path: string]>;
  language: string;
}> = [
  {
    test: ['0ac3e5c3ad60c4f0604120ad2f64fd8544938e15', 'java/ql/test/query-tests/security/CWE-078/Test.java'],
    expected: [
      ['2226f5126be4c5674e4ceeed5618bca36984b89f', 'java/ql/test/query-tests/security/CWE-078/ExecTainted.expected'],
      ['0ac3e5c3ad60c4f0604120ad2f64fd8544938e15', 'java/ql/test/query-tests/security/CWE-078/ExecUnescaped.expected'],
    ],
    language: 'java',
  },
  {
    test: ['20ffdf43973dcd3a185cc84311992c1c3e0b4843', 'python/ql/test/query-tests/Security/CWE-502/test.py'],
    expected: [
      [
        '05b69a1c0faa794609e86160587c79ced0e941b9',
        'python/ql/test/query-tests/Security/CWE-502/UnsafeDeserialization.expected',
      ],
    ],
    language: 'python',
  },
  {
    test: ['9d164d0f0652d4170f961f3d1e5e4b818dabdc95', 'go/ql/test/query-tests/Security/CWE-078/StoredCommand.go'],
    expected: [
      ['0121263e03de7363bbeb2431dfa8f4472bd97e64', 'go/ql/test/query-tests/Security/CWE-078/StoredCommand.expected'],
    ],
    language: 'go',
  },
  {
    test: [
      '44afa34e37983602c49f39c14ec1f38e6eb18753',
      'ruby/ql/test/query-tests/security/cwe-502/oj-global-options/OjGlobalOptions.rb',
    ],
    expected: [
      [
        '118daaba5c7326ddd6672e9dae895c9fb12be121',
        'ruby/ql/test/query-tests/security/cwe-502/oj-global-options/UnsafeDeserialization.expected',
      ],
    ],
    language: 'ruby',
  },
  {
    test: [
      '118daaba5c7326ddd6672e9dae895c9fb12be121',
      'ruby/ql/test/query-tests/security/cwe-078/KernelOpen/KernelOpen.rb',
    ],
    expected: [
      [
        '11c89adbe3b238e3a142256175f0003e19d7972b',
        'ruby/ql/test/query-tests/security/cwe-078/KernelOpen/KernelOpen.expected',
      ],
    ],
    language: 'ruby',
  },
  {
    test: [
      '7b274ca83efd40a483b818e257d8923341ac21ef',
      'ruby/ql/test/query-tests/security/cwe-078/SecondOrderCommandInjection/impl/second-order.rb',
    ],
    expected: [
      [
        '6f296e57251861f424028cf2afa45badc41539d0',
        'ruby/ql/test/query-tests/security/cwe-078/SecondOrderCommandInjection/SecondOrderCommandInjection.expected',
      ],
    ],
    language: 'ruby',
  },
  // Session 16: the Go command-injection tests whose rows share one 29 kB `.expected`
  // (GitSubcommands.go is left out: no stored version fits that file's line numbers).
  ...(
    [
      ['079451142ef26322b4bd263efe05443b6e9954e7', 'ArgumentInjection.go'],
      ['08c0d8ec60eed37c410cb3dc6dee429bfa504187', 'CommandInjection2.go'],
      ['02bba2e4d7e1d684296a397ec074db640f9c5343', 'SanitizingDoubleDash.go'],
    ] as const
  ).map(([commit, name]) => ({
    test: [commit, `go/ql/test/query-tests/Security/CWE-078/${name}`] as [string, string],
    expected: [
      [
        '08c0d8ec60eed37c410cb3dc6dee429bfa504187',
        'go/ql/test/query-tests/Security/CWE-078/CommandInjection.expected',
      ] as [string, string],
    ],
    language: 'go',
  })),
];

{
  const s: Suite = 'codeql-expected';
  commits[s] = 'per file';
  const inline = new Set(files.filter((f) => f.suite === 'codeql').map((f) => f.path));
  const read = (commit: string, path: string) => {
    const file = join(MIRROR, 'github+codeql', 'files', commit, path);
    if (!existsSync(file)) throw new Error(`codeql-expected: ${file} is missing (see the header)`);
    return readFileSync(file, 'utf8');
  };
  for (const { test, expected, language } of CODEQL_EXPECTED) {
    const [commit, path] = test;
    if (inline.has(path)) continue;
    const category: Category = /cwe-502/i.test(path)
      ? 'unsafe_deserialization'
      : /cwe-09[45]/i.test(path)
        ? 'dynamic_code_execution'
        : 'process_execution';
    const text = read(commit, path);
    const labels: Label[] = [];
    for (const [ec, ep] of expected)
      for (const line of expectedAlertLines(read(ec, ep), path, text))
        if (!labels.some((x) => x.line === line))
          labels.push({ line, category, source: `${ep.slice(ep.lastIndexOf('/') + 1)}@${ec.slice(0, 12)}` });
    labels.sort((a, b) => a.line - b.line);
    files.push({ suite: s, path, commit, language, extract: 'file', labels });
  }
}

// --- bandit (session 15) ----------------------------------------------------------------------
// examples/*.py, each checked by one test of tests/functional/test_functional.py
// (`check_example("<file>", expect)`): the test's name is bandit's plugin family. A file whose
// test is one of the three families and expects at least one issue labels the whole file (bandit's
// expectations are counts per severity, no lines); a file of any other test (crypto, SQL, XSS,
// requests, …) is a safe case, or a safe case that runs a process (reported apart). As dlint's,
// an eval/exec file whose every call takes one string literal is not a label. Not counted:
// `huggingface_unsafe_download` (a model download, not one of the three kinds), the nosec / skip
// files (bandit's own suppressions), the import-blacklist files (an `import pickle` is no call).
{
  const s: Suite = 'bandit';
  const c = (commits[s] = head(s));
  const TESTS: Record<string, Category> = {
    eval: 'dynamic_code_execution',
    exec: 'dynamic_code_execution',
    pickle: 'unsafe_deserialization',
    dill: 'unsafe_deserialization',
    shelve: 'unsafe_deserialization',
    jsonpickle: 'unsafe_deserialization',
    pandas_read_pickle: 'unsafe_deserialization',
    yaml: 'unsafe_deserialization',
    pytorch_load: 'unsafe_deserialization',
    os_exec: 'process_execution',
    os_popen: 'process_execution',
    os_spawn: 'process_execution',
    os_system: 'process_execution',
    os_startfile: 'process_execution',
    popen_wrappers: 'process_execution',
    subprocess_shell: 'process_execution',
    paramiko_injection: 'process_execution',
    wildcard_injection: 'process_execution',
    partial_path: 'process_execution',
  };
  const NOT_COUNTED =
    /^(?:huggingface_unsafe_download|nosec|skip|ignore_skip|imports\w*|nonsense|metric_gathering|baseline_filter)$/;
  const seen = new Set<string>();
  const tests = show(s, c, 'tests/functional/test_functional.py');
  for (const m of tests.matchAll(/\n {4}def test_(\w+)\(self\):([\s\S]*?)(?=\n {4}def |$)/g)) {
    const [, test, body] = m;
    if (NOT_COUNTED.test(test)) continue;
    const issues = [...body.matchAll(/"SEVERITY":\s*\{([^}]*)\}/g)].some((x) => /:\s*[1-9]/.test(x[1]));
    for (const f of body.matchAll(/check_example\(\s*"([^"]+\.py)"/g)) {
      const path = `examples/${f[1]}`;
      if (seen.has(path)) continue;
      seen.add(path);
      const category = TESTS[test];
      if (category && !issues) continue;
      // As for dlint: eval/exec of a string literal runs the snippet's own code, not a label.
      const text = show(s, c, path);
      if (category === 'dynamic_code_execution' && !/\b(?:eval|exec)\(\s*(?!(?:'[^'\n]*'|"[^"\n]*")\s*\))/.test(text))
        continue;
      const runs = !category && RUNS_PROCESS.python.every((re) => re.test(text));
      files.push({
        suite: s,
        path,
        language: 'python',
        extract: 'file',
        labels: category ? [{ line: 0, category, source: `test_${test}` }] : [],
        ...(category ? {} : runs ? { safe: true, runsProcess: true } : { safe: true }),
      });
    }
  }
}

// --- eslint-plugin-security (session 15) ------------------------------------------------------
// test/rules/<rule>.js RuleTester cases (eslintSamples): an invalid case of detect-child-process
// whose error says the call's first argument is not a literal labels the error's line
// (process_execution; its `Found require("child_process")` cases flag an import, no call, and are
// not counted), an invalid case of detect-eval-with-expression labels its line
// (dynamic_code_execution). Every other case (the valid ones, and every case of the other rules:
// object injection, regexes, buffers, timing, fs paths, …) is a safe case, or, when it runs a
// process, a process unit (reported apart, expected BLOCKED). A case that runs a process is one
// with a child_process call and no regex literal (detect-child-process's own valid cases use
// `/hello/.exec(str)` to show a RegExp's exec is not a process). detect-non-literal-require's
// invalid cases (a computed module load, reported as dynamic_import) are not counted.
{
  const s: Suite = 'eslint-plugin-security';
  const c = (commits[s] = head(s));
  const RULES: Record<string, { category: Category; message: RegExp }> = {
    'detect-child-process': { category: 'process_execution', message: /non Literal/ },
    'detect-eval-with-expression': { category: 'dynamic_code_execution', message: /./ },
  };
  const PROCESS = /(?:^|[^\w.])(?:exec|spawn|execSync|execFile|fork)\s*\(|\.(?:exec|spawn|execSync|execFile|fork)\s*\(/;
  const REGEX_LITERAL = /(?:=\s*|^|[\s(])\/[^/\n*]+\/[gimsuy]*(?:\.exec|;)/m;
  for (const path of ls(s, c, 'test/rules')) {
    if (!path.endsWith('.js')) continue;
    const rule = path.replace(/^.*\//, '').replace(/\.js$/, '');
    const own = RULES[rule];
    const text = show(s, c, path);
    const labels: Label[] = [];
    const safeUnits: number[] = [];
    const processUnits: number[] = [];
    for (const u of eslintSamples(text)) {
      if (u.skip) continue;
      if (!u.noFinding && rule === 'detect-non-literal-require') continue;
      if (!u.noFinding && own) {
        const hits = u.expected.filter((e) => own.message.test(e.rule));
        for (const e of hits)
          if (!labels.some((x) => x.line === e.line))
            labels.push({ line: e.line, category: own.category, source: rule });
        if (hits.length) continue;
        if (u.expected.length) continue; // an import-only case
      }
      const runs = /child_process/.test(u.code) && PROCESS.test(u.code) && !REGEX_LITERAL.test(u.code);
      if (runs || (rule === 'detect-child-process' && PROCESS.test(u.code) && !REGEX_LITERAL.test(u.code)))
        processUnits.push(u.firstLine);
      else if (!safeUnits.includes(u.firstLine)) safeUnits.push(u.firstLine);
    }
    files.push({
      suite: s,
      path,
      language: 'javascript',
      extract: 'eslint-samples',
      ...(safeUnits.length ? { safeUnits } : {}),
      ...(processUnits.length ? { processUnits } : {}),
      labels: labels.sort((a, b) => a.line - b.line),
    });
  }
}

// --- SecurityEval ---------------------------------------------------------------------------
{
  const s = 'securityeval';
  const c = (commits[s] = head(s));
  const CWE: Record<string, Category> = {
    '078': 'process_execution',
    '094': 'dynamic_code_execution',
    '095': 'dynamic_code_execution',
    '502': 'unsafe_deserialization',
  };
  for (const path of ls(s, c, 'Testcases_Insecure_Code')) {
    const cwe = /\/CWE-(\d+)\//.exec(path)?.[1];
    if (!cwe || !path.endsWith('.py')) continue;
    const category = CWE[cwe];
    const runs = !category && RUNS_PROCESS.python.every((re) => re.test(show(s, c, path)));
    files.push({
      suite: s,
      path,
      language: 'python',
      extract: 'file',
      labels: category ? [{ line: 0, category, source: `CWE-${cwe}` }] : [],
      ...(category ? {} : runs ? { safe: true, runsProcess: true } : { safe: true }),
    });
  }
}

// --- semgrep-rules ---------------------------------------------------------------------------
// Each rule file (`<name>.yaml`) sits beside its test file (`<name>.<ext>`), whose `ruleid: <id>`
// comments mark the line the rule must report (the next code line, or the comment's own line
// when it trails code) and `ok: <id>` comments a line it must not. A rule is taken when its own
// metadata names CWE-77/78 (process), CWE-94/95 (code) or CWE-502 (deserialisation), except the
// rules in SEMGREP_NOT_TAKEN, whose finding is none of the three kinds although the CWE says so.
// `todoruleid` / `todook` (semgrep's own known misses and false alarms) are not labels. An `ok`
// line is a safe line unless it runs a process (the contract blocks every process execution) or
// its rule decides by where the data comes from (taint mode, `pattern-inside`: a local file or an
// object the code dumped itself is "ok" there, while the scanner judges the call whatever feeds it). A rule
// reports the first line of the code it matched (a method, a block, a statement over several
// lines): a label spans the lines below it indented deeper (`end`), and an assignment's label
// the next line of its block that uses the assigned name (a statement sequence). A label on the
// serialising side (`pickle.dumps`, `marshal.dumps`) is not taken, as dlint's are not.
const SEMGREP_CWE: Record<string, Category> = {
  '77': 'process_execution',
  '78': 'process_execution',
  '94': 'dynamic_code_execution',
  '95': 'dynamic_code_execution',
  '502': 'unsafe_deserialization',
};
const SEMGREP_NOT_TAKEN: Record<string, string> = {
  'grpc-nodejs-insecure-connection': 'a channel without TLS',
  'sequelize-tls-disabled-cert-validation': 'TLS certificate validation turned off',
  'playwright-exposed-chrome-devtools': 'a browser debugging port opened',
  'puppeteer-exposed-chrome-devtools': 'a browser debugging port opened',
  'detect-non-literal-require': 'a computed module load (the scanner reports it as dynamic_import)',
  'contains-bidirectional-characters': 'Unicode direction marks in source text (Trojan Source)',
};
const SEMGREP_LANGUAGES: Record<string, string> = {
  py: 'python',
  js: 'javascript',
  ts: 'typescript',
  java: 'java',
  rb: 'ruby',
  go: 'go',
  php: 'php',
  cs: 'csharp',
  sh: 'bash',
  bash: 'bash',
};
/** A line that starts a process in any of the suite's languages (an `ok` line there is no safe line). */
const RUNS_PROCESS_LINE =
  /\b(?:subprocess\w*|os\.(?:system|popen|exec\w*|spawn\w*)|BashOperator|sh\.\w+(?=\()|Runtime|ProcessBuilder|exec\.Command|Process\.(?:Start|exec|spawn)|Open3|Kernel\.(?:exec|system|spawn|open)|IO\.popen|syscall\.(?:Exec|ForkExec)|exec\.Cmd|child_process|shell_exec|proc_open|popen|passthru|system|spawn|exec(?:Sync|File\w*)?)\b|`|%x|\bopen\(\s*["']\|/;
{
  const s: Suite = 'semgrep-rules';
  const c = (commits[s] = head(s));
  const all = ls(s, c, '.');
  const present = new Set(all);
  for (const rulePath of all) {
    if (!/\.ya?ml$/.test(rulePath) || rulePath.startsWith('.')) continue;
    const rules = new Map<string, Category>();
    /** Rules whose `ok` depends on where the data comes from (taint mode, `pattern-inside`). */
    const contextual = new Set<string>();
    for (const chunk of show(s, c, rulePath)
      .split(/^\s*-\s+id:\s*/m)
      .slice(1)) {
      const id = chunk.split(/\s/)[0].replace(/['"]/g, '');
      const cwe = [...chunk.matchAll(/CWE-(\d+)\b/g)].map((m) => SEMGREP_CWE[m[1]]).find(Boolean);
      if (cwe && !SEMGREP_NOT_TAKEN[id]) rules.set(id, cwe);
      if (/mode:\s*taint|pattern-(?:not-)?inside/.test(chunk)) contextual.add(id);
    }
    if (rules.size === 0) continue;
    const base = rulePath.replace(/\.ya?ml$/, '');
    for (const [ext, language] of Object.entries(SEMGREP_LANGUAGES)) {
      const path = `${base}.${ext}`;
      if (!present.has(path)) continue;
      const lines = show(s, c, path).split('\n');
      const labels: Label[] = [];
      const safeLines: number[] = [];
      lines.forEach((l, i) => {
        const m = /(?:#|\/\/|\/\*|<!--)\s*(ruleid|ok)\s*:\s*([\w.,\s-]+)/.exec(l);
        if (!m) return;
        const ids = m[2].split(/[,\s]+/).filter((id) => rules.has(id));
        if (ids.length === 0) return;
        let j = i;
        if (/^\s*(?:#|\/\/|\/\*|<!--)/.test(l)) {
          j = i + 1;
          while (j < lines.length && /^\s*(?:(?:#|\/\/|\/\*|<!--).*)?$/.test(lines[j])) j++;
        }
        if (j >= lines.length) return;
        const category = rules.get(ids[0])!;
        if (m[1] === 'ruleid') {
          // The construct starting there: the lines below it indented deeper (a method's body, a
          // block, a call's continuation lines).
          const indent = (t: string) => /^\s*/.exec(t)![0].length;
          let end = j;
          for (let k = j + 1; k < lines.length; k++) {
            if (lines[k].trim() === '') continue;
            if (indent(lines[k]) <= indent(lines[j])) break;
            end = k;
          }
          // A statement sequence (`$X = …; … $X(…)`): an assignment's label reaches the next line
          // of its block that uses the assigned name.
          const assigned = /^\s*(?:(?:const|let|var|final|[\w.<>[\]]+)\s+)?\$?(\w+)\s*=[^=]/.exec(lines[j])?.[1];
          if (assigned)
            for (let k = end + 1; k < lines.length; k++) {
              if (lines[k].trim() === '') continue;
              if (indent(lines[k]) < indent(lines[j])) break;
              if (new RegExp(`\\b${assigned}\\b`).test(lines[k])) {
                end = k;
                break;
              }
            }
          // The serialising side (`pickle.dumps(obj)`) loads nothing: not a label (as dlint's).
          if (
            category === 'unsafe_deserialization' &&
            /\bdumps?\s*\(/.test(lines[j]) &&
            !/load|Unpickler/i.test(lines[j])
          )
            return;
          if (!labels.some((x) => x.line === j + 1))
            labels.push({ line: j + 1, category, source: ids[0], ...(end > j ? { end: end + 1 } : {}) });
        } else if (!ids.some((id) => contextual.has(id)) && !RUNS_PROCESS_LINE.test(lines[j])) safeLines.push(j + 1);
      });
      const safe = safeLines.filter((n) => !labels.some((x) => x.line === n));
      if (labels.length > 0 || safe.length > 0)
        files.push({
          suite: s,
          path,
          language,
          extract: 'file',
          ...(safe.length ? { safeLines: safe } : {}),
          labels,
        });
    }
  }
}

// --- OWASP Benchmark (Python 0.1, Java 1.2) ------------------------------------------------
// expectedresults-*.csv: one row per test case (a whole file): category, real vulnerability.
// A true case of cmdi / codeinj / deserialization labels the whole file (recall: the file is
// BLOCKED with a critical finding of that kind); a false case of those three is a safe case (the
// suite's own negative; cmdi negatives still run a process, reported apart); every case of the
// other categories (SQL, XSS, path traversal, weak hashing, …) runs none of the three families
// and is a safe case too (printed apart as `other categories`).
const OWASP_PROCESS: Record<'python' | 'java', RegExp[]> = {
  python: RUNS_PROCESS.python,
  java: [/\bnew\s+ProcessBuilder\s*\(|\bRuntime\.getRuntime\(\)/, /\.(?:exec|start)\s*\(/],
};
const cases: TestCase[] = [];
const caseSuites: Record<string, CaseSuite> = {};
for (const [s, csvPath, dir, language, ext] of [
  ['owasp-benchmark-python', 'expectedresults-0.1.csv', 'testcode', 'python', 'py'],
  ['owasp-benchmark-java', 'expectedresults-1.2.csv', 'src/main/java/org/owasp/benchmark/testcode', 'java', 'java'],
] as const) {
  const c = (commits[s] = head(s));
  caseSuites[s] = { dir, ext, language };
  for (const row of show(s, c, csvPath).split('\n')) {
    const [name, category, real] = row.split(',');
    if (!/^BenchmarkTest\d+$/.test(name ?? '')) continue;
    const vulnerable = real === 'true' && category in CASE_FAMILIES;
    const runs = !vulnerable && OWASP_PROCESS[language].every((re) => re.test(show(s, c, `${dir}/${name}.${ext}`)));
    cases.push([s, name, category, vulnerable ? 'v' : runs ? 'p' : 's']);
  }
}

const manifest = {
  about:
    'Labels only (see bench/code-suites-labels.ts for where each comes from); the code is read from each suite at the pinned commit by bench/code-suites.ts.',
  suites: Object.fromEntries(Object.entries(SUITES).map(([k, v]) => [k, { ...v, commit: commits[k] }])),
  files,
  caseSuites,
  cases,
};
// The OWASP cases one a line (about 4,000).
const body = JSON.stringify({ ...manifest, cases: [] }, null, 1).replace(
  /"cases": \[\]/,
  `"cases": [\n${cases.map((x) => `  ${JSON.stringify(x)}`).join(',\n')}\n ]`,
);
writeFileSync(join(ROOT, 'test/fixtures/code/suites/manifest.json'), `${body}\n`);
const n = (f: (e: FileEntry) => boolean) => files.filter(f).length;
for (const s of Object.keys(SUITES)) {
  const mine = [...files, ...cases.map((x) => caseEntry(x, caseSuites))].filter((f) => f.suite === s);
  console.log(
    `${s}: ${mine.length} files, ${mine.reduce((a, f) => a + f.labels.length, 0)} labelled lines, ${mine.filter((f) => f.safe).length} safe files`,
  );
}
console.log(`total ${files.length} files (${n((f) => !!f.safe)} safe)`);
