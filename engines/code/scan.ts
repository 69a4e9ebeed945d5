// One scan: prepare the source, parse it with the language's reusable parser, check the
// parse, run the analyzer, apply the rule table, free the tree.
import type { Tree } from 'web-tree-sitter';
import { analyzerFor } from './analyzers/index.js';
import { type Finding, normalizeFindings } from './findings.js';
import { familyOf, type Language } from './languages.js';
import { ruleIndex } from './match.js';
import { parseHealth, type ParseHealth } from './parse-health.js';
import type { MatchContext } from './predicates.js';
import type { LoadedLanguage } from './runtime.js';
import { SyntaxView } from './syntax.js';
import { fromInput, fromParameters, nearestInputSources, parameterSources, receiverBindings } from './flows.js';

/** Constant code handed to eval-like sinks is scanned too, this many levels deep. */
export const MAX_NESTED_DEPTH = 3;

export class ScanTimeoutError extends Error {
  constructor() {
    super('code scan exceeded its time budget');
    this.name = 'ScanTimeoutError';
  }
}

export interface PreparedSource {
  source: string;
  /** How the snippet was completed so the grammar accepts it (null: as given). */
  wrapper: string | null;
}

/**
 * Snippet completions that keep every line where it was (prefixes go on line 1):
 *  - PHP without an opening tag gets `<?php ` (otherwise the grammar reads it all as HTML text);
 *  - Go without a package clause is tried as is, with `package main; `, and with statements
 *    wrapped in a function; the candidate with the fewest syntax errors wins.
 */
export function prepareSources(language: Language, code: string): PreparedSource[] {
  if (language === 'php' && !/<\?(?:php|=)?/i.test(code)) return [{ source: `<?php ${code}`, wrapper: 'php_open_tag' }];
  if (language === 'go' && !/^\s*package\s+[A-Za-z_]\w*/m.test(code)) {
    return [
      { source: code, wrapper: null },
      { source: `package main; ${code}`, wrapper: 'go_package_clause' },
      { source: `package main; func _() { ${code}\n}`, wrapper: 'go_package_and_function' },
    ];
  }
  return [{ source: code, wrapper: null }];
}

export interface ScanOptions {
  /** performance.now() value after which the scan is abandoned. */
  deadline?: number;
  depth?: number;
}

export type ScanOutput =
  | { ok: true; findings: Finding[]; wrapper: string | null; errorCoverage: number; hasSyntaxError: boolean }
  | {
      ok: false;
      wrapper: string | null;
      errorCoverage: number;
      firstErrorLine: number;
      /** Critical findings in what error recovery still recognised (a lower bound: the input is blocked anyway). */
      recovered: Finding[];
    };

function parseOnce(loaded: LoadedLanguage, source: string, deadline: number | undefined): Tree {
  const tree =
    deadline === undefined
      ? loaded.parser.parse(source)
      : loaded.parser.parse(source, null, { progressCallback: () => performance.now() > deadline });
  if (!tree) {
    loaded.parser.reset();
    throw new ScanTimeoutError();
  }
  return tree;
}

/** Error-region lines scanned one by one, at most this many per input. */
const MAX_ERROR_REGION_LINES = 5_000;

/**
 * One line scanned as a snippet of its own: its critical findings, or null when the line does
 * not parse alone. No nested scans, no secrets (the caller's scan has those).
 */
function lineAlone(loaded: LoadedLanguage, text: string, deadline: number | undefined): Finding[] | null {
  if (text.trim() === '') return null;
  // The same snippet completions as a whole input (`<?php ` for PHP, a package and function for Go).
  for (const { source } of prepareSources(loaded.language, text)) {
    const tree = parseOnce(loaded, source, deadline);
    try {
      const view = new SyntaxView(source, tree);
      if (parseHealth(view).failed) continue;
      const family = familyOf(loaded.language);
      const index = ruleIndex(family);
      const facts = analyzerFor(family).analyze(view, index.wanted(source));
      return index.match(facts, source, { nested: () => [] }).filter((f) => f.severity === 'critical');
    } finally {
      tree.delete();
    }
  }
  return null;
}

/**
 * Shell: a line inside a region tree-sitter-bash could not parse is scanned on its own, so an
 * `eval` that error recovery turned into a plain word (`eval local x=…`) is still reported
 * (fail closed: an evasion through a syntax error does not hide it). Shell is line-oriented, so
 * most lines are statements; a line that does not parse alone adds nothing.
 */
