// Python: path-sensitive constant propagation inside one function body (issue 24, session 11).
// The flow-insensitive scopes (scopes.ts) union every binding of a name; this walks the
// statements of the function that holds a name's use, in order, from its first statement to
// the use, and answers the one constant string the name certainly holds there, or null.
//
// What it knows: int / str / bool / None constants and their arithmetic, comparisons, `not`,
// `and` / `or`, `in`; `if` / `elif` / `else` and `x if c else y` pruned when the condition
// folds (otherwise both arms are walked and joined); re-assignment kills the old value; a list,
// dict or `configparser.ConfigParser()` created in the function with constant keys, used only
// through subscripts and the methods modelled here (never aliased, passed, or touched by a
// nested function).
//
// Fail closed (null) whenever unsure: the use inside a loop, an `except` / `finally` / `else` of
// a `try`, a lambda, a class body or at module level; a name declared `global` / `nonlocal`;
// any call that is not modelled here (it may change whatever it can reach) drops everything
// known; a loop, `try`, `with`, `match`, `del`, definition or import statement walked past drops
// every name it mentions or binds (all of them when it holds a call); augmented assignment and
// walrus targets become unknown; a snippet that can rebind locals without an assignment (`exec`,
// `eval`, `locals()`, `vars()`, `setattr`, frame introspection, `ctypes`, protocol methods such as
// `__bool__` / `__eq__` defined in it) is not tracked at all. Implicit protocol calls on values
// from elsewhere (a truth test of request data) are assumed not to rebind the caller's locals,
// as the flow-insensitive analysis already assumes for every call.
import type { Node } from 'web-tree-sitter';
import type { SyntaxView } from '../syntax.js';

type Scalar =
  | { k: 'str'; v: string }
  /** One of several strings (arms joined), 2..MAX_CHOICES of them. */
  | { k: 'strs'; vs: readonly string[] }
  | { k: 'int'; v: bigint }
  | { k: 'bool'; v: boolean }
  | { k: 'none' };
type Container =
  | { k: 'list'; items: readonly Abs[] }
  | { k: 'dict'; entries: ReadonlyMap<string, Abs> }
  | { k: 'cfg'; sections: ReadonlyMap<string, ReadonlyMap<string, Abs>> }
  | { k: 'mod'; name: 'configparser' };
/** An abstract value; undefined: unknown. */
type Abs = Scalar | Container | undefined;
type Env = Map<string, Abs>;

/** Words that let a snippet rebind a local without an assignment statement: nothing is tracked in it. */
const UNTRACKABLE =
  /\b(?:_getframe|currentframe|f_locals|f_back|f_globals|tb_frame|gi_frame|cr_frame|settrace|setprofile|ctypes|inspect|__dict__|__bool__|__len__|__eq__|__ne__|__lt__|__gt__|__le__|__ge__|__contains__|__getitem__|__setitem__|__hash__|__getattr__|__getattribute__|__index__|__int__|__str__|__add__|__radd__|__del__|__class__|__code__|__builtins__|builtins)\b/;
/** Walk budget per analysis (statement and expression visits): beyond it every answer is null. */
const MAX_STEPS = 200_000;
/** Strings longer than this are not built (`'a' * 10**9`). */
const MAX_STRING = 100_000;
/** Distinct strings a joined value keeps before it becomes unknown. */
const MAX_CHOICES = 8;
const METHODS: Record<'list' | 'dict' | 'cfg', ReadonlySet<string>> = {
  list: new Set(['append', 'pop']),
  dict: new Set(['get']),
  cfg: new Set(['add_section', 'set', 'get']),
};
const LOOPS = new Set(['for_statement', 'while_statement']);
/** A use under one of these is not answered: another scope (comprehensions), or a path the walk does not follow. */
const UNSURE_PARENTS = new Set([
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'named_expression',
  'list_comprehension',
  'set_comprehension',
  'dictionary_comprehension',
  'generator_expression',
  'match_statement',
]);
const SCOPES = new Set(['function_definition', 'lambda', 'class_definition', 'module']);
/** Statements walked past as opaque: what they mention is forgotten. */
const OPAQUE_STATEMENTS = new Set([
  'for_statement',
  'while_statement',
  'try_statement',
  'with_statement',
  'match_statement',
  'delete_statement',
  'function_definition',
  'class_definition',
  'decorated_definition',
  'import_from_statement',
  'future_import_statement',
  'print_statement',
  'exec_statement',
]);

/**
 * Standard-library modules whose import runs no code of the program's and touches no caller's
 * frame (session 16, second wave): importing one does not forget what is known. A local file of
 * the same name would shadow it, as it would every standard name the scanner resolves.
 */
const QUIET_MODULES = new Set([
  'base64',
  'binascii',
  'pickle',
  'json',
  'configparser',
  'urllib',
  'html',
  'string',
  're',
  'os',
  'sys',
  'codecs',
  'copy',
  'collections',
  'functools',
  'itertools',
  'math',
  'random',
  'hashlib',
  'hmac',
  'secrets',
  'datetime',
  'time',
  'io',
  'shlex',
  'subprocess',
]);

