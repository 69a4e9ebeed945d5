// Syntax errors: reported as findings when the parse is partial, a parse failure when
// nothing meaningful was recognised.
//
// Definition (documented in docs/code-scanner.md): the input does not parse at all when the
// root node itself is an ERROR node, or when the outermost ERROR nodes together cover at
// least half of the input's non-whitespace characters. Otherwise every outermost ERROR node
// and every MISSING node (a token the parser had to invent) is a medium `parse_error` finding.
import type { Node } from 'web-tree-sitter';
import type { Finding } from './findings.js';
import type { SyntaxView } from './syntax.js';

export const PARSE_FAILURE_COVERAGE = 0.5;
const MAX_LISTED = 20;
const MAX_VISITED = 20_000;

export interface ParseHealth {
  hasError: boolean;
  /** Share of non-whitespace characters inside outermost ERROR nodes, 0..1. */
  errorCoverage: number;
  failed: boolean;
  findings: Finding[];
  /** 1-based first and last lines of the outermost ERROR nodes. */
  errorLines: Array<{ first: number; last: number }>;
}

const nonWhitespace = (s: string): number => s.replace(/\s+/g, '').length;

export function parseHealth(view: SyntaxView): ParseHealth {
  const root = view.root;
  if (!root.hasError) return { hasError: false, errorCoverage: 0, failed: false, findings: [], errorLines: [] };

  const errors: Node[] = [];
  let lastEnd = -1;
  for (const e of view.ofType(root, ['ERROR'])) {
    if (e.startIndex >= lastEnd) {
      errors.push(e);
      lastEnd = view.end(e);
    }
  }
  const total = nonWhitespace(view.source);
  const covered = errors.reduce((sum, e) => sum + nonWhitespace(view.text(e)), 0);
  const errorCoverage = total === 0 ? 1 : Math.min(1, covered / total);
  const failed = root.isError || errorCoverage >= PARSE_FAILURE_COVERAGE;

  const found: Finding[] = errors.map((e) => ({
    rule_id: 'parse.error',
    severity: 'medium',
    type: 'parse_error',
    line_number: view.line(e),
    description: `Syntax error: ${nonWhitespace(view.text(e))} non-blank characters could not be parsed`,
  }));
  // MISSING nodes: walk only the subtrees that contain an error.
  let visited = 0;
  const visit = (n: Node): void => {
    for (const child of n.children) {
      if (!child || ++visited > MAX_VISITED) return;
      if (child.isMissing) {
        found.push({
          rule_id: 'parse.missing',
          severity: 'medium',
          type: 'parse_error',
          line_number: view.line(child),
          description: `Syntax error: missing ${JSON.stringify(child.type)}`,
        });
      } else if (child.hasError) visit(child);
    }
  };
  visit(root);
  found.sort((a, b) => a.line_number - b.line_number);
  const findings = found.slice(0, MAX_LISTED);
  if (found.length > MAX_LISTED) {
    findings.push({
      rule_id: 'parse.more',
      severity: 'medium',
      type: 'parse_error',
      line_number: found[MAX_LISTED].line_number,
      description: `Syntax error: ${found.length - MAX_LISTED} further syntax errors not listed`,
    });
  }
  const errorLines = errors.map((e) => ({ first: e.startPosition.row + 1, last: e.endPosition.row + 1 }));
  return { hasError: true, errorCoverage, failed, findings, errorLines };
}
