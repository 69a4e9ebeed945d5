// Recall and precision of the code scanner on third-party, line-labelled dangerous code.
//   bash bench/code-corpus.sh            (installs the pinned packages, then runs this)
//   npx tsx bench/code-corpus.ts [--verbose]
// The labels (ours) are in test/fixtures/code/third-party/manifest.json; the labelled files are
// NOT in this repository: bench/code-corpus.sh installs each pinned package into the git-ignored
// .tools/corpora/code/<package>/. A unit is a whole file, one string literal of a JavaScript
// test file, or the comment examples of a Ruby file (see extract()). Per language it prints:
// labelled lines found (recall), critical findings of the three labelled kinds on lines nobody
// labelled (precision), and units with a label that are BLOCKED (not admitted). Then it checks
// that the project's own corpus (test/fixtures/code/corpus.json) is still scanned exactly as
// labelled.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scanCode } from '../engines/code/index.js';

const ROOT = new URL('..', import.meta.url).pathname;
const MANIFEST = join(ROOT, 'test/fixtures/code/third-party/manifest.json');
const TOOLS = process.env.SVC_CODE_CORPUS_DIR ?? join(ROOT, '.tools/corpora/code');
const verbose = process.argv.includes('--verbose');
/** Finding types that correspond to the three labelled categories. */
const LABELLED_TYPES = new Set(['shell_execution', 'dynamic_code_execution', 'unsafe_deserialization']);

interface Label {
  line: number;
  category: string;
}
interface FileEntry {
  package: string;
  path: string;
  language: string;
  extract: 'file' | 'js-string-literals' | 'ruby-comment-examples' | 'html-pre-blocks';
  labels: Label[];
}
interface Manifest {
  packages: Record<string, { name: string; version: string; licence: string; root: string }>;
  files: FileEntry[];
}
/** A piece of code to scan and the file line of its first line. */
interface Unit {
  code: string;
  firstLine: number;
  lastLine: number;
}

const JS_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', v: '\v', '0': '\0' };

/** Every string and template literal of a JavaScript file (comments skipped), unescaped. */
function jsStringLiterals(text: string): Unit[] {
  const units: Unit[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      for (let k = i; k < stop; k++) if (text[k] === '\n') line++;
      i = stop;
    } else if (c === '"' || c === "'" || c === '`') {
      const firstLine = line;
      let out = '';
      let depth = 0;
      i++;
      while (i < text.length) {
        const d = text[i];
        if (d === '\\') {
          const e = text[i + 1];
          out += JS_ESCAPES[e] ?? e;
          if (e === '\n') line++;
          i += 2;
          continue;
        }
        if (d === '\n') line++;
        if (c === '`' && d === '$' && text[i + 1] === '{') depth++;
        else if (c === '`' && d === '}' && depth > 0) depth--;
        else if (d === c && depth === 0) break;
        out += d;
        i++;
      }
      i++;
      units.push({ code: out, firstLine, lastLine: line });
    } else {
      i++;
    }
  }
  return units;
}

/** The code lines of `# @example` blocks of a Ruby file, at their own line numbers. */
function rubyCommentExamples(text: string): Unit[] {
  const lines = text.split('\n');
  let inExample = false;
  const code = lines.map((l) => {
    if (/^\s*# @example/.test(l)) {
      inExample = true;
      return '';
    }
    if (!/^\s*#/.test(l) || /^\s*# (?! )\S/.test(l)) {
      inExample = false;
      return '';
    }
    const m = /^\s*# {3}(.*)$/.exec(l);
    return inExample && m ? m[1] : '';
  });
  return [{ code: code.join('\n'), firstLine: 1, lastLine: lines.length }];
}

const HTML_ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'", nbsp: ' ' };

