// Conditions a rule row can put on a matched call: each carries a `spec` string so the rule
// table can be hashed into the proof, and a test run against the call's lazy views.
import { RE2JS } from 're2js';
import type { CallSite } from './facts.js';
import type { Finding } from './findings.js';
import { DYNAMIC_SQL, isRef } from './scopes.js';

export interface MatchContext {
  /** Findings of the same pipeline run on a constant piece of code handed to an eval-like sink. */
  nested(code: string): readonly Finding[];
  /** Argument text read from request or program input, directly or through assignments above `line` (flows.ts). */
  fromInput?(line: number, argText: string): boolean;
  /** The enclosing function's parameter the argument text names, directly or through assignments above `line` (flows.ts). */
  fromParameters?(line: number, argText: string): string | null;
  /** The scanned source (as parsed: snippet wrappers keep line numbers). */
  source?: string;
}

/** true / false, or a string: a match whose detail is appended to the finding's description. */
export type PredicateResult = boolean | string;

export interface Predicate {
  readonly spec: string;
  test(site: CallSite, ctx: MatchContext): PredicateResult;
}

const pred = (spec: string, test: Predicate['test']): Predicate => ({ spec, test });

const PASSWORD_WORD = /^(?:pass|passwd|password|passwords|passphrase|pwd|pw|pword|credential|credentials)$/i;

/** An identifier that names a password: one of its snake_case / camelCase words is password-like (`user_password`, `pwHash`; not `compass`). */
export function isPasswordName(name: string): boolean {
  return name.split(/_+|(?<=[a-z0-9])(?=[A-Z])/).some((w) => PASSWORD_WORD.test(w));
}

/** Text that reads as a SQL statement (used on string literals and their templates). */
// Formerly one regular expression whose `select\s[\s\S]*\bfrom` branch backtracked over the
// rest of the text at every `select` (quadratic). Same language, linear: "select" then a later
// "from" is the first `select\s` followed anywhere by `\bfrom` (docs/isolation.md).
const SQL_WORDS =
  /\b(?:insert\s+into|update\s+\S+\s+set|delete\s+from|drop\s+(?:table|database)|create\s+table|alter\s+table|truncate\s|replace\s+into|union\s+select|where\s)/i;
const SELECT_WORD = /\bselect\s/i;
export const SQL_TEXT = {
  test(text: string): boolean {
    if (SQL_WORDS.test(text)) return true;
    const m = SELECT_WORD.exec(text);
    if (m === null) return false;
    const from = /\bfrom/gi; // \b looks at the character before lastIndex too
    from.lastIndex = m.index + m[0].length;
    return from.exec(text) !== null;
  },
};

function argAt(site: CallSite, i: number) {
  return i < 0 ? site.args[site.args.length + i] : site.args[i];
}

export const all = (...ps: Predicate[]): Predicate =>
  pred(`all(${ps.map((p) => p.spec).join(',')})`, (site, ctx) => {
    let detail: PredicateResult = true;
    for (const p of ps) {
      const r = p.test(site, ctx);
      if (r === false) return false;
      if (typeof r === 'string') detail = r;
    }
    return detail;
  });

/** The first predicate that matches (its detail), else false. */
export const any = (...ps: Predicate[]): Predicate =>
  pred(`any(${ps.map((p) => p.spec).join(',')})`, (site, ctx) => {
    for (const p of ps) {
      const r = p.test(site, ctx);
      if (r !== false) return r;
    }
    return false;
  });

export const not = (p: Predicate): Predicate => pred(`not(${p.spec})`, (site, ctx) => p.test(site, ctx) === false);

/** The argument exists and is not a constant string. */
export const nonConstantArg = (i: number): Predicate =>
  pred(`nonConstantArg(${i})`, (site) => {
    const a = argAt(site, i);
    return a !== undefined && a.constant() === null;
  });

/** Argument `i` is present (a setter call rather than a getter). */
export const hasArg = (i: number): Predicate => pred(`hasArg(${i})`, (site) => argAt(site, i) !== undefined);

