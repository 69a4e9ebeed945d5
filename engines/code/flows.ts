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
  csharp:
    /\bRequest\s*\.\s*(?:Query|QueryString|Form|Params|Cookies|Headers|Body|RouteValues|Files|InputStream|ServerVariables)\b|\[\s*From(?:Query|Body|Form|Route|Header)\b|\bConsole\.ReadLine\s*\(|\bargs\s*\[|\bEnvironment\.GetEnvironmentVariable\s*\(|TextBox\w*\s*\.\s*Text\b/,
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
    // `) {` / `):` closing a parameter list written over several lines: its header is above.
    if (d < indent && /^\s*\)/.test(l)) continue;
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

/** Caller hops followed from a parameter to the calls of its function in the same file. */
const CALLER_HOPS = 8;
/** Calls of one function read per hop, at most. */
const MAX_CALLERS = 32;

/** One top-level search: the file's lines once, and each function parameter followed once. */
interface Walk {
  lines: readonly string[];
  /** `function\tparameter` pairs already followed to their callers. */
  followed: Set<string>;
  hops: number;
}
/** `function name(params)`, `def name(params)`, `func name(params)` on one line (no nested quantifiers). */
const NAMED_HEADER = /\b(?:function|def|func)\s+(?:&\s*)?([A-Za-z_$][\w$]*)\s*\(([^()]*)\)/;

/** `name: value` (PHP 8, Ruby), `name=value` (Python), `...$x`, `*args`, `**kw`. */
const NAMED_OR_SPREAD = /^\s*(?:\$?[A-Za-z_]\w*\s*(?::(?!:)|=(?![=>]))|\.\.\.|\*)/;
/** Lines a function header's parameter list may run over. */
const HEADER_LINES = 12;

/** The parameter names of a named function header starting on `lines[at]` (`$` dropped), or null. */
function headerParams(lines: readonly string[], at: number): { name: string; params: string[] } | null {
  let line = lines[at] ?? '';
  // A parameter list over several lines: joined up to its `)` (at most HEADER_LINES lines).
  for (let i = at + 1; i < at + HEADER_LINES && i < lines.length && !NAMED_HEADER.test(line); i++) {
    if (!/\b(?:function|def|func)\b/.test(line)) break;
    line += ` ${lines[i]}`;
  }
  const m = NAMED_HEADER.exec(line);
  if (!m) return null;
  const params = m[2].split(',').map((p) => {
    const dollar = /\$([A-Za-z_]\w*)/.exec(p);
    if (dollar) return dollar[1];
    const ident = /[A-Za-z_][\w]*/.exec(p.replace(/^[\s*&.]+/, ''));
    return ident ? ident[0] : '';
  });
  return { name: m[1], params };
}

/** The top-level comma-separated arguments of the call whose `(` is at `open` (null when unbalanced). */
function callArgs(source: string, open: number): string[] | null {
  const out: string[] = [];
  let depth = 0;
  let start = open + 1;
  let quote = '';
  for (let i = open; i < source.length && i < open + 4000; i++) {
    const ch = source[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '`') quote = ch;
    else if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') {
      depth--;
      if (depth === 0) {
        out.push(source.slice(start, i));
        return out;
      }
    } else if (ch === ',' && depth === 1) {
      out.push(source.slice(start, i));
      start = i + 1;
    }
  }
  return null;
}

/** `name(` anywhere in the text (an identifier at its start, not inside another). */
const CALL_OPEN = /(?<![\w$])([A-Za-z_$][\w$]*)\s*\(/g;
let callCache: { source: string; index: Map<string, Array<{ open: number; line: number; dotted: boolean }>> } | null =
  null;

/** Every `name(` of the source by name, with its `(` offset and line: built once per source (linear). */
function callIndex(source: string): Map<string, Array<{ open: number; line: number; dotted: boolean }>> {
  if (callCache?.source === source) return callCache.index;
  const index = new Map<string, Array<{ open: number; line: number; dotted: boolean }>>();
  let line = 1;
  let counted = 0;
  for (const m of source.matchAll(CALL_OPEN)) {
    const open = m.index + m[0].length - 1;
    for (; counted < open; counted++) if (source.charCodeAt(counted) === 10) line++;
    const list = index.get(m[1]);
    const entry = { open, line, dotted: source[m.index - 1] === '.' };
    if (list) list.push(entry);
    else index.set(m[1], [entry]);
  }
  callCache = { source, index };
  return index;
}

/**
 * Simple inter-procedural flow within one file: the sink sits in a named function and reads its
 * parameter `param`; every call of that function in the file (by name, any receiver) whose
 * argument at that position carries input makes the parameter an input. Returns the input
 * lines found at those calls (and the call lines). Bounded by CALLER_HOPS and MAX_CALLERS; a
 * named argument or a spread is read by position only (an over-approximation: more flows,
 * never fewer).
 */
function callerSources(
  source: string,
  family: Family,
  header: { name: string; params: string[] },
  headerLine: number,
  param: string,
  walk: Walk,
): number[] {
  const at = header.params.indexOf(param);
  const key = `${header.name}\t${param}`;
  if (at < 0 || walk.hops <= 0 || walk.followed.has(key)) return [];
  walk.followed.add(key);
  const calls = callIndex(source).get(header.name) ?? [];
  const found: number[] = [];
  let seen = 0;
  for (const { open, line, dotted } of calls) {
    if (line === headerLine) continue; // the definition itself
    if (++seen > MAX_CALLERS) break;
    // A method called on a receiver does not pass Python's `self`/`cls` explicitly.
    const shift = dotted && /^(?:self|cls)$/.test(header.params[0]) ? 1 : 0;
    const args = callArgs(source, open);
    if (!args) continue;
    // A named argument or a spread moves arguments off their positions: every argument is read.
    const text = args.some((a) => NAMED_OR_SPREAD.test(a)) ? args.join(',') : args[at - shift];
    if (text === undefined) continue;
    if (INPUT_SOURCES[family].test(text)) {
      found.push(line);
      continue;
    }
    const names = identifiers(text);
    if (names.length === 0) continue;
    walk.hops--;
    const lines = inputSourcesFrom(source, family, line, names, walk);
    walk.hops++;
    if (lines.length > 0) found.push(line, ...lines);
  }
  return found;
}

/**
 * 1-based lines above `sinkLine` where request or program input enters a value that reaches
 * the names used on the sink's statement (through at most DEPTH assignments). `names` defaults
 * to the identifiers of the sink's statement. When the sink sits in a named function and a name
 * is one of its parameters, the calls of that function in the file are followed (callerSources;
 * their lines may lie below the sink).
 */
export function inputSources(source: string, family: Family, sinkLine: number, names?: readonly string[]): number[] {
  return inputSourcesFrom(source, family, sinkLine, names, {
    lines: source.split('\n'),
    followed: new Set(),
    hops: CALLER_HOPS,
  });
}

function inputSourcesFrom(
  source: string,
  family: Family,
  sinkLine: number,
  names: readonly string[] | undefined,
  walk: Walk,
): number[] {
  const re = INPUT_SOURCES[family];
  const lines = walk.lines;
  const found = new Set<number>();
  const seen = new Set<string>();
  let frontier = [...(names ?? identifiers(statementText(lines, sinkLine - 1)))];
  const floor = windowStart(lines, sinkLine);
  const header = walk.hops > 0 && floor < sinkLine - 1 ? headerParams(lines, floor) : null;
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
      if (header?.params.includes(name))
        for (const l of callerSources(source, family, header, floor + 1, name, walk)) found.add(l);
    }
    frontier = next.slice(0, MAX_NAMES * 4);
  }
  return [...found].sort((a, b) => a - b);
}

/**
 * The `n` source lines nearest above the sink, in line order, then up to `n` lines below it
 * (input passed by a later call of the sink's function, callerSources).
 */
export function nearestInputSources(source: string, family: Family, sinkLine: number, n: number): number[] {
  const all = inputSources(source, family, sinkLine);
  return [...all.filter((l) => l < sinkLine).slice(-n), ...all.filter((l) => l > sinkLine).slice(0, n)];
}

/** The argument text reads input itself, or names a value fed by input above the call. */
export function fromInput(source: string, family: Family, line: number, argText: string): boolean {
  if (INPUT_SOURCES[family].test(argText)) return true;
  const names = identifiers(argText);
  return names.length > 0 && inputSources(source, family, line, names).length > 0;
}
