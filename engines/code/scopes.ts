// Lexical scopes and name bindings, shared by the language analyzers.
//
// Binding is flow-insensitive within a scope: every value a name is bound to anywhere in the
// scope is a candidate at every use (an over-approximation, so an alias is never missed
// because of statement order). Values are evaluated lazily, on first lookup, with a guard
// against cycles (`a = b; b = a`).
import type { Node } from 'web-tree-sitter';

/**
 * A binding value:
 *  - a reference `os.system`, `child_process`, `java.lang.Runtime#` (instance), `os.popen()` (call result);
 *  - a constant string, prefixed with `"`;
 *  - `$sql`, a string built at run time from SQL text; `$str`, any other string built at run time;
 *  - `?`, anything else (opaque).
 */
export type Value = string;
export const OPAQUE: Value = '?';
export const DYNAMIC_SQL: Value = '$sql';
export const DYNAMIC_STRING: Value = '$str';

export const constValue = (s: string): Value => `"${s}`;
export const isConst = (v: Value): boolean => v.startsWith('"');
export const isRef = (v: Value): boolean => v !== OPAQUE && v !== DYNAMIC_SQL && v !== DYNAMIC_STRING && !isConst(v);

/** `parent.member`, or `T#member` on an instance reference. */
export function member(parent: string, name: string): string {
  return parent.endsWith('#') ? parent + name : `${parent}.${name}`;
}

/**
 * Members `path` of each value. An opaque value (a parameter, an unknown result) yields
 * `?.name`, so sinks matched on the method name alone (`*.execute`) still see the call.
 */
export function membersOf(
  values: readonly Value[],
  path: readonly string[],
  join: (base: string, name: string) => string = member,
): Value[] {
  const out = new Set<Value>();
  for (const v of values) {
    if (isRef(v)) out.add(path.reduce(join, v));
    else if (v === OPAQUE && path.length > 0) out.add(path.reduce(join, '?'));
  }
  return [...out];
}

export type ScopeKind = 'module' | 'function' | 'class' | 'gate';

export interface Binding {
  values?: Value[];
  expr?: Node;
  /** Destructuring: the bound value is this member path of the expression's value. */
  path?: readonly string[];
  scope: Scope;
  resolving?: boolean;
}

export class Scope {
  readonly bindings = new Map<string, Binding[]>();
  /** Modules whose names were all imported (`from m import *`, Go dot-imports, Java `import p.*`). */
  readonly stars: string[] = [];
  readonly children: Scope[] = [];

  constructor(
    readonly start: number,
    readonly end: number,
    readonly kind: ScopeKind,
    readonly parent: Scope | null,
  ) {}
}

export interface ScopeRange {
  start: number;
  end: number;
  kind: ScopeKind;
}

export class ScopeTree {
  readonly root: Scope;

  constructor(length: number, ranges: readonly ScopeRange[]) {
    this.root = new Scope(0, length + 1, 'module', null);
    const sorted = [...ranges].sort((a, b) => a.start - b.start || b.end - a.end);
    const stack: Scope[] = [this.root];
    for (const r of sorted) {
      while (stack.length > 1 && r.start >= stack[stack.length - 1].end) stack.pop();
      const parent = stack[stack.length - 1];
      const scope = new Scope(r.start, r.end, r.kind, parent);
      parent.children.push(scope);
      stack.push(scope);
    }
  }

  /** Innermost scope containing the byte index. */
  at(index: number): Scope {
    let scope = this.root;
    for (;;) {
      const kids = scope.children;
      let lo = 0;
      let hi = kids.length - 1;
      let next: Scope | null = null;
      while (lo <= hi) {
        const mid = (lo + hi) >> 1;
        const k = kids[mid];
        if (index < k.start) hi = mid - 1;
        else if (index >= k.end) lo = mid + 1;
        else {
          next = k;
          break;
        }
      }
      if (!next) return scope;
      scope = next;
    }
  }