/** The argument is a constant string or a string built at run time. */
export const stringArg = (i: number): Predicate =>
  pred(`stringArg(${i})`, (site) => {
    const a = argAt(site, i);
    return a !== undefined && (a.constant() !== null || a.dynamicString());
  });

function criticalOf(found: readonly Finding[]): Finding | undefined {
  return found.find((f) => f.severity === 'critical');
}

/**
 * Code handed to an eval-like sink: non-constant code always matches; constant code is scanned
 * itself and matches when it contains a critical finding.
 */
export const evaluatesUnsafeCode = (i: number): Predicate =>
  pred(`evaluatesUnsafeCode(${i})`, (site, ctx) => {
    const a = argAt(site, i);
    if (!a || a.inertLiteral?.()) return false;
    // One constant, or every constant the paths to the call may give it (Python), each scanned.
    const codes = a.constant() !== null ? [a.constant()!] : (a.constants?.() ?? null);
    if (codes === null || codes.length === 0) return true;
    for (const code of codes) {
      const inner = criticalOf(ctx.nested(code));
      if (inner) return `; the constant code it runs contains: ${inner.description}`;
    }
    return false;
  });

/** Constant code handed to an eval-like sink that scans clean of critical findings. */
export const evaluatesConstantCode = (i: number): Predicate =>
  pred(`evaluatesConstantCode(${i})`, (site, ctx) => {
    const a = argAt(site, i);
    if (!a) return false;
    const codes = a.constant() !== null ? [a.constant()!] : (a.constants?.() ?? null);
    return codes !== null && codes.length > 0 && codes.every((code) => criticalOf(ctx.nested(code)) === undefined);
  });

/** Some argument (or the statement around the call) names a password. */
export const passwordContext = (): Predicate =>
  pred('passwordContext', (site) => {
    const named = (ns: string[]) => ns.some(isPasswordName);
    return site.args.some((a) => named(a.names())) || named(site.contextNames());
  });

/** Some argument names a password. */
export const passwordArg = (): Predicate =>
  pred('passwordArg', (site) => site.args.some((a) => a.names().some(isPasswordName)));

/** The argument is a constant whose lower-cased value is one of `values`. */
export const constantArgIn = (i: number, values: readonly string[]): Predicate =>
  pred(`constantArgIn(${i},${values.join('|')})`, (site) => {
    const c = argAt(site, i)?.constant();
    return c != null && values.includes(c.toLowerCase());
  });

/** The argument is a constant matching `re`. */
export const constantArgMatches = (i: number, re: RegExp): Predicate =>
  pred(`constantArgMatches(${i},${re.source})`, (site) => {
    const c = argAt(site, i)?.constant();
    return c != null && re.test(c);
  });

/**
 * Session 16: the argument is a constant payload (every constant the paths to the call may give
 * it) that `inert` proves runs nothing when deserialized, and the source does not match
 * `configured` (a snippet that changes how the deserializer reads is not judged). `name` names
 * the check in the rule table's hash (analyzers/payload-*.ts).
 */
export const inertConstantPayload = (
  i: number,
  name: string,
  inert: (payload: string) => boolean,
  configured?: RegExp,
  /** The payload must be the last positional argument, and none of these keywords may be given. */
  only?: readonly string[],
): Predicate =>
  pred(`inertConstantPayload(${i},${name},${configured?.source ?? ''},${only?.join('|') ?? ''})`, (site, ctx) => {
    const a = argAt(site, i);
    if (!a || (configured && (ctx.source === undefined || configured.test(ctx.source)))) return false;
    if (only && (site.args.length !== i + 1 || only.some((k) => site.kwarg(k) !== undefined))) return false;
    const payloads = a.constant() !== null ? [a.constant()!] : (a.constants?.() ?? null);
    return payloads !== null && payloads.length > 0 && payloads.every(inert);
  });

