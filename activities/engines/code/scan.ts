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
  | { ok: true; findings: Finding[]; wrapper: string | null; errorCoverage: number }
  | { ok: false; wrapper: string | null; errorCoverage: number; firstErrorLine: number };

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
    if (health.failed) {
      const first = health.findings[0]?.line_number ?? 1;
      return { ok: false, wrapper: prepared.wrapper, errorCoverage: health.errorCoverage, firstErrorLine: first };
    }
    const family = familyOf(loaded.language);
    const index = ruleIndex(family);
    const facts = analyzerFor(family).analyze(view, index.wanted(prepared.source));
    if (options.deadline !== undefined && performance.now() > options.deadline) throw new ScanTimeoutError();
    const ctx: MatchContext = {
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
    const findings = [...index.match(facts, prepared.source, ctx), ...health.findings];
    if (depth === 0) findings.push(...index.matchText(code));
    return { ok: true, findings: normalizeFindings(findings), wrapper: prepared.wrapper, errorCoverage: health.errorCoverage };
  } finally {
    tree.delete();
  }
}