/** Expressions that may run code able to change anything: walking past one forgets everything. */
const KILLERS = new Set(['call', 'await', 'yield', 'decorator', 'exec_statement', 'print_statement']);

class Killed extends Error {}

/** Whether the identifier is read as a value (not a target, attribute name, keyword or parameter). */
function isRead(v: SyntaxView, n: Node): boolean {
  const p = n.parent;
  if (!p) return false;
  const t = v.type(p);
  if ((t === 'assignment' || t === 'augmented_assignment') && v.field(p, 'left')?.id === n.id) return false;
  if (t === 'attribute' && v.field(p, 'attribute')?.id === n.id) return false;
  if (t === 'keyword_argument' && v.field(p, 'name')?.id === n.id) return false;
  return !/parameter|pattern|dotted_name|import|global|nonlocal|definition/.test(t);
}

export class PythonPathConstants {
  private steps = 0;
  private readonly untrackable: boolean;
  /** Names declared global / nonlocal anywhere in the snippet. */
  private readonly declared = new Set<string>();
  private readonly containerOk = new Map<string, boolean>();
  private readonly answers = new Map<number, readonly string[] | null>();
  private identifiers: Node[] | undefined;
  private readonly opaqueFacts = new Map<number, { kills: boolean; names: string[] }>();

  constructor(
    private readonly view: SyntaxView,
    private readonly literal: (node: Node) => string | null,
  ) {
    const src = view.source;
    this.untrackable = UNTRACKABLE.test(src);
    for (const m of src.matchAll(/\b(?:global|nonlocal)[ \t]+([\w \t,]+)/g))
      for (const w of m[1].split(',')) this.declared.add(w.trim());
  }

  /** The constant strings the identifier `use` may hold where it is read (each certainly a constant), or null. */
  constantsAt(use: Node): readonly string[] | null {
    if (this.answers.has(use.id)) return this.answers.get(use.id)!;
    const out = this.answer(use);
    this.answers.set(use.id, out);
    return out;
  }

  private answer(use: Node): readonly string[] | null {
    if (this.untrackable || this.steps > MAX_STEPS) return null;
    const name = this.view.text(use);
    if (this.declared.has(name) || !isRead(this.view, use)) return null;
    // The enclosing function, and the chain of nodes from its body down to the use.
    const chain: Node[] = [];
    let fn: Node | null = null;
    for (let n: Node | null = use.parent; n; n = n.parent) {
      const t = this.view.type(n);
      if (SCOPES.has(t)) {
        fn = t === 'function_definition' ? n : null;
        break;
      }
      if (LOOPS.has(t) || UNSURE_PARENTS.has(t)) return null;
      chain.push(n);
    }
    const body = fn ? this.view.field(fn, 'body') : null;
    if (!body) return null;
    try {
      const env: Env = new Map();
      const value = this.walkTo(body, env, new Set(chain.map((c) => c.id)), use);
      return value?.k === 'str' ? [value.v] : value?.k === 'strs' ? value.vs : null;
    } catch (e) {
      if (e instanceof Killed) return null;
      throw e;
    }
  }

  private step(): void {
    if (++this.steps > MAX_STEPS) throw new Killed();
  }

  /** Walks `block` up to the statement on the path to `use`, then into it; the use's value. */
  private walkTo(block: Node, env: Env, path: ReadonlySet<number>, use: Node): Abs {
    const v = this.view;
    for (const s of v.named(block)) {
      this.step();
      if (!path.has(s.id)) {
        if (this.statement(s, env) === 'stop') return undefined;
        continue;
      }
      const t = v.type(s);
      if (t === 'if_statement') {
        const clauses = this.ifClauses(s);
        for (const c of clauses) {
          if (c.cond && (path.has(c.cond.id) || c.cond.id === use.id)) return this.expressionTo(c.cond, env, path, use);
          const truth = c.cond ? truthy(this.expr(c.cond, env)) : true;
          if (c.body && path.has(c.body.id)) {
            if (truth === false) return undefined;
            if (c.cond) this.narrow(c.cond, env);
            return this.walkTo(c.body, env, path, use);
          }
          if (truth === true) return undefined; // the use is in a later clause this one always pre-empts
        }
        return undefined;
      }
      if (t === 'try_statement') {
        const b = v.field(s, 'body');
        return b && path.has(b.id) ? this.walkTo(b, env, path, use) : undefined;
      }
      if (t === 'with_statement') {
        const b = v.field(s, 'body');
        if (!b || !path.has(b.id)) return undefined;
        for (const c of v.named(s)) if (c.id !== b.id) this.opaque(c, env);
        return this.walkTo(b, env, path, use);
      }
      if (t === 'block') return this.walkTo(s, env, path, use);
      if (OPAQUE_STATEMENTS.has(t)) return undefined;
      return this.expressionTo(s, env, path, use);
    }
    return undefined;
  }