/** Session 16: the argument's source text is a literal payload that `inert` proves runs nothing when deserialized (analyzers/payload-*.ts). */
export const inertLiteralPayload = (i: number, name: string, inert: (argText: string) => boolean): Predicate =>
  pred(`inertLiteralPayload(${i},${name})`, (site) => {
    const a = argAt(site, i);
    return a !== undefined && inert(a.text);
  });

/** Session 16 (second wave): the scanned source has no match of `re` (a fixed pattern; an unknown source counts as lacking it: the row fires). */
export const sourceLacks = (re: RegExp): Predicate =>
  pred(`sourceLacks(${re.source})`, (_site, ctx) => ctx.source === undefined || !re.test(ctx.source));

/**
 * Session 16 (second wave): the argument is an exact standard decoding of a constant
 * (`base64.urlsafe_b64decode(bar)`, analyzers/payload-decode.ts) whose every result either raises
 * before the deserializer is called or is bytes that `inert` proves run nothing.
 */
export const inertDecodedPayload = (i: number, name: string, inert: (bytes: Uint8Array) => boolean): Predicate =>
  pred(`inertDecodedPayload(${i},${name})`, (site) => {
    const d = argAt(site, i)?.decoded?.();
    return d != null && d.length > 0 && d.every((x) => x === 'raises' || inert(x));
  });

/**
 * A SQL statement built at run time: one of the arguments at `indices` (all when omitted) is a
 * dynamically built string; with `keyword`, its text must also read as SQL.
 */
export const dynamicSql = (indices?: readonly number[], keyword = true): Predicate =>
  pred(`dynamicSql(${indices?.join('|') ?? '*'},${keyword})`, (site) => {
    const picked = indices ? indices.map((i) => argAt(site, i)).filter((a) => a !== undefined) : site.args;
    return picked.some(
      (a) => a.dynamicString() && (!keyword || SQL_TEXT.test(a.text) || a.values().includes(DYNAMIC_SQL)),
    );
  });

/** A keyword argument with a false-y literal value (`verify=False`). */
export const kwargFalse = (name: string): Predicate =>
  pred(`kwargFalse(${name})`, (site) => site.kwarg(name)?.isFalse() === true);

/** The keyword argument is absent or not the literal True. */
export const kwargNotTrue = (name: string): Predicate =>
  pred(`kwargNotTrue(${name})`, (site) => {
    const a = site.kwarg(name);
    return a === undefined || !/^(?:True|true|1)$/.test(a.text);
  });

/** The keyword argument is given, whatever its value (`verify=check`). */
export const kwargPresent = (name: string): Predicate =>
  pred(`kwargPresent(${name})`, (site) => site.kwarg(name) !== undefined);

export const kwargTrue = (name: string): Predicate =>
  pred(`kwargTrue(${name})`, (site) => {
    const a = site.kwarg(name);
    return a !== undefined && /^(?:True|true|1)$/.test(a.text);
  });

/** A keyword argument whose constant value (lower-cased) is one of `values`. */
export const kwargConstantIn = (name: string, values: readonly string[]): Predicate =>
  pred(`kwargConstantIn(${name},${values.join('|')})`, (site) => {
    const c = site.kwarg(name)?.constant();
    return c != null && values.includes(c.toLowerCase());
  });

const SAFE_YAML_LOADERS = new Set(['SafeLoader', 'CSafeLoader', 'BaseLoader', 'CBaseLoader']);

