// Code samples embedded in a suite's test files (not whole files): where each one sits, its code
// (one line of code per line of the test file, so a finding's line maps back to the file), and
// what the suite's own test expects of it. Used by bench/code-suites-labels.ts (labels) and
// bench/code-suites.ts (the code, at bench time), so both read the same units.

export interface Sample {
  code: string;
  /** Line of the test file holding the sample's first line. */
  firstLine: number;
  lastLine: number;
  /** Test-file lines the suite's test expects a finding on, with the suite's rule. */
  expected: Array<{ line: number; rule: string }>;
  /** The suite's test expects no finding at all (`expect_no_offenses`, `expected = []`). */
  noFinding: boolean;
  /** Why the unit is not counted (runtime-version context, spec-time interpolation, …). */
  skip?: string;
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;
const dedent = (lines: string[]) => {
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => (l.trim() === '' ? '' : l.slice(cut)));
};

/**
 * RuboCop cop specs: `expect_offense(<<~RUBY) … RUBY` (an annotation line starting with `^`
 * under each offending line; it is blanked in the code, so line numbers stay the file's) and
 * `expect_no_offenses(<<~RUBY)` / `expect_no_offenses('one line')`. A unit inside a context
 * tagged with a Ruby version or parser (`:ruby30`, `unsupported_on:`) is skipped (its verdict
 * depends on the runtime), and so is an unquoted heredoc that interpolates spec-time values
 * (`#{current}`, `^{…}`, `%{…}`), whose code the spec only knows when it runs.
 */