  /**
   * The use inside a simple statement or expression: its value as the walk left it, unless
   * something in the statement runs before it and may change it (a call ending before the use,
   * a walrus anywhere).
   */
  private expressionTo(s: Node, env: Env, _path: ReadonlySet<number>, use: Node): Abs {
    const v = this.view;
    if (v.ofType(s, ['named_expression', 'lambda', 'yield', 'await']).length > 0) return undefined;
    for (const c of v.ofType(s, ['call'])) if (v.end(c) <= use.startIndex) return undefined;
    const value = env.get(v.text(use));
    return value && isScalar(value) ? value : undefined;
  }

  /**
   * Session 16: the arm of an `if` / `elif` whose condition is `x == 'a'`, `'a' == x`,
   * `x in ('a', 'b')` (a tuple, list or set of constant strings), or an `or` of such tests of
   * one name runs only when that name holds one of those strings. Each test is str equality: a
   * snippet defining `__eq__` / `__contains__` is not tracked at all (UNTRACKABLE), and the name
   * is read just before the arm runs. Anything else narrows nothing.
   */
  private narrow(cond: Node, env: Env): void {
    let name: string | null = null;
    const values: string[] = [];
    for (const d of this.disjuncts(cond)) {
      const test = this.equalityTest(d, env);
      if (!test || (name !== null && test.name !== name)) return;
      name = test.name;
      for (const s of test.values) if (!values.includes(s)) values.push(s);
    }
    if (name === null || values.length === 0 || values.length > MAX_CHOICES || this.declared.has(name)) return;
    env.set(name, values.length === 1 ? { k: 'str', v: values[0] } : { k: 'strs', vs: values });
  }

  /** The operands of an `or` chain (parentheses dropped). */
  private disjuncts(n: Node): Node[] {
    const v = this.view;
    const t = v.type(n);
    if (t === 'parenthesized_expression') {
      const inner = v.named(n);
      return inner.length === 1 ? this.disjuncts(inner[0]) : [n];
    }
    if (t === 'boolean_operator' && v.text(v.field(n, 'operator') ?? n) === 'or') {
      const l = v.field(n, 'left');
      const r = v.field(n, 'right');
      return l && r ? [...this.disjuncts(l), ...this.disjuncts(r)] : [n];
    }
    return [n];
  }

  /** `x == 'a'` / `'a' == x` / `x in ('a', 'b')`: the name and its constant strings, or null. */
  private equalityTest(d: Node, env: Env): { name: string; values: string[] } | null {
    const v = this.view;
    if (v.type(d) !== 'comparison_operator') return null;
    const parts = v.named(d);
    if (parts.length !== 2) return null;
    const [a, b] = parts;
    const op = v.source.slice(v.end(a), b.startIndex).trim();
    if (op === '==') {
      const [id, lit] = v.type(a) === 'identifier' ? [a, b] : [b, a];
      const c = v.type(id) === 'identifier' ? this.literalString(lit, env) : null;
      return c === null ? null : { name: v.text(id), values: [c] };
    }
    if (op !== 'in' || v.type(a) !== 'identifier' || !['tuple', 'list', 'set'].includes(v.type(b))) return null;
    const values: string[] = [];
    for (const e of v.named(b)) {
      const c = this.literalString(e, env);
      if (c === null) return null;
      values.push(c);
    }
    return values.length > 0 ? { name: v.text(a), values } : null;
  }

  /** A string literal's value (not a name, not bytes or an f-string: expr folds only plain literals). */
  private literalString(n: Node, env: Env): string | null {
    const t = this.view.type(n);
    if (t !== 'string' && t !== 'concatenated_string') return null;
    const c = this.expr(n, env);
    return c?.k === 'str' ? c.v : null;
  }

  /** Runs one statement; 'stop' when it never completes normally (return, raise). */
  private statement(s: Node, env: Env): 'stop' | void {
    const v = this.view;
    this.step();
    switch (v.type(s)) {
      case 'comment':
      case 'pass_statement':
        return;
      case 'return_statement':
      case 'raise_statement':
        for (const c of v.named(s)) this.opaque(c, env);
        return 'stop';
      case 'expression_statement': {
        const inner = v.named(s);
        if (inner.length === 1) {
          const e = inner[0];
          const t = v.type(e);
          if (t === 'assignment') return this.assign(e, env);
          if (t === 'augmented_assignment') {
            this.opaque(e, env);
            return;
          }
          this.expr(e, env);
          return;
        }
        for (const c of inner) this.opaque(c, env);
        return;
      }
      case 'if_statement':
        return this.ifStatement(s, env);
      case 'match_statement':
        return this.matchStatement(s, env);
      case 'import_statement':
        return this.importStatement(s, env);
      case 'block':
        for (const c of v.named(s)) if (this.statement(c, env) === 'stop') return 'stop';
        return;
      default:
        this.opaque(s, env);
        return;
    }
  }