/** yaml.load without a safe Loader (keyword `Loader=` or second positional argument). */
export const yamlLoaderUnsafe = (): Predicate =>
  pred('yamlLoaderUnsafe', (site) => {
    const loader = site.kwarg('Loader') ?? site.args[1];
    if (!loader) return true;
    const last = (s: string) => s.split(/[.#]/).pop() ?? s;
    const refs = loader.values().filter(isRef);
    const candidates = refs.length > 0 ? refs.map(last) : [last(loader.text.trim())];
    return !candidates.every((c) => SAFE_YAML_LOADERS.has(c));
  });

/** An integer file mode argument that makes the file writable by everyone (o+w). */
export const worldWritableMode = (i: number): Predicate =>
  pred(`worldWritableMode(${i})`, (site) => {
    const n = argAt(site, i)?.number();
    return n != null && (n & 0o002) !== 0;
  });

/**
 * Argument `i` (negative: from the end) carries request or program input, read on the call's
 * line or assigned above it (flows.ts; a narrowing for sinks that are dangerous only with
 * attacker-chosen text, such as a template compiled from request data).
 */
export const inputArg = (i: number): Predicate =>
  pred(`inputArg(${i})`, (site, ctx) => {
    const a = argAt(site, i);
    return a !== undefined && a.constant() === null && ctx.fromInput?.(site.line, a.text) === true
      ? '; the argument carries request or program input'
      : false;
  });

const indentOf = (line: string): number => /^[ \t]*/.exec(line)![0].length;
/** Lines of a method read around an Oj call, at most (more: fail closed). */
const HASH_MODE_WINDOW = 200;
let splitCache: { source: string; lines: string[] } | null = null;
/** The source's lines, split once per scan (a predicate runs once per matching call). */
const linesOf = (source: string): string[] => {
  if (splitCache?.source !== source) splitCache = { source, lines: source.split('\n') };
  return splitCache.lines;
};

/**
 * Ruby: argument `i` is a local options hash whose `mode:` is certainly one of `safe` where the
 * call runs (CodeQL's `more_options = { … }; more_options[:mode] = :json; Oj.load(d, more_options)`).
 * Read from the text of the enclosing `def`, and only in the one shape that is certain: the call
 * sits at the method body's top level (no line between the `def` and the call is indented less,
 * so no loop or branch encloses it), and every line of the method that names the variable is, at
 * that same level and before the call, either `name = { … }` (a one-line hash literal) or
 * `name[:mode] = :value` (no trailing modifier). The last mode set before the call must be safe; a
 * literal without `mode` resets it to the default. Any other mention (an alias, `merge!`, a
 * block, a use after the call, a string) or a `binding` / `eval` / `send` before the call (they
 * can set a local without naming it) fails closed: the default mode is assumed.
 */
export const rubyLocalHashMode = (i: number, safe: readonly string[]): Predicate =>
  pred(`rubyLocalHashMode(${i},${safe.join('|')})`, (site, ctx) => {
    const a = argAt(site, i);
    const name = a?.text.trim() ?? '';
    if (!/^[a-z_][A-Za-z0-9_]*$/.test(name) || ctx.source === undefined) return false;
    const lines = linesOf(ctx.source);
    const at = site.line - 1;
    const callIndent = indentOf(lines[at] ?? '');
    // Bounded (fail closed past it), so many calls in one long method stay linear overall.
    const floor = Math.max(0, at - HASH_MODE_WINDOW);
    let def = at - 1;
    while (def >= floor && !(/^\s*def\b/.test(lines[def]) && indentOf(lines[def]) < callIndent)) def--;
    if (def < floor) return false;
    const defIndent = indentOf(lines[def]);
    // Built from an identifier (checked above), compiled by RE2: linear in the line's length.
    const mentions = RE2JS.compile(`(?:^|[^A-Za-z0-9_@$:])${name}(?:[^A-Za-z0-9_?!]|$)|:${name}\\b`);
    const literal = RE2JS.compile(`^[ \\t]*${name}[ \\t]*=[ \\t]*\\{([^{}#'"]*)\\}[ \\t]*$`);
    const write = RE2JS.compile(`^[ \\t]*${name}\\[:mode\\][ \\t]*=[ \\t]*:([a-z_]+)[ \\t]*$`);
    const modeIn = RE2JS.compile('(?:\\bmode:|:mode\\s*=>)\\s*:([a-z_]+)');
    const reflective = RE2JS.compile(
      '\\b(?:binding|local_variable_set|eval|instance_eval|send|__send__|public_send)\\b',
    );
    const group = (re: RE2JS, text: string): string | null => {
      const m = re.matcher(text);
      return m.find() ? (m.group(1) ?? '') : null;
    };
    let mode: string | null = null;
    for (let k = def + 1; k < lines.length; k++) {
      if (k > def + 2 * HASH_MODE_WINDOW) return false;
      const line = lines[k];
      if (line.trim() === '') continue;
      const indent = indentOf(line);
      if (indent <= defIndent) break; // the method's `end` (or the next definition)
      if (k === at) continue;
      if (k < at && indent < callIndent) return false; // a block or branch encloses the call
      // A Binding (or code run by name) can set the local without naming it on a line.
      if (k < at && reflective.matcher(line).find()) return false;
      if (!mentions.matcher(line).find()) continue;
      if (k > at || indent !== callIndent) return false;
      const lit = group(literal, line);
      const w = group(write, line);
      if (lit !== null) mode = group(modeIn, lit);
      else if (w !== null) mode = w;
      else return false;
    }
    return mode !== null && safe.includes(mode);
  });

/** The text of argument `i` matches `re`. */
export const argTextMatches = (i: number, re: RegExp): Predicate =>
  pred(`argTextMatches(${i},${re.source})`, (site) => {
    const a = argAt(site, i);
    return a !== undefined && re.test(a.text);
  });

/** One of the argument's candidate values is one of `values` (exact references). */
export const argValueMatches = (i: number, values: readonly string[]): Predicate =>
  pred(`argValueMatches(${i},${values.join('|')})`, (site) => {
    const a = argAt(site, i);
    return a !== undefined && a.values().some((v) => values.includes(v));
  });

/** Ruby methods that run code or processes, load code or reach any constant when called by name. */
const RUBY_DANGEROUS_METHODS = [
  'eval',
  'instance_eval',
  'class_eval',
  'module_eval',
  'instance_exec',
  'class_exec',
  'module_exec',
  'system',
  'exec',
  'spawn',
  'fork',
  'syscall',
  'open',
  '`',
  'send',
  'public_send',
  '__send__',
  'method',
  'public_method',
  'define_method',
  'const_get',
  'const_set',
  'require',
  'require_relative',
  'load',
  'autoload',
  'binding',
  'trap',
  'at_exit',
  'set_trace_func',
  'instance_variable_set',
  'class_variable_set',
  'remove_method',
  'undef_method',
  'alias_method',
];

/**
 * A method name computed at run time (`obj.send(name, …)`): it can name any method, private
 * Kernel ones included. Constrained only when it starts with a constant identifier prefix that
 * none of RUBY_DANGEROUS_METHODS starts with (`"prefix_#{x}"`, `'get_' + x`). The regex is anchored
 * with no nested quantifiers (linear).
 */
export const dynamicMethodName = (i: number): Predicate =>
  pred(`dynamicMethodName(${i})`, (site) => {
    const a = argAt(site, i);
    if (!a || a.constant() !== null) return false;
    const m = /^(?::?"|')([A-Za-z_]\w*)(?:#\{|["']\s*\+)/.exec(a.text);
    return !m || RUBY_DANGEROUS_METHODS.some((d) => d.startsWith(m[1]));
  });

/** One of the argument's candidate values starts with one of `prefixes` (a type such as `T#` or a call chain `T.m()`). */
export const argValueStartsWith = (i: number, prefixes: readonly string[]): Predicate =>
  pred(`argValueStartsWith(${i},${prefixes.join('|')})`, (site) => {
    const a = argAt(site, i);
    return a !== undefined && a.values().some((v) => prefixes.some((p) => v.startsWith(p)));
  });

/** Every candidate value of argument `i` is one of `values` (and there is at least one). */
export const argValuesAllIn = (i: number, values: readonly string[]): Predicate =>
  pred(`argValuesAllIn(${i},${values.join('|')})`, (site) => {
    const vs = argAt(site, i)?.values() ?? [];
    return vs.length > 0 && vs.every((v) => values.includes(v));
  });

/** Argument `i` is a false-y literal. */
export const argFalse = (i: number): Predicate => pred(`argFalse(${i})`, (site) => argAt(site, i)?.isFalse() === true);