  /** The scope enclosing `scope` (for names a definition binds in its parent, e.g. `def f`). */
  outer(scope: Scope): Scope {
    return scope.parent ?? scope;
  }

  bindValue(scope: Scope, name: string, value: Value): void {
    this.push(scope, name, { values: [value], scope });
  }

  bindExpr(scope: Scope, name: string, expr: Node, path?: readonly string[]): void {
    this.push(scope, name, { expr, scope, path });
  }

  private push(scope: Scope, name: string, b: Binding): void {
    const list = scope.bindings.get(name);
    if (list) list.push(b);
    else scope.bindings.set(name, [b]);
  }

  /**
   * Bindings of `name` visible from `scope`: the nearest scope that binds it wins. Class scopes
   * are skipped from nested functions (Python); a `gate` scope (Ruby def, PHP function) hides
   * every outer local.
   */
  lookup(scope: Scope, name: string): Binding[] | null {
    let cur: Scope | null = scope;
    let first = true;
    while (cur) {
      if (first || cur.kind !== 'class') {
        const b = cur.bindings.get(name);
        if (b) return b;
      }
      if (cur.kind === 'gate') return null;
      first = false;
      cur = cur.parent;
    }
    return null;
  }
}

/**
 * Bindings evaluated inside one another on the call stack at most this deep: a deeper one (a
 * long chain `x1 = x0; x2 = x1; …`) is deferred and resolved from a fresh stack by the work list
 * of the outermost lookup, so a chain's length costs no recursion.
 */
const MAX_NESTED_BINDINGS = 150;
/** Deferred bindings one outermost lookup may resolve before the scan gives up (fail closed). */
const MAX_DEFERRED_BINDINGS = 5_000;

/** The analysis needed more than MAX_DEFERRED_BINDINGS deferred steps: the scan is refused, never guessed. */
export class AnalysisLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AnalysisLimitError';
  }
}

/** Thrown through the nested evaluations back to the outermost lookup, which resolves `binding` first. */
class DeferredBinding {
  constructor(
    readonly binding: Binding,
    readonly evaluate: (expr: Node, scope: Scope) => Value[],
  ) {}
}

let nesting = 0;

/**
 * Evaluates bindings lazily through an analyzer-supplied expression evaluator. The outermost
 * call keeps a work list: a binding nested too deep is resolved on its own first (its value is
 * cached), then the lookup that needed it is tried again and finds it cached.
 */
export function bindingValues(bindings: readonly Binding[], evaluate: (expr: Node, scope: Scope) => Value[]): Value[] {
  if (nesting > 0) return collectValues(bindings, evaluate);
  const deferred: DeferredBinding[] = [];
  let steps = 0;
  for (;;) {
    const next = deferred.at(-1);
    try {
      if (next === undefined) return collectValues(bindings, evaluate);
      collectValues([next.binding], next.evaluate);
      deferred.pop();
    } catch (err) {
      if (!(err instanceof DeferredBinding)) throw err;
      if (++steps > MAX_DEFERRED_BINDINGS)
        throw new AnalysisLimitError(
          `name bindings nest deeper than the analysis bound (${MAX_DEFERRED_BINDINGS} deferred steps)`,
        );
      deferred.push(err);
    }
  }
}

function collectValues(bindings: readonly Binding[], evaluate: (expr: Node, scope: Scope) => Value[]): Value[] {
  const out = new Set<Value>();
  for (const b of bindings) {
    if (!b.values) {
      if (b.resolving) {
        out.add(OPAQUE);
        continue;
      }
      if (nesting >= MAX_NESTED_BINDINGS) throw new DeferredBinding(b, evaluate);
      b.resolving = true;
      nesting++;
      try {
        const vals = b.expr ? evaluate(b.expr, b.scope) : [OPAQUE];
        const path = b.path;
        b.values = path ? vals.map((v) => (isRef(v) ? path.reduce(member, v) : OPAQUE)) : vals;
      } finally {
        b.resolving = false;
        nesting--;
      }
    }
    for (const v of b.values) out.add(v);
  }
  return [...out];
}