function errorRegionLines(family: string, health: ParseHealth, alone: (line: number) => Finding[] | null): Finding[] {
  if (family !== 'bash' || !health.hasError) return [];
  const out: Finding[] = [];
  let budget = MAX_ERROR_REGION_LINES;
  let skipped = 0;
  let firstSkipped = 0;
  for (const { first, last } of health.errorLines) {
    for (let line = first; line <= last; line++) {
      if (budget-- <= 0) {
        skipped++;
        firstSkipped ||= line;
        continue;
      }
      for (const f of alone(line) ?? [])
        out.push({
          ...f,
          line_number: line,
          description: `${f.description} (line scanned alone: it lies in a region that does not parse)`,
        });
    }
  }
  if (skipped > 0) {
    // Fail closed: what was not read cannot be admitted.
    out.push({
      rule_id: 'parse.unscanned',
      severity: 'critical',
      type: 'parse_error',
      line_number: firstSkipped,
      description: `${skipped} lines in regions that do not parse were not scanned (limit ${MAX_ERROR_REGION_LINES})`,
    });
  }
  return out;
}

/**
 * PHP regions that do not parse: a backtick pair there is still a shell command to PHP (the
 * backtick has no other meaning in PHP), so it is reported on its first line and on every line
 * of it that interpolates a variable (what the region's error recovery lost). Only for input
 * that is blocked anyway (a syntax error); linear in the regions' length.
 */
function phpBacktickRegions(family: string, health: ParseHealth, source: string): Finding[] {
  if (family !== 'php' || !health.hasError) return [];
  const lines = source.split('\n');
  const out: Finding[] = [];
  let budget = MAX_ERROR_REGION_LINES;
  for (const { first, last } of health.errorLines) {
    let open: number | null = null;
    let interpolated: number[] = [];
    for (let line = first; line <= Math.min(last, lines.length) && budget-- > 0; line++) {
      const text = lines[line - 1];
      let from = 0;
      for (;;) {
        const tick = text.indexOf('`', from);
        const segment = text.slice(from, tick < 0 ? undefined : tick);
        if (open !== null && segment.includes('$') && !interpolated.includes(line)) interpolated.push(line);
        if (tick < 0) break;
        if (open === null) {
          open = line;
          interpolated = [];
        } else {
          for (const l of new Set([open, ...interpolated])) {
            out.push({
              rule_id: 'php.backtick-in-error-region',
              severity: 'critical',
              type: 'shell_execution',
              line_number: l,
              description: 'Shell command (backticks) in a region that does not parse',
            });
          }
          open = null;
        }
        from = tick + 1;
      }
    }
  }
  return out;
}

/** True when `code` parses in this language without any ERROR or MISSING node (snippet completions applied). */
export function parsesCleanly(loaded: LoadedLanguage, code: string, deadline: number | undefined): boolean {
  for (const { source } of prepareSources(loaded.language, code)) {
    const tree = parseOnce(loaded, source, deadline);
    try {
      if (!tree.rootNode.hasError) return true;
    } finally {
      tree.delete();
    }
  }
  return false;
}

/** Finding types whose input is traced back to where it enters (flows.ts). */
const FLOW_TYPES: ReadonlySet<string> = new Set([
  'shell_execution',
  'dynamic_code_execution',
  'unsafe_deserialization',
]);
const MAX_FLOW_FINDINGS = 64;

/**
 * A critical sink fed by request or program input read on an earlier line reports that line
 * too ("… input from line 3"), so the flow is shown with both ends.
 */
function withInputSources(findings: Finding[], source: string, family: ReturnType<typeof familyOf>): Finding[] {
  let budget = MAX_FLOW_FINDINGS;
  return findings.map((g) => {
    if (g.severity !== 'critical' || !FLOW_TYPES.has(g.type) || budget-- <= 0) return g;
    // Session 16 (second wave): a callee or receiver bound to a local name names its binding lines.
    const bound = receiverBindings(source, family, g.line_number);
    const f = bound
      ? {
          ...g,
          description: `${g.description}; ${bound.kind} bound on line${bound.lines.length > 1 ? 's' : ''} ${bound.lines.join(', ')}`,
        }
      : g;
    const from = nearestInputSources(source, family, f.line_number, 3);
    if (from.length === 0) {
      // No request input: a value built from the function's own parameters (library input).
      const built = parameterSources(source, family, f.line_number).filter((l) => l !== f.line_number);
      if (built.length === 0) return f;
      return {
        ...f,
        description: `${f.description}; argument built from parameters on line${built.length > 1 ? 's' : ''} ${built.join(', ')}`,
      };
    }
    return { ...f, description: `${f.description}; input from line${from.length > 1 ? 's' : ''} ${from.join(', ')}` };
  });
}

