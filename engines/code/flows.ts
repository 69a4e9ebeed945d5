// Where a sink's input comes from: a light, text-level backward search from a sink's statement
// to the assignments that feed it, ending at a line that reads request or program input
// (`code = request.POST.get('code')` … `eval(code)` three lines later).
//
// It is an annotation and a narrowing, never a proof and never a reason to admit: it adds the
// source lines to a finding that is already reported (so the flow is shown with both lines),
// and it lets a few rows fire only for input-derived arguments (a template compiled from
// request data). Bounded: at most LOOKBACK lines above the sink, DEPTH assignment hops, and
// every regex is a fixed alternation or an escaped identifier (linear time).
import type { Family } from './languages.js';

/** Request or program input, per language family (fixed alternations, no nested quantifiers). */
export const INPUT_SOURCES: Readonly<Record<Family, RegExp>> = {
  javascript:
    /\breq\s*(?:\.\s*[A-Za-z_$]|\[)|\brequest\s*\.\s*(?:query|body|params|cookies|signedCookies|headers|url|originalUrl|path|files?|param|get)\b|\bprocess\.argv\b|\blocation\.(?:hash|search|href)\b|\bdocument\.(?:URL|cookie|location|referrer)\b|\bctx\.(?:query|request|params)\b|\bevent\.(?:body|queryStringParameters|pathParameters)\b/,
  python:
    /\brequest\.(?:GET|POST|REQUEST|args|form|values|json|data|cookies|files|headers|get_json|query_params|body|stream)\b|\bsys\.argv\b|\binput\s*\(|\bos\.environ\b|\bos\.getenv\s*\(/,
  php: /\$_(?:GET|POST|REQUEST|COOKIE|FILES|SERVER|ENV)\b|php:\/\/input|\$HTTP_[A-Z]+_VARS\b|\$argv\b/,
  ruby: /\bparams\b|\brequest\.(?:params|body|query_string|env|raw_post|headers)\b|\bcookies\b|\bARGV\b|\bgets\b|\bENV\s*\[/,
  java: /\.getParameter(?:Values|Map|Names)?\s*\(|\.getHeader(?:s)?\s*\(|\.getQueryString\s*\(|\.getCookies\s*\(|\.getInputStream\s*\(|\.getReader\s*\(|@RequestParam\b|@PathVariable\b|@RequestBody\b|\bargs\s*\[|\bSystem\.getenv\s*\(/,
  go: /\.URL\.Query\(\)|\.URL\.(?:Path|RawQuery)\b|\.(?:Post)?FormValue\s*\(|\.(?:Post)?Form\b|\bos\.Args\b|\bos\.Getenv\s*\(|\.Body\b|\bflag\.(?:Arg|Args|String)\b/,
  bash: /\$\{?[1-9@*]|\bread\s+-?\w/,
};

const LOOKBACK = 80;
const DEPTH = 3;
const MAX_STATEMENT_LINES = 15;
const MAX_NAMES = 24;
const IDENT = /[A-Za-z_$][\w$]*/g;

/** A line that opens a function (its body is where a sink's inputs are looked for). */
// (No two adjacent quantifiers can match the same text: linear on long runs of blanks.)
const FUNCTION_HEADER = /\b(?:function|def|func|fn|lambda|sub|proc)\b|=>|\bdo\s*(?:\|[^|\n]*\|\s*)?$/;
const indentOf = (line: string) => line.length - line.trimStart().length;

/**
 * The first line (0-based) of the search window above `sinkLine`: LOOKBACK lines, cut at the
 * nearest enclosing function header (a less indented line that opens a function), so one
 * handler's input does not count for the next handler's sink.
 */
function windowStart(lines: readonly string[], sinkLine: number): number {
  const floor = Math.max(0, sinkLine - 1 - LOOKBACK);
  let indent = indentOf(lines[sinkLine - 1] ?? '');
  for (let i = sinkLine - 2; i >= floor && indent > 0; i--) {
    const l = lines[i];
    if (l.trim() === '') continue;
    const d = indentOf(l);
    if (d < indent) {
      if (FUNCTION_HEADER.test(l)) return i;
      indent = d;
    }
  }
  return floor;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The lines of the statement that starts on `line` (0-based): until its brackets balance. */
function statementText(lines: readonly string[], line: number): string {
  let depth = 0;
  let template = false;
  let text = '';
  for (let i = line; i < lines.length && i < line + MAX_STATEMENT_LINES; i++) {
    const l = lines[i];
    text += `${l}\n`;
    for (const ch of l) {
      if (ch === '`')
        template = !template; // a template literal or raw string running on
      else if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth--;
    }
    if (depth <= 0 && !template) break;
  }
  return text;
}

function identifiers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(IDENT)) {
    out.add(m[0].replace(/^\$/, ''));
    if (out.size >= MAX_NAMES) break;
  }
  return [...out];
}

/**
 * 1-based lines above `sinkLine` where request or program input enters a value that reaches
 * the names used on the sink's statement (through at most DEPTH assignments). `names` defaults
 * to the identifiers of the sink's statement.
 */
export function inputSources(source: string, family: Family, sinkLine: number, names?: readonly string[]): number[] {
  const re = INPUT_SOURCES[family];
  const lines = source.split('\n');
  const found = new Set<number>();
  const seen = new Set<string>();
  let frontier = [...(names ?? identifiers(statementText(lines, sinkLine - 1)))];
  const floor = windowStart(lines, sinkLine);
  for (let depth = 0; depth < DEPTH && frontier.length > 0; depth++) {
    const next: string[] = [];
    for (const name of frontier) {
      if (seen.has(name) || name.length < 1) continue;
      seen.add(name);
      // `name =`, `name :=`, `$name =`, `name +=` (not `==`, `=>`, `=~`), as a whole identifier.
      const assign = new RegExp(`(?:^|[^\\w$.])\\$?${escape(name)}\\s*(?::=|\\+=|=(?![=>~]))`);
      for (let i = sinkLine - 2; i >= floor; i--) {
        const m = assign.exec(lines[i]);
        if (!m) continue;
        const rhs = statementText(lines, i).slice(m.index + m[0].length);
        if (re.test(rhs)) found.add(i + 1);
        else next.push(...identifiers(rhs));
      }
    }
    frontier = next.slice(0, MAX_NAMES * 4);
  }
  return [...found].sort((a, b) => a - b);
}

/** The `n` source lines nearest above the sink, in line order. */
export function nearestInputSources(source: string, family: Family, sinkLine: number, n: number): number[] {
  return inputSources(source, family, sinkLine)
    .filter((l) => l < sinkLine)
    .slice(-n);
}

/** The argument text reads input itself, or names a value fed by input above the call. */
export function fromInput(source: string, family: Family, line: number, argText: string): boolean {
  if (INPUT_SOURCES[family].test(argText)) return true;
  const names = identifiers(argText);
  return names.length > 0 && inputSources(source, family, line, names).length > 0;
}
