// Pieces shared by the language analyzers: scopes with lazily evaluated bindings, the search
// for the few names some rules look for, literal helpers.
import type { Node } from 'web-tree-sitter';
import type { ExprOps, Fact, NameFact } from '../facts.js';
import { SQL_TEXT } from '../predicates.js';
import { RULES } from '../rules.js';
import {
  bindingValues,
  DYNAMIC_SQL,
  DYNAMIC_STRING,
  type Scope,
  ScopeTree,
  type ScopeRange,
  type Value,
  isConst,
} from '../scopes.js';
import type { SyntaxView } from '../syntax.js';

/** What the active rules of one scan look for. */
export interface WantedNames {
  attribute: ReadonlySet<string>;
  identifier: ReadonlySet<string>;
  property_write: ReadonlySet<string>;
  syntax: ReadonlySet<string>;
  /** Name patterns of the call rules active for this scan. */
  callPatterns: readonly string[];
}

/** Words of call-rule patterns, for deciding cheaply which calls can possibly match a rule. */
export interface PatternWords {
  /** First segments (`os`, `subprocess`, `os/exec`); for patterns under `implicitRoot`, also the second. */
  roots: Set<string>;
  /** Last segments of patterns that start with a wildcard (`execute` of `*.execute`). */
  lasts: Set<string>;
  /** Every segment. */
  all: Set<string>;
}