  /** An `if` statement's arms in order: its condition and `elif`s (cond set), then `else` (cond null). */
  private ifClauses(s: Node): { cond: Node | null; body: Node | null }[] {
    const v = this.view;
    return [
      { cond: v.field(s, 'condition'), body: v.field(s, 'consequence') },
      ...v
        .fields(s, 'alternative')
        .map((c) =>
          v.type(c) === 'elif_clause'
            ? { cond: v.field(c, 'condition'), body: v.field(c, 'consequence') }
            : { cond: null, body: v.field(c, 'body') },
        ),
    ];
  }

  private ifStatement(s: Node, env: Env): 'stop' | void {
    const clauses = this.ifClauses(s);
    if (!clauses.some((c) => c.cond === null)) clauses.push({ cond: null, body: null });
    // Each arm that may run, from the state its conditions leave; the results are joined.
    const outs: Env[] = [];
    for (const c of clauses) {
      const truth = c.cond ? truthy(this.expr(c.cond, env)) : true;
      if (truth === false) continue;
      const arm = new Map(env);
      const stopped = c.body ? this.statement(c.body, arm) === 'stop' : false;
      if (!stopped) outs.push(arm);
      if (truth === true) break;
    }
    if (outs.length === 0) return 'stop';
    join(env, outs);
  }

  /**
   * Session 16, second wave: `match` on a subject that folds to one str, whose cases are string
   * literals, `|` of string literals or `_`, without guards: the first case equal to the subject
   * (str equality) runs, and only it. Anything else is walked past as opaque, as before.
   */
  private matchStatement(s: Node, env: Env): 'stop' | void {
    const v = this.view;
    const subject = v.field(s, 'subject');
    const body = v.field(s, 'body');
    const clauses = body ? v.named(body).filter((c) => v.type(c) !== 'comment') : [];
    const arms: { values: string[] | null; consequence: Node | null }[] = [];
    for (const c of clauses) {
      const patterns = v.type(c) === 'case_clause' ? v.named(c).filter((n) => v.type(n) === 'case_pattern') : [];
      if (patterns.length !== 1 || v.field(c, 'guard')) return this.opaque(s, env);
      const p = patterns[0];
      const inner = v.named(p);
      let values: string[] | null;
      if (inner.length === 0 && v.text(p).trim() === '_') values = null;
      else {
        const parts = inner.length === 1 && v.type(inner[0]) === 'union_pattern' ? v.named(inner[0]) : inner;
        values = [];
        for (const part of parts) {
          const lit = v.type(part) === 'string' ? this.expr(part, new Map()) : undefined;
          if (lit?.k !== 'str') return this.opaque(s, env);
          values.push(lit.v);
        }
        if (values.length === 0) return this.opaque(s, env);
      }
      arms.push({ values, consequence: v.field(c, 'consequence') });
    }
    const value = subject && !v.ofType(subject, ['named_expression']).length ? this.expr(subject, env) : undefined;
    if (value?.k !== 'str') return this.opaque(s, env);
    for (const arm of arms) {
      if (arm.values !== null && !arm.values.includes(value.v)) continue;
      return arm.consequence ? this.statement(arm.consequence, env) : undefined;
    }
  }

  private importStatement(s: Node, env: Env): void {
    const v = this.view;
    // Importing runs a module's code, a call with unknown effects, unless each module is one whose
    // import runs no code of the program's (session 16, second wave): a standard-library module,
    // or one the file's own top-level statements already imported (Python then returns the cached
    // module object without running anything).
    if (!v.named(s).every((c) => this.quietImport(c))) this.killAll(env);
    for (const c of v.named(s)) {
      const aliased = v.type(c) === 'aliased_import';
      const dotted = aliased ? v.field(c, 'name') : c;
      const bound = aliased ? v.field(c, 'alias') : null;
      if (!dotted) continue;
      const path = v.text(dotted).replace(/\s/g, '');
      const name = bound ? v.text(bound) : path.split('.')[0];
      env.set(
        name,
        path === 'configparser' && this.trackable(name, 'mod') ? { k: 'mod', name: 'configparser' } : undefined,
      );
    }
  }

  /**
   * Module paths the file's top-level import statements (outside any block) bring in, with their
   * parents: where each statement ends. Top-level statements run in text order, so code written
   * after one runs after it.
   */
  private topImports: Map<string, number> | undefined;

  private quietImport(c: Node): boolean {
    const v = this.view;
    const dotted = v.type(c) === 'aliased_import' ? v.field(c, 'name') : c;
    if (!dotted || v.type(dotted) !== 'dotted_name') return false;
    const path = v.text(dotted).replace(/\s/g, '');
    if (QUIET_MODULES.has(path.split('.')[0])) return true;
    if (!this.topImports) {
      this.topImports = new Map();
      for (const st of v.named(v.root)) {
        const t = v.type(st);
        const paths =
          t === 'import_statement'
            ? v.named(st).map((n) => (v.type(n) === 'aliased_import' ? v.field(n, 'name') : n))
            : t === 'import_from_statement'
              ? [v.field(st, 'module_name')]
              : [];
        for (const n of paths) {
          if (!n || v.type(n) !== 'dotted_name') continue;
          const parts = v.text(n).replace(/\s/g, '').split('.');
          for (let k = 1; k <= parts.length; k++) {
            const p = parts.slice(0, k).join('.');
            if (!this.topImports.has(p)) this.topImports.set(p, v.end(st));
          }
        }
      }
    }
    const done = this.topImports.get(path);
    return done !== undefined && done <= c.startIndex;
  }

