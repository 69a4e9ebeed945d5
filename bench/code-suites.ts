// Recall and precision of the code scanner per independent public test suite and per language.
//   SVC_CODE_SUITES_MIRROR=<dir of owner+name/repo git dirs> npx tsx bench/code-suites.ts [--verbose] [--suite=<name>]
// Labels: test/fixtures/code/suites/manifest.json (built by bench/code-suites-labels.ts from each
// suite's own expectations). The code is read from the suites' git snapshots at the pinned
// commit, never committed here. A unit is a file, or one backquoted sample of a gosec
// testutils file. OWASP Benchmark labels whole files (its expectedresults CSV, kept in the
// manifest's `cases`): a labelled file is found when it has a critical finding of that kind
// anywhere, and the admitted share of each of its categories is printed at the end.
// Printed per suite and language:
//   recall      labelled lines with a critical finding of the three labelled kinds at that line
//               (or naming it as the source of a flow), and labelled units BLOCKED (not admitted);
//   precision   safe cases (units the suite marks safe) admitted, and critical findings of the
//               labelled kinds on lines nobody labelled (reported, informative); a safe case
//               that still runs a process (constant command) is reported apart: the contract
//               blocks every process execution, so it must be BLOCKED.
// Exit status 1 when a goal is missed (recall < 95 %, a labelled unit admitted, safe cases
// admitted < 95 %) and --check is given.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scanCode } from '../engines/code/index.js';
import {
  caseEntry,
  suiteGitDir,
  suitesMirror,
  type CaseSuite,
  type FileEntry,
  type Label,
  type TestCase,
} from './code-suites-manifest.js';
import { dlintSamples, eslintSamples, psalmSamples, rubocopSamples } from './code-suites-samples.js';

const ROOT = new URL('..', import.meta.url).pathname;
const MIRROR = suitesMirror(ROOT);
const verbose = process.argv.includes('--verbose');
const check = process.argv.includes('--check');
/** `--suite=<name>`: only that suite (quicker while working on one). */
const onlySuite = process.argv.find((a) => a.startsWith('--suite='))?.slice('--suite='.length);
const LABELLED_TYPES = new Set(['shell_execution', 'dynamic_code_execution', 'unsafe_deserialization']);

interface Manifest {
  suites: Record<string, { repo: string; licence: string; commit: string }>;
  files: FileEntry[];
  /** Suites labelled by whole file (OWASP Benchmark), one compact row per test case. */
  caseSuites?: Record<string, CaseSuite>;
  cases?: TestCase[];
}
interface Unit {
  code: string;
  firstLine: number;
  lastLine: number;
  /** gosec: the sample's expected issue count (0: a negative case of the suite). */
  expected?: number;
}

/**
 * The samples of a gosec testutils file: `{[]string{<Go string expressions>}, <expected count>, …}`.
 * Each element is a chain of string literals joined by `+` (struct tags are spliced in as
 * "`json:\"x\"`"); a unit is one element, at its own line numbers, with the sample's expected
 * issue count (0: one of the suite's negative cases).
 */
function goSamples(text: string): Unit[] {
  const units: Unit[] = [];
  let pending: Unit[] = [];
  let i = 0;
  let line = 1;
  const lineAt = (k: number) => {
    while (i < k) if (text[i++] === '\n') line++;
    return line;
  };
  const literal = (k: number): { value: string; end: number } | null => {
    if (text[k] === '`') {
      const e = text.indexOf('`', k + 1);
      return e < 0 ? null : { value: text.slice(k + 1, e), end: e + 1 };
    }
    if (text[k] === '"') {
      let v = '';
      let j = k + 1;
      while (j < text.length && text[j] !== '"' && text[j] !== '\n') {
        if (text[j] === '\\') {
          const e = text[j + 1];
          v += e === 'n' ? '\n' : e === 't' ? '\t' : e;
          j += 2;
        } else v += text[j++];
      }
      return { value: v, end: j + 1 };
    }
    return null;
  };
  let k = 0;
  while (k < text.length) {
    if (text.startsWith('//', k)) {
      k = text.indexOf('\n', k);
      if (k < 0) break;
      continue;
    }
    const first = text[k] === '`' ? literal(k) : null;
    if (first) {
      const firstLine = lineAt(k);
      let code = first.value;
      let end = first.end;
      for (;;) {
        const m = /^\s*\+\s*/.exec(text.slice(end, end + 200));
        const next = m ? literal(end + m[0].length) : null;
        if (!m || !next) break;
        code += next.value;
        end = next.end;
      }
      const unit = { code, firstLine, lastLine: firstLine + code.split('\n').length - 1, expected: -1 };
      units.push(unit);
      pending.push(unit);
      k = end;
      const count = /^[\s,]*\}\s*,\s*(\d+)\s*,/.exec(text.slice(k, k + 200));
      if (count) {
        for (const u of pending) u.expected = Number(count[1]);
        pending = [];
      }
      continue;
    }
    if (text[k] === '"') {
      k = literal(k)?.end ?? k + 1;
      continue;
    }
    k++;
  }
  return units.filter((u) => u.code.trim() !== '');
}