export function scanSource(loaded: LoadedLanguage, code: string, options: ScanOptions = {}): ScanOutput {
  const depth = options.depth ?? 0;
  let best: { tree: Tree; prepared: PreparedSource; view: SyntaxView; health: ParseHealth } | null = null;
  try {
    for (const prepared of prepareSources(loaded.language, code)) {
      const tree = parseOnce(loaded, prepared.source, options.deadline);
      const view = new SyntaxView(prepared.source, tree);
      let health: ParseHealth;
      try {
        health = parseHealth(view);
      } catch (err) {
        tree.delete();
        throw err;
      }
      if (!best || health.errorCoverage < best.health.errorCoverage || (best.health.hasError && !health.hasError)) {
        best?.tree.delete();
        best = { tree, prepared, view, health };
      } else {
        tree.delete();
      }
      if (!best.health.hasError) break;
    }
  } catch (err) {
    best?.tree.delete();
    throw err;
  }
  if (!best) throw new Error('no source candidate');
  const { tree, prepared, view, health } = best;
  try {
    const family = familyOf(loaded.language);
    const index = ruleIndex(family);
    const ctx: MatchContext = {
      fromInput: (line, argText) => fromInput(prepared.source, family, line, argText),
      fromParameters: (line, argText) => fromParameters(prepared.source, family, line, argText),
      source: prepared.source,
      nested(inner: string): readonly Finding[] {
        if (depth + 1 >= MAX_NESTED_DEPTH) {
          // Fail closed: code nested this deep in eval-like sinks is treated as unsafe.
          return [
            {
              rule_id: 'nested.depth',
              severity: 'critical',
              type: 'dynamic_code_execution',
              line_number: 1,
              description: `code evaluated more than ${MAX_NESTED_DEPTH} levels deep`,
            },
          ];
        }
        const out = scanSource(loaded, inner, { deadline: options.deadline, depth: depth + 1 });
        // Constant code that does not parse cannot run either.
        return out.ok ? out.findings : [];
      },
    };
    const lines = prepared.source.split('\n');
    const alone = (line: number) => lineAlone(loaded, lines[line - 1] ?? '', options.deadline);
    if (health.failed) {
      const first = health.findings[0]?.line_number ?? 1;
      // The verdict is parse_failure (blocked) whatever is found; the analyzer still runs on the
      // error-recovered tree so the caller learns which dangerous lines it did recognise. A line
      // is listed only when it parses on its own (prose that names `child_process.exec()` is not).
      let recovered: Finding[] = [];
      try {
        const facts = analyzerFor(family).analyze(view, index.wanted(prepared.source));
        const critical = index.match(facts, prepared.source, ctx).filter((f) => f.severity === 'critical');
        const parses = new Map<number, boolean>();
        recovered = critical.filter((f) => {
          if (!parses.has(f.line_number)) parses.set(f.line_number, alone(f.line_number) !== null);
          return parses.get(f.line_number);
        });
      } catch (err) {
        if (err instanceof ScanTimeoutError) throw err;
        // Best effort only: a tree this broken may defeat an analyzer; the input stays blocked.
      }
      recovered.push(
        ...errorRegionLines(family, health, alone),
        ...phpBacktickRegions(family, health, prepared.source),
      );
      return {
        ok: false,
        wrapper: prepared.wrapper,
        errorCoverage: health.errorCoverage,
        firstErrorLine: first,
        recovered: normalizeFindings(recovered),
      };
    }
    const facts = analyzerFor(family).analyze(view, index.wanted(prepared.source));
    if (options.deadline !== undefined && performance.now() > options.deadline) throw new ScanTimeoutError();
    const findings = [
      ...withInputSources(index.match(facts, prepared.source, ctx), prepared.source, family),
      ...health.findings,
      ...errorRegionLines(family, health, alone),
      ...phpBacktickRegions(family, health, prepared.source),
    ];
    if (depth === 0) findings.push(...index.matchText(code));
    return {
      ok: true,
      findings: normalizeFindings(findings),
      wrapper: prepared.wrapper,
      errorCoverage: health.errorCoverage,
      hasSyntaxError: health.hasError,
    };
  } finally {
    tree.delete();
  }
}