  private assign(a: Node, env: Env): void {
    const v = this.view;
    const left = v.field(a, 'left');
    const right = v.field(a, 'right');
    if (!left || !right || (v.field(a, 'type') && !right)) return;
    if (v.type(right) === 'assignment' || v.type(right) === 'yield' || v.type(left) !== 'identifier') {
      if (v.type(left) === 'subscript' && v.type(right) !== 'assignment') this.store(left, right, env);
      else this.opaque(a, env);
      return;
    }
    const value = this.expr(right, env);
    const name = v.text(left);
    if (this.declared.has(name)) env.set(name, undefined);
    else env.set(name, value && !isScalar(value) && !this.trackable(name, value.k) ? undefined : value);
  }

  /** `m[k] = value` on a tracked dict or list. */
  private store(target: Node, right: Node, env: Env): void {
    const v = this.view;
    const obj = v.field(target, 'value');
    const index = v.field(target, 'subscript');
    const value = this.expr(right, env);
    if (!obj || !index || v.type(obj) !== 'identifier' || v.fields(target, 'subscript').length !== 1) {
      this.opaque(target.parent ?? target, env);
      return;
    }
    const name = v.text(obj);
    const key = this.expr(index, env);
    const c = env.get(name); // read after the key: a call in it drops what is known
    if (c?.k === 'dict' && key?.k === 'str') {
      env.set(name, { k: 'dict', entries: new Map(c.entries).set(key.v, value) });
      return;
    }
    if (c?.k === 'list' && key?.k === 'int') {
      const i = listIndex(c.items.length, key.v);
      if (i !== null) {
        env.set(name, { k: 'list', items: c.items.map((x, j) => (j === i ? value : x)) });
        return;
      }
    }
    env.set(name, undefined);
  }

  /** Whether `name` may hold a container: every mention of it in the snippet is one this walk models. */
  private trackable(name: string, kind: string): boolean {
    const key = `${kind}:${name}`;
    const known = this.containerOk.get(key);
    if (known !== undefined) return known;
    const v = this.view;
    let ok = true;
    let owner: number | undefined;
    this.identifiers ??= v.ofType(v.root, ['identifier']);
    const ids = this.identifiers;
    this.steps += ids.length;
    for (const n of ids) {
      if (v.text(n) !== name) continue;
      // Mentioned from one function only: a closure may run later (a thread, a callback).
      let f: Node | null = n.parent;
      while (f && !SCOPES.has(v.type(f))) f = f.parent;
      if (owner === undefined) owner = f?.id ?? -1;
      else if (owner !== (f?.id ?? -1)) {
        ok = false;
        break;
      }
      const p = n.parent;
      if (!p) continue;
      const pt = v.type(p);
      if (pt === 'assignment' && v.field(p, 'left')?.id === n.id) continue;
      if (pt === 'subscript' && v.field(p, 'value')?.id === n.id) continue;
      if (kind === 'mod' && (pt === 'dotted_name' || pt === 'aliased_import')) continue;
      if (pt === 'attribute' && v.field(p, 'object')?.id === n.id) {
        const attr = v.field(p, 'attribute');
        const call = p.parent;
        const methods = kind === 'mod' ? new Set(['ConfigParser']) : METHODS[kind as 'list' | 'dict' | 'cfg'];
        if (
          attr &&
          methods?.has(v.text(attr)) &&
          call &&
          v.type(call) === 'call' &&
          v.field(call, 'function')?.id === p.id
        )
          continue;
      }
      ok = false;
      break;
    }
    this.containerOk.set(key, ok);
    return ok;
  }

  /** Forgets everything the node mentions or binds; everything when it holds a call. */
  private opaque(node: Node, env: Env): void {
    let facts = this.opaqueFacts.get(node.id);
    if (!facts) {
      const v = this.view;
      const kills = KILLERS.has(v.type(node)) || v.ofType(node, [...KILLERS]).length > 0;
      const ids = kills ? [] : v.type(node) === 'identifier' ? [node] : v.ofType(node, ['identifier']);
      facts = { kills, names: [...new Set(ids.map((n) => v.text(n)))] };
      this.opaqueFacts.set(node.id, facts);
      this.steps += ids.length + 1;
    }
    if (facts.kills) {
      this.killAll(env);
      return;
    }
    // Bound names (loop targets, `as` names, definitions, augmented targets) are identifiers too.
    for (const n of facts.names) env.set(n, undefined);
  }

  private killAll(env: Env): void {
    for (const k of env.keys()) env.set(k, undefined);
    // Names not yet in the map are unknown already.
  }