export function rubocopSamples(text: string, rule: string): Sample[] {
  const lines = text.split('\n');
  const out: Sample[] = [];
  const contexts: Array<{ indent: number; tagged: boolean }> = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const indent = /^ */.exec(line)![0].length;
    while (contexts.length && /^\s*end\b/.test(line) && contexts[contexts.length - 1].indent === indent) contexts.pop();
    if (/^\s*(?:context|describe|it|shared_examples)\b.*\bdo(?:\s*\|[^|]*\|)?\s*$/.test(line))
      contexts.push({ indent, tagged: /:ruby\d\d\b|unsupported_on:|RUBY_VERSION/.test(line) });
    const tagged = contexts.some((c) => c.tagged) ? 'depends on the Ruby version or parser' : undefined;
    const heredoc = /\b(expect_offense|expect_no_offenses)\(<<~(')?([A-Z_]+)\1?/.exec(line);
    if (heredoc) {
      const quoted = heredoc[2] === "'";
      const tag = heredoc[3];
      const body: string[] = [];
      let j = i + 1;
      while (j < lines.length && lines[j].trim() !== tag) body.push(lines[j++]);
      const code = dedent(body);
      const expected: Sample['expected'] = [];
      code.forEach((l, k) => {
        if (!/^\s*\^/.test(l)) return;
        let m = k - 1;
        while (m >= 0 && /^\s*\^/.test(code[m])) m--;
        if (m >= 0 && !expected.some((e) => e.line === i + 2 + m)) expected.push({ line: i + 2 + m, rule });
        code[k] = '';
      });
      const templated = !quoted && /#\{|\^\{|%\{|_\{/.test(body.join('\n'));
      out.push({
        code: code.join('\n'),
        firstLine: i + 2,
        lastLine: i + 1 + body.length,
        expected,
        noFinding: heredoc[1] === 'expect_no_offenses',
        ...(tagged || templated ? { skip: tagged ?? 'spec-time interpolation' } : {}),
      });
      i = j;
      continue;
    }
    const one = /\bexpect_no_offenses\(\s*'((?:[^'\\]|\\.)*)'\s*\)/.exec(line);
    if (one)
      out.push({
        code: one[1].replace(/\\(['\\])/g, '$1'),
        firstLine: i + 1,
        lastLine: i + 1,
        expected: [],
        noFinding: true,
        ...(tagged ? { skip: tagged } : {}),
      });
  }
  return out;
}

/**
 * dlint's linter tests: each `def test_…` parses one `self.get_ast_node("""…""")` string
 * (textwrap.dedent, line 1 = the rest of the opening `"""` line) and lists the expected results
 * as `lineno=N`; `expected = []` is a unit the linter must accept. A test skipped on Python 3
 * (`skipIf(IS_PYTHON_3`) is skipped.
 */
export function dlintSamples(text: string): Sample[] {
  const out: Sample[] = [];
  const starts = [...text.matchAll(/^(?: {4}@[^\n]*\n)* {4}def test_\w+/gm)];
  starts.forEach((m, n) => {
    const end = n + 1 < starts.length ? starts[n + 1].index : text.length;
    const method = text.slice(m.index, end);
    const open = /get_ast_node\(\s*"""/.exec(method);
    if (!open) return;
    const from = m.index + open.index + open[0].length;
    const close = text.indexOf('"""', from);
    if (close < 0) return;
    const body = text.slice(from, close).split('\n');
    const firstLine = lineOf(text, from);
    const rule = /dlint\.linters\.(\w+)\(\)/.exec(method)?.[1] ?? '';
    const linenos = [...method.matchAll(/lineno=(\d+)/g)].map((x) => Number(x[1]));
    out.push({
      code: dedent(body).join('\n'),
      firstLine,
      lastLine: firstLine + body.length - 1,
      expected: [...new Set(linenos)].map((l) => ({ line: firstLine + l - 1, rule })),
      noFinding: /expected\s*=\s*\[\]\s*\n/.test(method) && linenos.length === 0,
      ...(/skipIf\(IS_PYTHON_3/.test(method) ? { skip: 'Python 2 only' } : {}),
    });
  });
  return out;
}

/**
 * Psalm's taint tests (tests/TaintTest.php): `'name' => ['code' => '<?php …', 'error_message' =>
 * 'TaintedShell', …]` (a PHP single-quoted string). An entry of providerInvalidCodeParse expects
 * the issue named by error_message somewhere in the snippet (Psalm names no line): `expected`
 * holds it at the unit's first line, as a whole-unit label. An entry of providerValidCodeParse
 * expects no taint issue (`noFinding`).
 */
export function psalmSamples(text: string): Sample[] {
  const out: Sample[] = [];
  const invalidFrom = text.search(/function providerInvalidCodeParse\b/);
  const re = /'code'\s*=>\s*'/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const from = m.index + m[0].length;
    let k = from;
    let code = '';
    while (k < text.length && text[k] !== "'") {
      if (text[k] === '\\' && (text[k + 1] === "'" || text[k + 1] === '\\')) {
        code += text[k + 1];
        k += 2;
      } else code += text[k++];
    }
    re.lastIndex = k + 1;
    const firstLine = lineOf(text, from);
    const next = text.indexOf("'code'", k + 1);
    const rest = text.slice(k + 1, next < 0 ? text.length : next);
    const issue = /'error_message'\s*=>\s*'(\w+)/.exec(rest)?.[1];
    const invalid = invalidFrom >= 0 && m.index > invalidFrom;
    out.push({
      code,
      firstLine,
      lastLine: firstLine + code.split('\n').length - 1,
      expected: invalid && issue ? [{ line: firstLine, rule: issue }] : [],
      noFinding: !invalid,
      ...(invalid && !issue ? { skip: 'no error_message' } : {}),
    });
  }
  return out;
}

/**
 * eslint-plugin-security's rule tests (test/rules/<rule>.js): `tester.run(name, rule, { valid:
 * [...], invalid: [...] })`. A valid entry (a string, or `{ code: … }`) is a unit the rule must
 * accept; an invalid entry `{ code: …, errors: [{ message, line? }] }` expects each error at its
 * `line` (1 when none is given) of the code. String, single-quoted and template literals
 * (a template with `${…}` is skipped: its code is only known when the test runs).
 */
export function eslintSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const section of ['valid', 'invalid'] as const) {
    const open = new RegExp(`\\b${section}\\s*:\\s*\\[`).exec(text);
    if (!open) continue;
    let i = open.index + open[0].length;
    let depth = 1;
    let current: Sample | null = null;
    while (i < text.length && depth > 0) {
      const ch = text[i];
      if (ch === '[' || ch === '{' || ch === '(') depth++;
      else if (ch === ']' || ch === '}' || ch === ')') depth--;
      if (ch !== '"' && ch !== "'" && ch !== '`') {
        i++;
        continue;
      }
      let j = i + 1;
      let raw = '';
      while (j < text.length && text[j] !== ch) {
        if (text[j] === '\\') {
          const n = text[j + 1];
          raw += n === 'n' ? '\n' : n === 't' ? '\t' : n;
          j += 2;
        } else raw += text[j++];
      }
      const before = text.slice(Math.max(0, i - 40), i);
      const isCode = /\bcode\s*:\s*$/.test(before) || (section === 'valid' && depth === 1);
      if (isCode) {
        const firstLine = lineOf(text, i + 1);
        current = {
          code: raw,
          firstLine,
          lastLine: firstLine + raw.split('\n').length - 1,
          expected: [],
          noFinding: section === 'valid',
          ...(ch === '`' && raw.includes('${') ? { skip: 'test-time template' } : {}),
        };
        out.push(current);
      } else if (current && section === 'invalid' && /\bmessage\s*:\s*$/.test(before)) {
        const rest = text.slice(j + 1, j + 80);
        const line = /^\s*,\s*line\s*:\s*(\d+)/.exec(rest)?.[1];
        current.expected.push({ line: current.firstLine + (line ? Number(line) : 1) - 1, rule: raw });
      }
      i = j + 1;
    }
  }
  return out;
}