/** A safe case: a unit of a file the suite marks safe, or a sample its own test expects no issue of. */
const isSafe = (entry: FileEntry, unit: Unit) =>
  entry.extract === 'go-backquoted-samples'
    ? unit.expected === 0
    : entry.extract === 'file'
      ? entry.safe === true && entry.runsProcess !== true
      : (entry.safeUnits ?? []).includes(unit.firstLine);
/** A suite's negative that still runs a process: reported apart, expected BLOCKED. */
const runsProcess = (entry: FileEntry, unit: Unit) =>
  entry.runsProcess === true || (entry.processUnits ?? []).includes(unit.firstLine);
/** The units of a suite file: the whole file, or the samples embedded in it. */
function unitsOf(entry: FileEntry, text: string): Unit[] {
  if (entry.extract === 'file') return [{ code: text, firstLine: 1, lastLine: text.split('\n').length }];
  if (entry.extract === 'go-backquoted-samples') return goSamples(text);
  const samples =
    entry.extract === 'dlint-samples'
      ? dlintSamples(text)
      : entry.extract === 'psalm-samples'
        ? psalmSamples(text)
        : entry.extract === 'eslint-samples'
          ? eslintSamples(text)
          : rubocopSamples(text, '');
  return samples.filter((u) => !u.skip).map(({ code, firstLine, lastLine }) => ({ code, firstLine, lastLine }));
}

const manifest: Manifest = JSON.parse(readFileSync(join(ROOT, 'test/fixtures/code/suites/manifest.json'), 'utf8'));
const entries = [...manifest.files, ...(manifest.cases ?? []).map((c) => caseEntry(c, manifest.caseSuites ?? {}))];
/** The finding type of each labelled category (a whole-file label is found by one of its kind). */
const TYPE_OF: Record<string, string> = {
  process_execution: 'shell_execution',
  dynamic_code_execution: 'dynamic_code_execution',
  unsafe_deserialization: 'unsafe_deserialization',
};
/** Per suite and suite category (OWASP): test cases, and how many were admitted. */
const byCategory = new Map<string, { cases: number; admitted: number; vulnerable: boolean }>();

interface Tally {
  labelled: number;
  found: number;
  unitsLabelled: number;
  unitsBlocked: number;
  safeUnits: number;
  safeAdmitted: number;
  unlabelled: number;
  files: number;
  /** The suite's negatives that run a process (a constant command): the contract blocks them. */
  processNegatives: number;
  processNegativesBlocked: number;
  /** Lines the suite marks safe, and those with a critical finding of the labelled kinds. */
  safeLines: number;
  safeLinesFlagged: number;
}
const tallies = new Map<string, Tally>();
const tally = (key: string): Tally => {
  let t = tallies.get(key);
  if (!t)
    tallies.set(
      key,
      (t = {
        labelled: 0,
        found: 0,
        unitsLabelled: 0,
        unitsBlocked: 0,
        safeUnits: 0,
        safeAdmitted: 0,
        unlabelled: 0,
        files: 0,
        processNegatives: 0,
        processNegativesBlocked: 0,
        safeLines: 0,
        safeLinesFlagged: 0,
      }),
    );
  return t;
};
const missing = new Set<string>();