/** The `<pre>` blocks of an XML/HTML file (tags inside removed, entities decoded), line numbers kept. */
function htmlPreBlocks(text: string): Unit[] {
  const units: Unit[] = [];
  const re = /<pre>([\s\S]*?)<\/pre>/g;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const start = m.index + '<pre>'.length;
    const firstLine = text.slice(0, start).split('\n').length;
    const code = m[1]
      .replace(/<[^>\n]*>/g, '')
      .replace(/&(lt|gt|amp|quot|apos|nbsp);/g, (_, e: string) => HTML_ENTITIES[e]);
    units.push({ code, firstLine, lastLine: firstLine + m[1].split('\n').length - 1 });
  }
  return units;
}

function extract(entry: FileEntry, text: string): Unit[] {
  switch (entry.extract) {
    case 'file':
      return [{ code: text, firstLine: 1, lastLine: text.split('\n').length }];
    case 'js-string-literals':
      return jsStringLiterals(text).filter((u) => u.code.trim().length > 0);
    case 'ruby-comment-examples':
      return rubyCommentExamples(text);
    case 'html-pre-blocks':
      return htmlPreBlocks(text);
  }
}

interface Tally {
  labelled: number;
  found: number;
  falsePositives: number;
  otherCritical: number;
  units: number;
  unitsLabelled: number;
  unitsBlocked: number;
  files: Set<string>;
}
const tallies = new Map<string, Tally>();
const tally = (lang: string): Tally => {
  let t = tallies.get(lang);
  if (!t)
    tallies.set(
      lang,
      (t = {
        labelled: 0,
        found: 0,
        falsePositives: 0,
        otherCritical: 0,
        units: 0,
        unitsLabelled: 0,
        unitsBlocked: 0,
        files: new Set(),
      }),
    );
  return t;
};

const manifest: Manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
const missingPackages = new Set<string>();
for (const entry of manifest.files) {
  const pkg = manifest.packages[entry.package];
  const file = join(TOOLS, entry.package, pkg.root, entry.path);
  if (!existsSync(file)) {
    missingPackages.add(`${pkg.name} ${pkg.version}`);
    continue;
  }
  const t = tally(entry.language);
  t.files.add(`${entry.package}:${entry.path}`);
  const labels = new Map(entry.labels.map((l) => [l.line, l.category]));
  const seen = new Set<number>();
  for (const unit of extract(entry, readFileSync(file, 'utf8'))) {
    const unitLabels = [...labels.keys()].filter((l) => l >= unit.firstLine && l <= unit.lastLine);
    for (const l of unitLabels) seen.add(l);
    const out = await scanCode(unit.code, entry.language);
    const fields = out.developerFields as {
      is_valid?: boolean;
      issues?: Array<{ line_number: number; severity: string; type: string; description: string }>;
    };
    const critical = (fields.issues ?? []).filter((i) => i.severity === 'critical');
    const criticalLines = new Set(
      critical.filter((i) => LABELLED_TYPES.has(i.type)).map((i) => unit.firstLine + i.line_number - 1),
    );
    t.units++;
    t.otherCritical += critical.filter((i) => !LABELLED_TYPES.has(i.type)).length;
    if (unitLabels.length > 0) {
      t.unitsLabelled++;
      if (fields.is_valid !== true) t.unitsBlocked++;
      else
        console.log(
          `  ADMITTED ${entry.language} ${entry.package}:${entry.path} (lines ${unit.firstLine}-${unit.lastLine}) ${out.kind}`,
        );
    }
    for (const l of unitLabels) {
      t.labelled++;
      if (criticalLines.has(l)) t.found++;
      else
        console.log(
          `  MISS ${entry.language} ${entry.package}:${entry.path}:${l} (${labels.get(l)})${out.kind === 'blocked' ? ` [${String((fields as Record<string, unknown>).constraint_id)}]` : ''}`,
        );
    }
    for (const l of criticalLines) {
      if (!labels.has(l)) {
        t.falsePositives++;
        const f = critical.find((i) => unit.firstLine + i.line_number - 1 === l);
        console.log(
          `  UNLABELLED ${entry.language} ${entry.package}:${entry.path}:${l} ${f?.type}: ${f?.description.slice(0, 100)}`,
        );
      }
    }
    if (verbose)
      console.log(
        `  ${entry.package}:${entry.path} ${unit.firstLine}-${unit.lastLine}: ${[...criticalLines].join(',')}`,
      );
  }
  for (const l of labels.keys())
    if (!seen.has(l)) throw new Error(`${entry.path}:${l}: label outside every extracted unit`);
}