  /** Evaluates an expression (with the effects of the calls modelled here); unknown: undefined. */
  private expr(node: Node, env: Env): Abs {
    const v = this.view;
    this.step();
    const t = v.type(node);
    switch (t) {
      case 'string': {
        const text = v.text(node);
        // bytes and f-strings are not folded; nor escapes other than in raw literals (fail closed)
        const prefix = /^([rRuU]*)['"]/.exec(text);
        if (!prefix || (!/r/i.test(prefix[1]) && text.includes('\\'))) return this.opaqueValue(node, env);
        const s = this.literal(node);
        return s === null ? this.opaqueValue(node, env) : { k: 'str', v: s };
      }
      case 'concatenated_string': {
        let out = '';
        for (const p of v.named(node)) {
          const c = this.expr(p, env);
          if (c?.k !== 'str') return undefined;
          out += c.v;
        }
        return { k: 'str', v: out };
      }
      case 'integer': {
        const text = v.text(node).replace(/_/g, '');
        if (!/^(?:0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|[1-9]\d*|0+)$/.test(text)) return undefined;
        return { k: 'int', v: BigInt(/^0[oO]/.test(text) ? '0o' + text.slice(2) : /^0+$/.test(text) ? '0' : text) };
      }
      case 'true':
        return { k: 'bool', v: true };
      case 'false':
        return { k: 'bool', v: false };
      case 'none':
        return { k: 'none' };
      case 'identifier':
        return env.get(v.text(node));
      case 'parenthesized_expression': {
        const inner = v.named(node);
        return inner.length === 1 ? this.expr(inner[0], env) : this.opaqueValue(node, env);
      }
      case 'not_operator': {
        const arg = v.field(node, 'argument');
        const b = arg ? truthy(this.expr(arg, env)) : null;
        return b === null ? undefined : { k: 'bool', v: !b };
      }
      case 'boolean_operator': {
        const l = v.field(node, 'left');
        const r = v.field(node, 'right');
        const op = v.field(node, 'operator');
        if (!l || !r || !op) return this.opaqueValue(node, env);
        const lv = this.expr(l, env);
        const b = truthy(lv);
        const isAnd = v.text(op) === 'and';
        if (b === null) {
          // Either side may be the result; the right one runs only sometimes.
          const arm = new Map(env);
          const rv = this.expr(r, arm);
          join(env, [new Map(env), arm]);
          return merge([lv, rv]);
        }
        return b === isAnd ? this.expr(r, env) : lv;
      }
      case 'conditional_expression': {
        const [a, c, b] = v.named(node);
        if (!a || !c || !b) return this.opaqueValue(node, env);
        const truth = truthy(this.expr(c, env));
        if (truth === true) return this.expr(a, env);
        if (truth === false) return this.expr(b, env);
        const ea = new Map(env);
        const eb = new Map(env);
        const va = this.expr(a, ea);
        const vb = this.expr(b, eb);
        join(env, [ea, eb]);
        return merge([va, vb]);
      }
      case 'unary_operator': {
        const arg = v.field(node, 'argument');
        const op = v.field(node, 'operator');
        const x = arg ? this.expr(arg, env) : undefined;
        if (x?.k !== 'int' || !op) return undefined;
        const o = v.text(op);
        return o === '-' ? { k: 'int', v: -x.v } : o === '+' ? x : o === '~' ? { k: 'int', v: -x.v - 1n } : undefined;
      }
      case 'binary_operator': {
        const l = v.field(node, 'left');
        const r = v.field(node, 'right');
        const op = v.field(node, 'operator');
        if (!l || !r || !op) return this.opaqueValue(node, env);
        return binary(v.text(op), this.expr(l, env), this.expr(r, env));
      }
      case 'comparison_operator':
        return this.comparison(node, env);
      case 'subscript': {
        const obj = v.field(node, 'value');
        const index = v.field(node, 'subscript');
        if (!obj || !index || v.fields(node, 'subscript').length !== 1) return this.opaqueValue(node, env);
        // The key first: a call in it drops what is known before the container is read.
        const key = this.expr(index, env);
        return element(this.expr(obj, env), key);
      }
      case 'list': {
        const items: Abs[] = [];
        for (const e of v.named(node)) {
          if (v.type(e) === 'list_splat') return this.opaqueValue(node, env);
          items.push(this.expr(e, env));
        }
        return { k: 'list', items };
      }
      case 'dictionary': {
        const entries = new Map<string, Abs>();
        for (const p of v.named(node)) {
          if (v.type(p) === 'comment') continue;
          const key = v.type(p) === 'pair' ? v.field(p, 'key') : null;
          const val = v.type(p) === 'pair' ? v.field(p, 'value') : null;
          if (!key || !val) return this.opaqueValue(node, env);
          const k = this.expr(key, env);
          const x = this.expr(val, env);
          if (k?.k !== 'str') return undefined;
          entries.set(k.v, x);
        }
        return { k: 'dict', entries };
      }
      case 'call':
        return this.call(node, env);
      default:
        return this.opaqueValue(node, env);
    }
  }

  private opaqueValue(node: Node, env: Env): Abs {
    this.opaque(node, env);
    return undefined;
  }

  private comparison(node: Node, env: Env): Abs {
    const v = this.view;
    const operands = v.named(node);
    const ops = node.children.filter((c): c is Node => c !== null && !c.isNamed).map((c) => v.text(c));
    // `not in` / `is not` are two tokens
    const merged: string[] = [];
    for (let i = 0; i < ops.length; i++) {
      if ((ops[i] === 'not' && ops[i + 1] === 'in') || (ops[i] === 'is' && ops[i + 1] === 'not'))
        merged.push(`${ops[i]} ${ops[++i]}`);
      else merged.push(ops[i]);
    }
    if (merged.length !== operands.length - 1) return this.opaqueValue(node, env);
    let left = this.expr(operands[0], env);
    let result: boolean | null = true;
    for (let i = 0; i < merged.length; i++) {
      const right = this.expr(operands[i + 1], env);
      const r = compare(merged[i], left, right);
      if (r === false) return { k: 'bool', v: false }; // Python stops at the first false link
      if (r === null) result = null;
      left = right;
    }
    return result === null ? undefined : { k: 'bool', v: true };
  }

  /** Calls: the modelled methods of tracked containers and `configparser.ConfigParser()`; any other drops everything. */
  private call(node: Node, env: Env): Abs {
    const v = this.view;
    const fn = v.field(node, 'function');
    const argsNode = v.field(node, 'arguments');
    const argNodes = argsNode ? v.named(argsNode) : [];
    const plain = argNodes.every((a) => !/^(?:keyword_argument|list_splat|dictionary_splat|comment)$/.test(v.type(a)));
    if (fn && v.type(fn) === 'attribute' && plain && v.type(argsNode!) === 'argument_list') {
      const obj = v.field(fn, 'object');
      const attr = v.field(fn, 'attribute');
      const recv = obj && v.type(obj) === 'identifier' ? v.text(obj) : null;
      if (recv && attr) {
        const args = argNodes.map((a) => this.expr(a, env));
        // The receiver read after the arguments: a call among them drops what is known.
        const c = env.get(recv);
        const out = c && !isScalar(c) ? method(c, v.text(attr), args) : null;
        if (out) {
          if (out.self) env.set(recv, out.self);
          return out.result;
        }
        this.killAll(env);
        return undefined;
      }
    }
    for (const a of argNodes) this.expr(a, env);
    this.killAll(env);
    return undefined;
  }
}

/** The modelled methods: the receiver's new state and the call's result; null when not modelled. */
function method(c: Container, name: string, args: Abs[]): { self?: Container; result: Abs } | null {
  if (c.k === 'list') {
    if (name === 'append' && args.length === 1)
      return { self: { k: 'list', items: [...c.items, args[0]] }, result: { k: 'none' } };
    if (name === 'pop' && args.length <= 1) {
      const at = args.length === 0 ? { k: 'int' as const, v: -1n } : args[0];
      const i = at?.k === 'int' ? listIndex(c.items.length, at.v) : null;
      if (i === null) return null;
      return { self: { k: 'list', items: c.items.filter((_, j) => j !== i) }, result: c.items[i] };
    }
    return null;
  }
  if (c.k === 'dict') {
    if (name === 'get' && (args.length === 1 || args.length === 2) && args[0]?.k === 'str')
      return { result: c.entries.has(args[0].v) ? c.entries.get(args[0].v) : (args[1] ?? { k: 'none' }) };
    return null;
  }
  if (c.k === 'mod')
    return name === 'ConfigParser' && args.length === 0 ? { result: { k: 'cfg', sections: new Map() } } : null;
  // configparser: section names as given, option names through the default optionxform (lower).
  const section = args[0]?.k === 'str' && args[0].v !== 'DEFAULT' ? args[0].v : null;
  const option = args[1]?.k === 'str' && /^[\x20-\x7e]*$/.test(args[1].v) ? args[1].v.toLowerCase() : null;
  if (name === 'add_section' && args.length === 1 && section !== null && !c.sections.has(section))
    return { self: { k: 'cfg', sections: new Map(c.sections).set(section, new Map()) }, result: { k: 'none' } };
  if (name === 'set' && args.length === 3 && section !== null && option !== null && c.sections.has(section)) {
    const value = args[2]?.k === 'str' ? args[2] : undefined;
    const sec = new Map(c.sections.get(section)).set(option, value);
    return { self: { k: 'cfg', sections: new Map(c.sections).set(section, sec) }, result: { k: 'none' } };
  }
  if (name === 'get' && args.length === 2 && section !== null && option !== null) {
    const value = c.sections.get(section)?.get(option);
    // Basic interpolation rewrites values holding '%'.
    return { result: value?.k === 'str' && !value.v.includes('%') ? value : undefined };
  }
  return null;
}

function isScalar(a: Scalar | Container): a is Scalar {
  return a.k === 'str' || a.k === 'strs' || a.k === 'int' || a.k === 'bool' || a.k === 'none';
}

function truthy(a: Abs): boolean | null {
  if (!a) return null;
  switch (a.k) {
    case 'str':
      return a.v.length > 0;
    case 'strs':
      return a.vs.every((s) => s.length > 0) ? true : a.vs.every((s) => s.length === 0) ? false : null;
    case 'int':
      return a.v !== 0n;
    case 'bool':
      return a.v;
    case 'none':
      return false;
    case 'list':
      return a.items.length > 0;
    case 'dict':
      return a.entries.size > 0;
    default:
      return null;
  }
}

function same(a: Abs, b: Abs): boolean {
  if (!a || !b || a.k !== b.k || !isScalar(a) || a.k === 'strs') return false;
  return a.k === 'none' || (a as { v: unknown }).v === (b as { v: unknown }).v;
}

/** The value of a join: one agreed scalar, several strings, else unknown. */
function merge(values: readonly Abs[]): Abs {
  if (values.every((x) => same(x, values[0]))) return values[0];
  const out = new Set<string>();
  for (const x of values) {
    if (x?.k === 'str') out.add(x.v);
    else if (x?.k === 'strs') for (const s of x.vs) out.add(s);
    else return undefined;
  }
  if (out.size > MAX_CHOICES) return undefined;
  return out.size === 1 ? { k: 'str', v: [...out][0] } : { k: 'strs', vs: [...out] };
}

/** Joins arm states into `env`: a name keeps a value only when every arm agrees on the same scalar. */
function join(env: Env, arms: readonly Env[]): void {
  const names = new Set<string>([...env.keys()]);
  for (const a of arms) for (const k of a.keys()) names.add(k);
  for (const k of names) {
    env.set(k, merge(arms.map((a) => a.get(k))));
  }
}

function listIndex(length: number, i: bigint): number | null {
  const n = i < 0n ? BigInt(length) + i : i;
  return n >= 0n && n < BigInt(length) ? Number(n) : null;
}

function codePoints(s: string): string[] {
  return Array.from(s);
}

function element(c: Abs, key: Abs): Abs {
  if (!c || !key) return undefined;
  if (c.k === 'dict' && key.k === 'str') return c.entries.get(key.v);
  if (c.k === 'list' && key.k === 'int') {
    const i = listIndex(c.items.length, key.v);
    return i === null ? undefined : c.items[i];
  }
  if (c.k === 'str' && key.k === 'int') {
    const cp = codePoints(c.v);
    const i = listIndex(cp.length, key.v);
    return i === null ? undefined : { k: 'str', v: cp[i] };
  }
  return undefined;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

const MAX_INT = 1n << 4096n;

function binary(op: string, l: Abs, r: Abs): Abs {
  if (!l || !r) return undefined;
  if (l.k === 'int' && r.k === 'int') {
    const out = intBinary(op, l.v, r.v);
    return out !== undefined && out < MAX_INT && out > -MAX_INT ? { k: 'int', v: out } : undefined;
  }
  return strBinary(op, l, r);
}

function intBinary(op: string, a: bigint, b: bigint): bigint | undefined {
  switch (op) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '//':
      return b === 0n ? undefined : floorDiv(a, b);
    case '%':
      return b === 0n ? undefined : a - b * floorDiv(a, b);
    default:
      return undefined;
  }
}

function strBinary(op: string, l: Scalar | Container, r: Scalar | Container): Abs {
  if (l.k === 'str' && r.k === 'str' && op === '+')
    return l.v.length + r.v.length > MAX_STRING ? undefined : { k: 'str', v: l.v + r.v };
  if (op === '*' && ((l.k === 'str' && r.k === 'int') || (l.k === 'int' && r.k === 'str'))) {
    const s = l.k === 'str' ? l.v : (r as { v: string }).v;
    const n = l.k === 'int' ? l.v : (r as { v: bigint }).v;
    if (n <= 0n) return { k: 'str', v: '' };
    return BigInt(s.length) * n > BigInt(MAX_STRING) ? undefined : { k: 'str', v: s.repeat(Number(n)) };
  }
  return undefined;
}

function cmpStr(a: string, b: string): number {
  const x = codePoints(a);
  const y = codePoints(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** One comparison link of int or str constants; null when not folded. */
function compare(op: string, l: Abs, r: Abs): boolean | null {
  if (!l || !r) return null;
  if (op === 'in' || op === 'not in') {
    if (l.k !== 'str' || r.k !== 'str') return null;
    return r.v.includes(l.v) === (op === 'in');
  }
  let d: number;
  if (l.k === 'int' && r.k === 'int') d = l.v < r.v ? -1 : l.v > r.v ? 1 : 0;
  else if (l.k === 'str' && r.k === 'str') d = cmpStr(l.v, r.v);
  else return null;
  switch (op) {
    case '<':
      return d < 0;
    case '>':
      return d > 0;
    case '<=':
      return d <= 0;
    case '>=':
      return d >= 0;
    case '==':
      return d === 0;
    case '!=':
      return d !== 0;
    default:
      return null;
  }
}