for (const entry of entries) {
  if (onlySuite && entry.suite !== onlySuite) continue;
  const suite = manifest.suites[entry.suite];
  const gitDir = suiteGitDir(MIRROR, suite.repo);
  const plainFile = entry.commit ? join(MIRROR, suite.repo.replace('/', '+'), 'files', entry.commit, entry.path) : null;
  if (plainFile ? !existsSync(plainFile) : !existsSync(gitDir)) {
    missing.add(`${entry.suite} (${suite.repo}@${(entry.commit ?? suite.commit).slice(0, 12)})`);
    continue;
  }
  const text = plainFile
    ? readFileSync(plainFile, 'utf8')
    : execFileSync('git', ['--git-dir', gitDir, 'show', `${suite.commit}:${entry.path}`], {
        encoding: 'utf8',
        maxBuffer: 1 << 26,
      });
  const units = unitsOf(entry, text);
  const keys = [`${entry.suite}\t${entry.language}`, `${entry.suite}\t*`, `*\t${entry.language}`, '*\t*'];
  for (const k of keys) tally(k).files++;
  const labels = new Map(entry.labels.map((l) => [l.line, l]));
  for (const unit of units) {
    const unitLabels = entry.labels.filter(
      (l) => l.line === 0 || (l.line >= unit.firstLine && l.line <= unit.lastLine),
    );
    const out = await scanCode(unit.code, entry.language);
    const fields = out.developerFields as {
      is_valid?: boolean;
      constraint_id?: string;
      issues?: Array<{ line_number: number; severity: string; type: string; description: string }>;
    };
    const critical = (fields.issues ?? []).filter((i) => i.severity === 'critical' && LABELLED_TYPES.has(i.type));
    const hit = new Set<number>();
    for (const f of critical) {
      hit.add(unit.firstLine + f.line_number - 1);
      // A flow reported at its sink names its source line too ("… from line N").
      for (const m of f.description.matchAll(/\blines? (\d+(?:, \d+)*)/g))
        for (const n of m[1].split(', ')) hit.add(unit.firstLine + Number(n) - 1);
    }
    const admitted = fields.is_valid === true;
    // A whole-file label is found by a critical finding of its kind anywhere in the unit.
    for (const l of unitLabels)
      if ((l.line === 0 || l.unit) && critical.some((f) => f.type === TYPE_OF[l.category])) hit.add(l.line);
    const wholeUnit = unitLabels.some((l) => l.line === 0 || l.unit);
    /** A label spanning a construct (semgrep-rules' `end`) is found by a finding anywhere in it. */
    const isFound = (l: Label) => {
      for (let n = l.line; n <= (l.end ?? l.line); n++) if (hit.has(n)) return true;
      return false;
    };
    const labelled = (line: number) =>
      labels.has(line) || entry.labels.some((l) => l.end && line > l.line && line <= l.end);
    if (entry.caseCategory) {
      const k = `${entry.suite}\t${entry.caseCategory}\t${unitLabels.length > 0 ? 'vulnerable' : entry.runsProcess ? 'negative, runs a process' : 'safe'}`;
      const c = byCategory.get(k) ?? { cases: 0, admitted: 0, vulnerable: unitLabels.length > 0 };
      c.cases++;
      if (admitted) c.admitted++;
      byCategory.set(k, c);
    }
    for (const k of keys) {
      const t = tally(k);
      if (unitLabels.length > 0) {
        t.unitsLabelled++;
        if (!admitted) t.unitsBlocked++;
      } else if (isSafe(entry, unit)) {
        t.safeUnits++;
        if (admitted) t.safeAdmitted++;
      } else if (runsProcess(entry, unit)) {
        t.processNegatives++;
        if (!admitted) t.processNegativesBlocked++;
      }
      for (const l of unitLabels) {
        t.labelled++;
        if (isFound(l)) t.found++;
      }
      for (const f of critical) if (!wholeUnit && !labelled(unit.firstLine + f.line_number - 1)) t.unlabelled++;
      for (const line of entry.safeLines ?? []) {
        if (line < unit.firstLine || line > unit.lastLine) continue;
        t.safeLines++;
        if (critical.some((f) => unit.firstLine + f.line_number - 1 === line)) t.safeLinesFlagged++;
      }
    }
    for (const line of entry.safeLines ?? []) {
      const f = critical.find((c) => unit.firstLine + c.line_number - 1 === line);
      if (f)
        console.log(
          `  SAFE LINE FLAGGED ${entry.language} ${entry.suite}:${entry.path}:${line} ${f.type}: ${f.description.slice(0, 90)}`,
        );
    }
    const where = `${entry.suite}:${entry.path}`;
    if (unitLabels.length > 0 && admitted)
      console.log(`  ADMITTED ${entry.language} ${where} (lines ${unit.firstLine}-${unit.lastLine})`);
    for (const l of unitLabels)
      if (!isFound(l))
        console.log(
          `  MISS ${entry.language} ${where}:${l.line} (${l.category}; ${l.source})${out.kind === 'blocked' ? ` [${fields.constraint_id}]` : ''}`,
        );
    if (unitLabels.length === 0 && isSafe(entry, unit) && !admitted) {
      const why = critical[0] ?? (fields.issues ?? []).find((i) => i.severity === 'critical');
      console.log(
        `  SAFE CASE BLOCKED ${entry.language} ${where} (lines ${unit.firstLine}-${unit.lastLine}) [${fields.constraint_id}] ${why ? `line ${unit.firstLine + why.line_number - 1}: ${why.description.slice(0, 90)}` : ''}`,
      );
    }
    if (verbose)
      for (const f of critical)
        if (!wholeUnit && !labelled(unit.firstLine + f.line_number - 1))
          console.log(
            `  UNLABELLED ${where}:${unit.firstLine + f.line_number - 1} ${f.type}: ${f.description.slice(0, 90)}`,
          );
  }
}