export function patternWords(patterns: readonly string[], implicitRoot?: string): PatternWords {
  const roots = new Set<string>();
  const lasts = new Set<string>();
  const all = new Set<string>();
  for (const p of patterns) {
    const segs = p
      .split(/\([^)]*\)|[.#]/)
      .map((s) => s.replace(/\*/g, ''))
      .filter((s) => s.length > 0);
    for (const s of segs) all.add(s);
    if (p.startsWith('*')) {
      if (segs.length > 0) lasts.add(segs[segs.length - 1]);
    } else if (segs.length > 0) {
      roots.add(segs[0]);
      if (segs[0] === implicitRoot && segs[1]) roots.add(segs[1]);
    }
  }
  return { roots, lasts, all };
}

export interface Analyzer {
  analyze(view: SyntaxView, wanted: WantedNames): Fact[];
}

const CALLEE_PREFIX = /[A-Za-z_$@][\w$]*(?:\s*(?:\.|::|->|\?\.)\s*[A-Za-z_$][\w$]*)*/y;

/** The dotted name a call's text starts with (`os.path.join` in `os.path.join(a)`), or null. */
export function calleePrefix(source: string, start: number): string[] | null {
  CALLEE_PREFIX.lastIndex = start;
  const m = CALLEE_PREFIX.exec(source);
  return m ? m[0].split(/\s*(?:\.|::|->|\?\.)\s*/) : null;
}

const PLAIN_CALLEE = /([A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*)\s*\(/y;
/** Ruby method names may end in `?` or `!`. */
const PLAIN_CALLEE_RUBY = /((?:@{0,2}|\$)[A-Za-z_][\w]*(?:\s*\.\s*[A-Za-z_]\w*[?!]?)*)\(/y;

/**
 * When a call's text is a plain dotted name directly followed by `(` (`os.path.join(`), its
 * parts and the offset of the `(`, so the callee can be resolved without touching the tree.
 */
export function plainCallee(source: string, start: number, ruby = false): { parts: string[]; paren: number } | null {
  const re = ruby ? PLAIN_CALLEE_RUBY : PLAIN_CALLEE;
  re.lastIndex = start;
  const m = re.exec(source);
  return m ? { parts: m[1].split(/\s*\.\s*/), paren: start + m[0].length - 1 } : null;
}

/**
 * Start offsets shared by several call nodes (`f(x)(y)`, `a.b(x).c()`): there the text prefix
 * is the callee of the innermost call only, so those calls are resolved on the tree.
 */
export function sharedStarts(calls: readonly Node[]): Set<number> {
  const seen = new Set<number>();
  const shared = new Set<number>();
  for (const c of calls) {
    if (seen.has(c.startIndex)) shared.add(c.startIndex);
    else seen.add(c.startIndex);
  }
  return shared;
}

const WORD = /[A-Za-z_$@][\w$]*/y;

/**
 * Identifier words of a definition header, from `start` up to the first `stop` at bracket
 * depth 0 (or `max` characters): a superset of the parameter names, read from the text so
 * parameters can be filed by name without touching the tree. Quoted strings are skipped.
 */
export function headerWords(source: string, start: number, stop: RegExp, max = 2000): string[] {
  const words: string[] = [];
  let depth = 0;
  const end = Math.min(source.length, start + max);
  for (let i = start; i < end; i++) {
    const ch = source[i];
    if (ch === '"' || ch === "'" || ch === '`') {
      const close = source.indexOf(ch, i + 1);
      if (close < 0) break;
      i = close;
      continue;
    }
    if (ch === '(' || ch === '[' || (ch === '{' && depth > 0)) depth++;
    else if (ch === ')' || ch === ']' || (ch === '}' && depth > 0)) depth--;
    if (depth <= 0) {
      stop.lastIndex = i;
      if (stop.test(source)) break;
    }
    if (/[A-Za-z_$@]/.test(ch)) {
      WORD.lastIndex = i;
      const m = WORD.exec(source);
      if (m) {
        words.push(m[0]);
        i += m[0].length - 1;
      }
    }
  }
  return words;
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Offsets of whole-word occurrences of any of `names` in the source (candidates to verify on the tree). */
export function occurrences(source: string, names: Iterable<string>): { index: number; name: string }[] {
  const list = [...names];
  if (list.length === 0) return [];
  const re = new RegExp(`(?<![A-Za-z0-9_$])(?:${list.map(escapeRegExp).join('|')})(?![A-Za-z0-9_$])`, 'g');
  const out: { index: number; name: string }[] = [];
  for (let m = re.exec(source); m; m = re.exec(source)) out.push({ index: m.index, name: m[0] });
  return out;
}

/**
 * Callees whose results rule patterns tell apart by the first constant argument
 * (`hashlib.new(md5).update`, `crypto.createHash(md5).update`); any other call result is `f()`.
 */
export const SUFFIX_CALLEES: ReadonlySet<string> = new Set(
  RULES.flatMap((r) => (r.match.on === 'call' ? r.match.names : [])).flatMap((name) =>
    [...name.matchAll(/\(([^()*]+)\)/g)].map((m) => name.slice(0, m.index)),
  ),
);

/** The value of a call result: `callee()`, or `callee(arg)` for SUFFIX_CALLEES (argument read only then). */
export function resultName(callee: string, firstConstant: () => string | null): string {
  if (!SUFFIX_CALLEES.has(callee)) return `${callee}()`;
  const first = firstConstant();
  return `${callee}(${first !== null && /^[\w.-]{1,40}$/.test(first) ? first.toLowerCase() : ''})`;
}

/** The value of an integer literal in any of the usual notations (0o17, 017, 0x1f, 0b1, 1_000). */
export function parseIntLiteral(text: string): number | null {
  const t = text.replace(/_/g, '').replace(/[lLuU]+$/, '');
  let m: RegExpMatchArray | null;
  if ((m = /^0[xX]([0-9a-fA-F]+)$/.exec(t))) return parseInt(m[1], 16);
  if ((m = /^0[oO]([0-7]+)$/.exec(t))) return parseInt(m[1], 8);
  if ((m = /^0[bB]([01]+)$/.exec(t))) return parseInt(m[1], 2);
  if ((m = /^0([0-7]+)$/.exec(t))) return parseInt(m[1], 8);
  if (/^\d+$/.test(t)) return parseInt(t, 10);
  return null;
}

export const FALSE_LITERALS = new Set(['False', 'false', '0', 'nil', 'null', 'NULL', 'FALSE']);

/** The marker value for a string built at run time, according to its text. */
export function dynamicMarker(text: string): Value {
  return SQL_TEXT.test(text) ? DYNAMIC_SQL : DYNAMIC_STRING;
}

export function isDynamicMarker(v: Value): boolean {
  return v === DYNAMIC_SQL || v === DYNAMIC_STRING;
}

/** A binary expression's operator and operands (tree-sitter's `operator`, `left` and `right` fields), or null when one is missing. */
export function binaryParts(v: SyntaxView, node: Node): { op: string; left: Node; right: Node } | null {
  const op = v.field(node, 'operator');
  const left = v.field(node, 'left');
  const right = v.field(node, 'right');
  return op && left && right ? { op: v.type(op), left, right } : null;
}

/** The single constant a set of values reduces to, or null. */
export function singleConstant(values: readonly Value[]): string | null {
  if (values.length === 0) return null;
  const first = values[0];
  if (!isConst(first) || values.some((v) => v !== first)) return null;
  return first.slice(1);
}

/**
 * Common state of one analysis: the scope tree and lazy name lookup. Subclasses provide the
 * language's expression evaluator (`evaluate`) and how a name that no scope binds resolves.
 */
/** Node types of the shared expression arms of one language (AnalysisBase.constant / dynamicString). */
export interface StringArms {
  /** Binary operation node type. */
  binary: string;
  /** Its concatenation operator (`+`; PHP `.`). */
  concat: string;
  /** A printf-style operator whose result is a string when its left operand is one (`%`). */
  format?: string;
  /** Parenthesised expression node type (its first named child is the expression). */
  paren?: string;
  /** false: the parenthesised arm serves constant() only. */
  parenDynamic?: boolean;
  /** Name node types whose bound values constant() reads. */
  names: readonly string[];
  /** Name node types dynamicString() reads (default: names). */
  dynamicNames?: readonly string[];
}

export abstract class AnalysisBase implements Pick<ExprOps, 'view'> {
  scopes!: ScopeTree;
  readonly facts: Fact[] = [];
  /**
   * Binding statements are only inspected when a name they may bind is looked up (most names
   * never are): simple ones are filed under the name they bind, read from the source text at
   * the statement start; the rest (tuple targets, parameters, loop variables) per scope.
   */
  protected readonly pendingByName = new Map<string, { scope: Scope; item: Node | number }[]>();
  protected readonly pendingByScope = new Map<Scope, Node[]>();
  private readonly doneScopes = new Set<Scope>();

  constructor(readonly view: SyntaxView) {}

  /** The node types of the expression arms every language shares (constant / dynamicString). */
  protected abstract readonly arms: StringArms;

  /** A language's own constant arms (literals, constant-folding calls): everything the shared arms do not cover. */
  protected abstract ownConstant(node: Node, scope: Scope): string | null;
  /** A language's own dynamic-string arms (interpolated literals, format calls). */
  protected abstract ownDynamicString(node: Node, scope: Scope): boolean;

  /** The expression a node stands for (languages that wrap arguments or parentheses override this). */
  protected unwrapExpr(node: Node): Node {
    return node;
  }

  /** Values bound to a name node (constant's name arm). */
  protected nameValues(node: Node, scope: Scope): Value[] {
    return this.lookupName(this.view.text(node), scope);
  }

  /** Values a name node may hold for dynamicString (some languages evaluate it fully). */
  protected dynamicNameValues(node: Node, scope: Scope): Value[] {
    return this.nameValues(node, scope);
  }

  /**
   * The constant string `node` always evaluates to, or null. The shared arms: a concatenation of
   * two constants, a parenthesised constant, a name bound to one constant; then the language's own.
   */
  constant(node: Node, scope: Scope): string | null {
    const v = this.view;
    const n = this.unwrapExpr(node);
    const t = v.type(n);
    const arms = this.arms;
    if (t === arms.binary) return this.concatConstant(n, scope, arms.concat);
    if (t === arms.paren) {
      const inner = v.args(n)[0];
      return inner ? this.constant(inner, scope) : null;
    }
    if (arms.names.includes(t)) return singleConstant(this.nameValues(n, scope));
    return this.ownConstant(n, scope);
  }

  /**
   * A string built at run time. The shared arms: a concatenation with a string operand (or a
   * format operator with a string on its left), a parenthesised one, a name bound to one; then
   * the language's own.
   */
  dynamicString(node: Node, scope: Scope): boolean {
    const v = this.view;
    const n = this.unwrapExpr(node);
    const t = v.type(n);
    const arms = this.arms;
    if (t === arms.binary) {
      const b = binaryParts(v, n);
      if (!b) return false;
      if (b.op === arms.concat) return this.stringy(b.left, scope) || this.stringy(b.right, scope);
      return arms.format !== undefined && b.op === arms.format && this.stringy(b.left, scope);
    }
    if (t === arms.paren && arms.parenDynamic !== false) {
      const inner = v.args(n)[0];
      return inner ? this.dynamicString(inner, scope) : false;
    }
    if ((arms.dynamicNames ?? arms.names).includes(t)) return this.dynamicNameValues(n, scope).some(isDynamicMarker);
    return this.ownDynamicString(n, scope);
  }

  /** A string value: a constant, or a string built at run time. */
  protected stringy(node: Node, scope: Scope): boolean {
    return this.constant(node, scope) !== null || this.dynamicString(node, scope);
  }

  /** A string concatenation (`concat`: `+`, PHP's `.`) folded to one constant when both operands are constants; else null. */
  protected concatConstant(node: Node, scope: Scope, concat = '+'): string | null {
    const b = binaryParts(this.view, node);
    if (!b || b.op !== concat) return null;
    const l = this.constant(b.left, scope);
    if (l === null) return null;
    const r = this.constant(b.right, scope);
    return r === null ? null : l + r;
  }

  /** Files a binding statement (or a source offset inside one, see binderAt) under a name it may bind. */
  protected pendName(name: string, n: Node | number): void {
    const entry = { scope: this.scopes.at(typeof n === 'number' ? n : n.startIndex), item: n };
    const list = this.pendingByName.get(name);
    if (list) list.push(entry);
    else this.pendingByName.set(name, [entry]);
  }

  /**
   * Names whose bindings may land outside the scope of the statement that makes them
   * (`self.x`, `this.x`, `@x`, constants): all their pending statements are inspected at once.
   */
  protected globalName(name: string): boolean {
    return /[.@]/.test(name) || /^[A-Z]/.test(name);
  }

  /** The binding statement around a source offset filed by pendName (analyzers that file offsets override this). */
  protected binderAt(_offset: number): Node | null {
    return null;
  }

  protected pendScope(scope: Scope, n: Node): void {
    const list = this.pendingByScope.get(scope);
    if (list) list.push(n);
    else this.pendingByScope.set(scope, [n]);
  }

  /** Records the bindings a pending statement makes. */
  protected abstract bindNode(n: Node): void;

  values(node: Node, scope: Scope): Value[] {
    return this.evaluate(node, scope);
  }

  number(node: Node): number | null {
    return parseIntLiteral(this.view.text(node));
  }

  isFalse(node: Node): boolean {
    return FALSE_LITERALS.has(this.view.text(node));
  }

  /** Whether a name has bindings anywhere in the file (pending or recorded). */
  protected boundSomewhere(name: string): boolean {
    return this.pendingByName.has(name) || this.knownNames.has(name);
  }

  /** Names bound eagerly (imports, definitions). */
  protected readonly knownNames = new Set<string>();

  protected buildScopes(ranges: readonly ScopeRange[]): void {
    this.scopes = new ScopeTree(this.view.source.length, ranges);
  }

  scopeOf(n: Node): Scope {
    return this.scopes.at(n.startIndex);
  }

  abstract evaluate(node: Node, scope: Scope): Value[];

  /** Values of a name not bound in any visible scope. */
  protected abstract freeName(name: string, scope: Scope): Value[];

  lookupName(name: string, scope: Scope): Value[] {
    const pending = this.pendingByName.get(name);
    if (pending) {
      // Only statements in scopes visible from here can bind what this lookup sees.
      const path = new Set<Scope>();
      if (!this.globalName(name)) for (let s: Scope | null = scope; s; s = s.parent) path.add(s);
      const keep: typeof pending = [];
      for (const p of pending) {
        if (path.size > 0 && !path.has(p.scope)) {
          keep.push(p);
          continue;
        }
        const n = typeof p.item === 'number' ? this.binderAt(p.item) : p.item;
        if (n) this.bindNode(n);
      }
      if (keep.length > 0) this.pendingByName.set(name, keep);
      else this.pendingByName.delete(name);
      this.knownNames.add(name);
    }
    for (let s: Scope | null = scope; s; s = s.parent) {
      if (this.doneScopes.has(s)) continue;
      this.doneScopes.add(s);
      for (const n of this.pendingByScope.get(s) ?? []) this.bindNode(n);
    }
    const b = this.scopes.lookup(scope, name);
    if (b) return bindingValues(b, (e, s) => this.evaluate(e, s));
    return this.freeName(name, scope);
  }

  protected fact(f: NameFact): void {
    this.facts.push(f);
  }
}