console.log('\nthird-party corpus (labels: test/fixtures/code/third-party/manifest.json)');
for (const [name, p] of Object.entries(manifest.packages))
  console.log(`  ${name}: ${p.name} ${p.version} (${p.licence})`);
for (const m of missingPackages) console.log(`  NOT INSTALLED: ${m} (run bash bench/code-corpus.sh)`);
let all = { labelled: 0, found: 0, fp: 0, unitsLabelled: 0, blocked: 0 };
for (const lang of ['python', 'javascript', 'typescript', 'go', 'java', 'ruby', 'php', 'bash']) {
  const t = tallies.get(lang);
  if (!t) {
    console.log(`${lang.padEnd(10)} no registry material in the corpus`);
    continue;
  }
  const recall = t.labelled ? t.found / t.labelled : 1;
  const precision = t.found + t.falsePositives ? t.found / (t.found + t.falsePositives) : 1;
  console.log(
    `${lang.padEnd(10)} files ${t.files.size}, units ${t.units}; labelled lines ${t.labelled}, found ${t.found}: recall ${(100 * recall).toFixed(1)} %; ` +
      `unlabelled critical ${t.falsePositives}: precision ${(100 * precision).toFixed(1)} %; units with a label blocked ${t.unitsBlocked}/${t.unitsLabelled}; ` +
      `other critical findings ${t.otherCritical}`,
  );
  all = {
    labelled: all.labelled + t.labelled,
    found: all.found + t.found,
    fp: all.fp + t.falsePositives,
    unitsLabelled: all.unitsLabelled + t.unitsLabelled,
    blocked: all.blocked + t.unitsBlocked,
  };
}
console.log(
  `total      labelled lines ${all.labelled}, found ${all.found}: recall ${((100 * all.found) / Math.max(1, all.labelled)).toFixed(1)} %; ` +
    `precision ${((100 * all.found) / Math.max(1, all.found + all.fp)).toFixed(1)} %; units with a label blocked ${all.blocked}/${all.unitsLabelled}`,
);

// The project's own labelled corpus must still be scanned exactly as labelled.
const OWN = join(ROOT, 'test/fixtures/code');
const own: Array<{ file: string; language: string; critical: boolean; critical_lines: number[]; blocked?: string }> =
  JSON.parse(readFileSync(join(OWN, 'corpus.json'), 'utf8'));
let ownOk = 0;
for (const c of own) {
  const out = await scanCode(readFileSync(join(OWN, c.file), 'utf8'), c.language);
  const fields = out.developerFields as {
    is_valid?: boolean;
    issues?: Array<{ line_number: number; severity: string }>;
  };
  const lines = [
    ...new Set((fields.issues ?? []).filter((i) => i.severity === 'critical').map((i) => i.line_number)),
  ].sort((a, b) => a - b);
  const verdictOk = c.blocked
    ? out.kind === 'blocked' && (fields as Record<string, unknown>).constraint_id === c.blocked
    : fields.is_valid === !c.critical;
  if (verdictOk && JSON.stringify(lines) === JSON.stringify(c.critical_lines)) ownOk++;
  else
    console.log(
      `  OWN CORPUS MISMATCH ${c.file}: expected ${JSON.stringify(c.critical_lines)}, got ${JSON.stringify(lines)}`,
    );
}
console.log(`own corpus (test/fixtures/code/corpus.json): ${ownOk}/${own.length} snippets scanned exactly as labelled`);
