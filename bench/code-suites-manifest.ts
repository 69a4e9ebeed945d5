// The shape of test/fixtures/code/suites/manifest.json: written by bench/code-suites-labels.ts,
// read by bench/code-suites.ts.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export type Category = 'process_execution' | 'dynamic_code_execution' | 'unsafe_deserialization';

export interface Label {
  /** 0: the whole unit (a suite that labels files, not lines: OWASP Benchmark's expectedresults). */
  line: number;
  category: Category;
  /** The suite's own rule or warning that put the label there. */
  source: string;
  /** The whole unit starting at `line` (a suite that names no line: Psalm's taint tests). */
  unit?: boolean;
  /**
   * The last line of the construct that starts at `line` (semgrep-rules: a rule reports the first
   * line of the code it matched, a method or block whose dangerous call sits lower down): a
   * finding anywhere from `line` to `end` finds the label.
   */
  end?: number;
}

export interface FileEntry {
  suite: string;
  path: string;
  language: string;
  extract:
    'file' | 'go-backquoted-samples' | 'rubocop-spec-samples' | 'dlint-samples' | 'psalm-samples' | 'eslint-samples';
  /** Sample suites: first lines of the units the suite's own test expects no finding on (safe cases). */
  safeUnits?: number[];
  /** Sample suites: first lines of no-finding units that still run a process (reported apart, expected BLOCKED). */
  processUnits?: number[];
  /** A safe case of the suite: no label, counted for precision. */
  safe?: boolean;
  /**
   * A safe case of the suite that still runs a process (with a constant command): the contract
   * blocks every process execution whatever its argument, so it is not counted for precision;
   * the bench reports it separately (expected BLOCKED).
   */
  runsProcess?: boolean;
  /** The file's own commit, for suites read file by file (codeql): <mirror>/<owner+name>/files/<commit>/<path>. */
  commit?: string;
  /** Lines the suite marks safe (`OK`, `GOOD`, its own spurious alerts): a critical finding there is a false positive. */
  safeLines?: number[];
  /** OWASP Benchmark: the test case's category (cmdi, codeinj, sqli, …). */
  caseCategory?: string;
  labels: Label[];
}

/** A suite's git directory in the mirror (a bare `repo`, or a clone's `repo/.git`). */
export const suiteGitDir = (mirror: string, repo: string): string => {
  const dir = join(mirror, repo.replace('/', '+'), 'repo');
  return existsSync(join(dir, '.git')) ? join(dir, '.git') : dir;
};

/** Where the manifest's code is read from, at bench time (the suites' git snapshots). */
export const suitesMirror = (root: string): string =>
  process.env.SVC_CODE_SUITES_MIRROR ?? `${root}.tools/corpora/suites`;

/**
 * A suite that labels whole files, not lines (OWASP Benchmark's expectedresults-*.csv): one
 * compact row per test case, [suite, test name, the suite's category, flag]; flag `v` = a real
 * vulnerability of one of the three families (the whole file is labelled), `s` = a safe case
 * (a negative of those families, or a case of another category), `p` = a safe case that still
 * runs a process (reported apart, expected BLOCKED).
 */
export type TestCase = [suite: string, name: string, category: string, flag: 'v' | 's' | 'p'];
export interface CaseSuite {
  dir: string;
  ext: string;
  language: string;
}
/** The suite categories that are one of the three labelled families. */
export const CASE_FAMILIES: Record<string, Category> = {
  cmdi: 'process_execution',
  codeinj: 'dynamic_code_execution',
  deserialization: 'unsafe_deserialization',
};
export const caseEntry = ([suite, name, category, flag]: TestCase, suites: Record<string, CaseSuite>): FileEntry => {
  const { dir, ext, language } = suites[suite];
  return {
    suite,
    path: `${dir}/${name}.${ext}`,
    language,
    extract: 'file',
    caseCategory: category,
    ...(flag === 'v' ? {} : { safe: true }),
    ...(flag === 'p' ? { runsProcess: true } : {}),
    labels:
      flag === 'v' ? [{ line: 0, category: CASE_FAMILIES[category], source: `${category} (expectedresults)` }] : [],
  };
};

/**
 * The lines a `.expected` file's `#select` rows alert on in `testPath` (named relative to its folder), each
 * checked against the test file's text; throws when a row does not fit (versions differ).
 */
export function expectedAlertLines(expected: string, testPath: string, testText: string): number[] {
  const lines = testText.split('\n');
  const rows = expected.split('\n');
  // Files of one-column-set queries (`@kind problem`) have no section headers: every row is a result.
  const start = rows.indexOf('#select');
  const out = new Set<number>();
  for (const row of start >= 0 ? rows.slice(start + 1) : rows) {
    const cells = row.split(' | ');
    const loc = /^\|\s*([^:|]+):(\d+):(\d+):(\d+):(\d+)$/.exec(cells[0]?.trim() ?? '');
    // The location is relative to the test's folder (`impl/second-order.rb`).
    if (!loc || !`/${testPath}`.endsWith(`/${loc[1]}`)) continue;
    const [line, col, endLine, endCol] = loc.slice(2).map(Number);
    const text = lines[line - 1];
    if (text === undefined || col < 1 || col > text.length || (endLine === line && endCol > text.length))
      throw new Error(`codeql-expected: ${cells[0]} does not fit ${testPath} (another version?)`);
    const element = cells[1]?.trim() ?? '';
    if (endLine === line && /^[A-Za-z_]\w*$/.test(element) && text.slice(col - 1, endCol) !== element)
      throw new Error(`codeql-expected: ${cells[0]} is not \`${element}\` in ${testPath} (another version?)`);
    out.add(line);
  }
  return [...out].sort((a, b) => a - b);
}