const pct = (a: number, b: number) => (b === 0 ? '   n/a' : `${((100 * a) / b).toFixed(1).padStart(5)} %`);
console.log('\ncode scanner on independent public suites (labels: test/fixtures/code/suites/manifest.json)');
for (const [name, s] of Object.entries(manifest.suites))
  console.log(`  ${name}: ${s.repo}@${s.commit.slice(0, 12)} (${s.licence})`);
for (const m of missing) console.log(`  NOT AVAILABLE: ${m}: set SVC_CODE_SUITES_MIRROR`);
console.log(
  `${'suite'.padEnd(24)}${'language'.padEnd(12)}files  labelled  found  recall   labelled units blocked   safe units admitted (precision)  unlabelled critical  negatives running a process: blocked  safe lines not flagged`,
);
let failed = false;
const order = [...tallies.keys()].sort(
  (a, b) => (a.startsWith('*') ? 1 : 0) - (b.startsWith('*') ? 1 : 0) || a.localeCompare(b),
);
for (const key of order) {
  const [suite, lang] = key.split('\t');
  const t = tallies.get(key)!;
  console.log(
    `${(suite === '*' ? 'all' : suite).padEnd(24)}${(lang === '*' ? 'all' : lang).padEnd(12)}${String(t.files).padStart(5)}  ${String(t.labelled).padStart(8)}  ${String(t.found).padStart(5)}  ${pct(t.found, t.labelled)}   ${`${t.unitsBlocked}/${t.unitsLabelled}`.padStart(9)}              ${`${t.safeAdmitted}/${t.safeUnits}`.padStart(9)} ${pct(t.safeAdmitted, t.safeUnits)}        ${String(t.unlabelled).padEnd(21)}${(t.processNegatives ? `${t.processNegativesBlocked}/${t.processNegatives}` : '-').padEnd(38)}${t.safeLines ? `${t.safeLines - t.safeLinesFlagged}/${t.safeLines} ${pct(t.safeLines - t.safeLinesFlagged, t.safeLines)}` : '-'}`,
  );
  if (lang === '*' && suite !== '*') {
    if (t.labelled && t.found / t.labelled < 0.95) failed = true;
    if (t.unitsBlocked < t.unitsLabelled) failed = true;
    if (t.safeUnits && t.safeAdmitted / t.safeUnits < 0.95) failed = true;
    if (t.processNegativesBlocked < t.processNegatives) failed = true;
    if (t.safeLines && (t.safeLines - t.safeLinesFlagged) / t.safeLines < 0.95) failed = true;
  }
}
if (byCategory.size) {
  console.log('\nby suite category (whole-file suites): test cases admitted');
  for (const [k, c] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    const [suite, category, kind] = k.split('\t');
    console.log(
      `${suite.padEnd(24)}${category.padEnd(17)}${kind.padEnd(26)}${`${c.admitted}/${c.cases}`.padStart(9)} admitted`,
    );
  }
}
if (check && failed) process.exit(1);
