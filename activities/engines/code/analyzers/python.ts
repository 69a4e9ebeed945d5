// Python: imports (`import a.b as c`, `from a import b as c`, `from a import *`), re-bindings
// (`f = os.system`, `self.run = subprocess.run`), `getattr(m, "name")`, `__import__("o"+"s")`,
// `importlib.import_module(...)`, `sys.modules["os"]`, `globals()["os"]`, `functools.partial`,
// and builtins resolved only when no scope shadows them.
import type { Node } from 'web-tree-sitter';
import { type ExprOps, lazySite, makeCallSite, type Fact } from '../facts.js';
import { constValue, isRef, member, membersOf, OPAQUE, type Scope, type ScopeRange, type Value } from '../scopes.js';
import { dottedParts, unescapeLiteral, type SyntaxView } from '../syntax.js';
import {
  AnalysisBase,
  type Analyzer,
  calleePrefix,
  headerWords,
  patternWords,
  plainCallee,
  sharedStarts,
  type PatternWords,
  dynamicMarker,
  FALSE_LITERALS,
  isDynamicMarker,
  occurrences,
  parseIntLiteral,
  singleConstant,
  type WantedNames,
} from './base.js';

const BUILTINS = new Set(
  'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod enumerate eval exec execfile filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__ reload'.split(
    ' ',
  ),
);

const SCOPE_TYPES = ['function_definition', 'lambda', 'class_definition'];
const BINDER_TYPES = [
  'import_statement',
  'import_from_statement',
  'assignment',
  'augmented_assignment',
  'named_expression',
  'for_statement',
  'with_item',
  'global_statement',
  'nonlocal_statement',
  'parameters',
  'lambda_parameters',
];
const STATEMENTS = new Set(['expression_statement', 'return_statement', 'assert_statement', 'raise_statement']);

const SPECIAL_WORDS = new Set(['getattr', '__import__', 'globals', 'vars', 'locals', 'sys', 'importlib', 'functools', '__builtins__', 'builtins']);

const SIMPLE_TARGET = /([A-Za-z_]\w*)(?:\s*\.\s*([A-Za-z_]\w*))?\s*(?=:|=(?!=)|[-+*/%&|^@<>]{1,3}=)/y;
const TARGET_LIST = /[^=\n]{0,400}?=(?!=)/y;
const FOR_TARGET = /(?:async\s+)?for\s+([^\n]{0,400}?)\s+in\b/y;
const DEF_NAME = /(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/y;
const HEADER_END = /:/y;

class PythonAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = ['identifier'];
  readonly statementTypes = STATEMENTS;
  private readonly globalsOf = new Map<Scope, Set<string>>();
  private readonly bound = new Set<number>();
  private hasStars = false;

  run(wanted: WantedNames): Fact[] {
    const v = this.view;
    const src = v.source;
    const nodes = v.ofType(v.root, [...SCOPE_TYPES, ...BINDER_TYPES, 'call']);
    const types = nodes.map((n) => v.type(n));
    const ranges: ScopeRange[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (t === 'function_definition' || t === 'lambda') ranges.push({ start: n.startIndex, end: v.end(n), kind: 'function' });
      else if (t === 'class_definition') ranges.push({ start: n.startIndex, end: v.end(n), kind: 'class' });
    });
    this.buildScopes(ranges);
    const calls: Node[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      switch (t) {
        case 'call':
          calls.push(n);
          return;
        case 'function_definition':
        case 'class_definition': {
          DEF_NAME.lastIndex = n.startIndex;
          const m = DEF_NAME.exec(src);
          if (m) this.bind(this.scopes.outer(this.scopeOf(n)), m[1], null);
          // Parameters are filed under every word of the header (a superset of their names).
          if (t === 'function_definition') for (const w of headerWords(src, n.startIndex, HEADER_END)) this.pendName(w, n);
          return;
        }
        case 'lambda':
          for (const w of headerWords(src, n.startIndex, HEADER_END)) this.pendName(w, n);
          return;
        case 'import_statement':
        case 'import_from_statement':
        case 'global_statement':
        case 'nonlocal_statement':
          this.bindNode(n);
          return;
        case 'for_statement': {
          FOR_TARGET.lastIndex = n.startIndex;
          const m = FOR_TARGET.exec(src);
          if (m) for (const w of m[1].match(/[A-Za-z_]\w*/g) ?? []) this.pendName(w, n);
          return;
        }
        case 'with_item':
          this.pendScope(this.scopeOf(n), n);
          return;
        default: {
          // assignment, augmented_assignment, named_expression: file under the bound name(s).
          SIMPLE_TARGET.lastIndex = n.startIndex;
          const m = SIMPLE_TARGET.exec(src);
          if (m) {
            if (!m[2]) this.pendName(m[1], n);
            else if (m[1] === 'self' || m[1] === 'cls') this.pendName(`self.${m[2]}`, n);
            return;
          }
          TARGET_LIST.lastIndex = n.startIndex;
          const list = TARGET_LIST.exec(src);
          if (list) for (const w of list[0].match(/[A-Za-z_]\w*/g) ?? []) this.pendName(w, n);
        }
      }
    });
    const words = patternWords(wanted.callPatterns, 'builtins');
    const shared = sharedStarts(calls);
    for (const c of calls) if (this.relevant(c, words)) this.callFact(c, wanted, shared.has(c.startIndex));
    this.nameFacts(wanted);
    return this.facts;
  }

  /** Whether a call can possibly resolve to a name some active rule matches (decided on its text). */
  private relevant(call: Node, words: PatternWords): boolean {
    const prefix = calleePrefix(this.view.source, call.startIndex);
    if (!prefix || this.hasStars) return true;
    const root = prefix[0];
    return (
      words.roots.has(root) ||
      SPECIAL_WORDS.has(root) ||
      words.lasts.has(prefix[prefix.length - 1]) ||
      this.boundSomewhere(root) ||
      (root === 'self' && prefix.length > 1 && this.boundSomewhere(`self.${prefix[1]}`))
    );
  }

  // ── bindings ──────────────────────────────────────────────────────────────────────────

  private bind(scope: Scope, name: string, expr: Node | null, value: Value = OPAQUE): void {
    const target = this.globalsOf.get(scope)?.has(name) ? this.scopes.root : scope;
    this.knownNames.add(name);
    if (expr) this.scopes.bindExpr(target, name, expr);
    else this.scopes.bindValue(target, name, value);
  }

  protected bindNode(n: Node): void {
    if (this.bound.has(n.id)) return;
    this.bound.add(n.id);
    const v = this.view;
    const scope = this.scopeOf(n);
    switch (v.type(n)) {
      case 'function_definition':
      case 'lambda': {
        const params = v.field(n, 'parameters');
        if (params) this.bindParameters(params, scope);
        return;
      }
      case 'import_statement':
        for (const item of v.fields(n, 'name')) {
          if (v.type(item) === 'aliased_import') {
            const alias = v.field(item, 'alias');
            const mod = v.field(item, 'name');
            if (alias && mod) this.bind(scope, v.text(alias), null, dotted(v.text(mod)));
          } else {
            const top = dotted(v.text(item)).split('.')[0];
            this.bind(scope, top, null, top);
          }
        }
        return;
      case 'import_from_statement': {
        const modNode = v.field(n, 'module_name');
        if (!modNode) return;
        const mod = dotted(v.text(modNode));
        for (const child of v.named(n)) {
          if (v.type(child) === 'wildcard_import') {
            scope.stars.push(mod);
            this.hasStars = true;
          }
        }
        for (const item of v.fields(n, 'name')) {
          if (v.type(item) === 'aliased_import') {
            const alias = v.field(item, 'alias');
            const name = v.field(item, 'name');
            if (alias && name) this.bind(scope, v.text(alias), null, `${mod}.${dotted(v.text(name))}`);
          } else {
            const name = dotted(v.text(item));
            this.bind(scope, name, null, `${mod}.${name}`);
          }
        }
        return;
      }
      case 'global_statement':
      case 'nonlocal_statement': {
        let set = this.globalsOf.get(scope);
        if (!set) this.globalsOf.set(scope, (set = new Set()));
        for (const id of v.named(n)) set.add(v.text(id));
        return;
      }
      case 'assignment': {
        const left = v.field(n, 'left');
        const right = v.field(n, 'right');
        if (left) this.bindTarget(left, right, scope);
        return;
      }
      case 'augmented_assignment': {
        const left = v.field(n, 'left');
        if (left && v.type(left) === 'identifier') this.bind(scope, v.text(left), n);
        return;
      }
      case 'named_expression': {
        const name = v.field(n, 'name');
        const value = v.field(n, 'value');
        if (name) this.bind(scope, v.text(name), value);
        return;
      }
      case 'for_statement': {
        const left = v.field(n, 'left');
        if (left) this.bindTarget(left, null, scope);
        return;
      }
      case 'with_item': {
        const value = v.field(n, 'value');
        if (value && v.type(value) === 'as_pattern') {
          const target = v.field(value, 'alias');
          if (target) for (const id of v.ofType(target, ['identifier'])) this.bind(scope, v.text(id), null);
        }
        return;
      }
    }
  }

  private bindParameters(params: Node, scope: Scope): void {
    const v = this.view;
    for (const p of v.named(params)) {
      const pt = v.type(p);
      if (pt === 'identifier') this.bind(scope, v.text(p), null);
      else if (pt === 'default_parameter' || pt === 'typed_default_parameter') {
        const name = v.field(p, 'name');
        if (name) this.bind(scope, v.text(name), null);
      } else {
        const id = v.named(p).find((c) => v.type(c) === 'identifier');
        if (id) this.bind(scope, v.text(id), null);
      }
    }
  }

  /** Binds an assignment target; tuples unpack element-wise when the right side is a same-length tuple. */
  private bindTarget(left: Node, right: Node | null, scope: Scope): void {
    const v = this.view;
    const lt = v.type(left);
    if (lt === 'identifier') {
      this.bind(scope, v.text(left), right);
      return;
    }
    if (lt === 'attribute') {
      // `self.run = os.system`: remembered file-wide under its dotted name.
      const parts = dottedParts(v.text(left));
      if (parts && parts.length === 2 && (parts[0] === 'self' || parts[0] === 'cls')) {
        this.scopes.bindExpr(this.scopes.root, `self.${parts[1]}`, right ?? left);
      }
      return;
    }
    if (lt === 'pattern_list' || lt === 'tuple_pattern' || lt === 'list_pattern') {
      const targets = v.named(left);
      const rt = right ? v.type(right) : '';
      const values = right && (rt === 'expression_list' || rt === 'tuple' || rt === 'list') ? v.args(right) : null;
      targets.forEach((t, i) => this.bindTarget(t, values && values.length === targets.length ? values[i] : null, scope));
    }
  }

  // ── resolution ────────────────────────────────────────────────────────────────────────

  protected freeName(name: string, scope: Scope): Value[] {
    if (name === '__builtins__') return ['builtins'];
    // Builtins are taken as builtins even after a star import (which could only shadow them
    // if the module happened to export the same name).
    if (BUILTINS.has(name)) return [`builtins.${name}`];
    const out: Value[] = [name];
    for (let s: Scope | null = scope; s; s = s.parent) for (const star of s.stars) out.push(`${star}.${name}`);
    return out;
  }

  evaluate(node: Node, scope: Scope): Value[] {
    const v = this.view;
    switch (v.type(node)) {
      case 'identifier':
        return this.lookupName(v.text(node), scope);
      case 'attribute':
        return this.evalAttribute(node, scope);
      case 'call':
        return this.evalCall(node, scope);
      case 'subscript':
        return this.evalSubscript(node, scope);
      case 'string':
      case 'concatenated_string':
      case 'binary_operator': {
        const c = this.constant(node, scope);
        if (c !== null) return [constValue(c)];
        return this.dynamicString(node, scope) ? [dynamicMarker(v.text(node))] : [OPAQUE];
      }
      case 'parenthesized_expression':
      case 'await': {
        const inner = v.args(node)[0];
        return inner ? this.evaluate(inner, scope) : [OPAQUE];
      }
      case 'conditional_expression':
      case 'boolean_operator': {
        const parts = v.args(node);
        const picked = v.type(node) === 'conditional_expression' ? [parts[0], parts[2]] : [parts[0], parts[1]];
        return picked.filter((p): p is Node => p !== undefined).flatMap((p) => this.evaluate(p, scope));
      }
      case 'assignment': {
        const right = v.field(node, 'right');
        return right ? this.evaluate(right, scope) : [OPAQUE];
      }
      case 'augmented_assignment': {
        const right = v.field(node, 'right');
        return right && this.stringy(right, scope) ? [dynamicMarker(v.text(node))] : [OPAQUE];
      }
      default:
        return [OPAQUE];
    }
  }

  /** Values of a dotted name `a.b.c` (`self.x` first through its file-wide binding). */
  private resolveDotted(parts: readonly string[], scope: Scope): Value[] {
    const selfKey = parts.length >= 2 && (parts[0] === 'self' || parts[0] === 'cls') ? `self.${parts[1]}` : null;
    if (selfKey && this.boundSomewhere(selfKey)) return membersOf(this.lookupName(selfKey, this.scopes.root), parts.slice(2));
    const base = this.lookupName(parts[0], scope);
    return parts.length === 1 ? base : membersOf(base, parts.slice(1));
  }

  private evalAttribute(node: Node, scope: Scope): Value[] {
    const v = this.view;
    const parts = dottedParts(v.text(node));
    if (parts) return this.resolveDotted(parts, scope);
    const obj = v.field(node, 'object');
    const attr = v.field(node, 'attribute');
    if (!obj || !attr) return [OPAQUE];
    return membersOf(this.evaluate(obj, scope), [v.text(attr)]);
  }

  private positional(argsNode: Node | null): Node[] {
    if (!argsNode) return [];
    const v = this.view;
    if (v.type(argsNode) !== 'argument_list') return [argsNode];
    return v.args(argsNode).filter((a) => {
      const t = v.type(a);
      return t !== 'keyword_argument' && t !== 'list_splat' && t !== 'dictionary_splat';
    });
  }

  private keywords(argsNode: Node | null): Map<string, Node> {
    const out = new Map<string, Node>();
    if (!argsNode || this.view.type(argsNode) !== 'argument_list') return out;
    for (const a of this.view.args(argsNode)) {
      if (this.view.type(a) !== 'keyword_argument') continue;
      const name = this.view.field(a, 'name');
      const value = this.view.field(a, 'value');
      if (name && value) out.set(this.view.text(name), value);
    }
    return out;
  }

  private evalCall(node: Node, scope: Scope): Value[] {
    const v = this.view;
    const fn = v.field(node, 'function');
    if (!fn) return [OPAQUE];
    const argsNode = v.field(node, 'arguments');
    if (v.type(fn) === 'attribute') {
      const attr = v.field(fn, 'attribute');
      const obj = v.field(fn, 'object');
      const method = attr ? v.text(attr) : '';
      if (obj && (method === 'format' || method === 'join') && this.stringy(obj, scope)) {
        const c = this.constant(node, scope);
        return c !== null ? [constValue(c)] : [dynamicMarker(v.text(node))];
      }
    }
    const args = this.positional(argsNode);
    const out: Value[] = [];
    for (const callee of this.evaluate(fn, scope).filter(isRef)) {
      switch (callee) {
        case 'builtins.__import__':
        case 'importlib.__import__': {
          const name = args[0] ? this.constant(args[0], scope) : null;
          // `__import__("a.b")` returns the top package unless a fromlist is given.
          const fromlist = args.length >= 4 || this.keywords(argsNode).has('fromlist');
          out.push(name === null ? OPAQUE : fromlist ? name : name.split('.')[0]);
          break;
        }
        case 'importlib.import_module': {
          const name = args[0] ? this.constant(args[0], scope) : null;
          out.push(name ?? OPAQUE);
          break;
        }
        case 'builtins.getattr': {
          if (!args[0]) break;
          const name = args[1] ? this.constant(args[1], scope) : null;
          for (const base of this.evaluate(args[0], scope).filter(isRef)) out.push(member(base, name ?? '?'));
          break;
        }
        case 'functools.partial':
          if (args[0]) out.push(...this.evaluate(args[0], scope));
          break;
        default: {
          const first = args[0] ? this.constant(args[0], scope) : null;
          out.push(`${callee}(${first !== null && /^[\w.-]{1,40}$/.test(first) ? first.toLowerCase() : ''})`);
        }
      }
    }
    return out.length > 0 ? out : [OPAQUE];
  }

  private evalSubscript(node: Node, scope: Scope): Value[] {
    const v = this.view;
    const value = v.field(node, 'value');
    const index = v.field(node, 'subscript');
    if (!value || !index) return [OPAQUE];
    const key = this.constant(index, scope);
    if (key === null) return [OPAQUE];
    const out: Value[] = [];
    for (const base of this.evaluate(value, scope).filter(isRef)) {
      if (base === 'sys.modules') out.push(key);
      else if (base === 'builtins') out.push(`builtins.${key}`);
      else if (base.endsWith('.__dict__')) out.push(member(base.slice(0, -'.__dict__'.length), key));
      else if (base === 'builtins.globals()' || base === 'builtins.vars()' || base === 'builtins.locals()') {
        out.push(...this.lookupName(key, base === 'builtins.locals()' ? scope : this.scopes.root));
      }
    }
    return out.length > 0 ? out : [OPAQUE];
  }

  // ── expression views (ExprOps) ───────────────────────────────────────────────────────

  private stringLiteral(node: Node): string | null {
    const v = this.view;
    const text = v.text(node);
    const m = /^([rRbBuUfF]*)('''|"""|'|")/.exec(text);
    if (!m) return null;
    const prefix = m[1].toLowerCase();
    if (prefix.includes('f') && v.ofType(node, ['interpolation']).length > 0) return null;
    let body = text.slice(m[0].length, text.length - m[2].length);
    if (prefix.includes('f')) body = body.replace(/\{\{/g, '{').replace(/\}\}/g, '}');
    return prefix.includes('r') ? body : unescapeLiteral(body);
  }

  constant(node: Node, scope: Scope): string | null {
    const v = this.view;
    switch (v.type(node)) {
      case 'string':
        return this.stringLiteral(node);
      case 'concatenated_string': {
        let out = '';
        for (const part of v.args(node)) {
          const c = this.constant(part, scope);
          if (c === null) return null;
          out += c;
        }
        return out;
      }
      case 'binary_operator': {
        const op = v.field(node, 'operator');
        const left = v.field(node, 'left');
        const right = v.field(node, 'right');
        if (!op || !left || !right || v.type(op) !== '+') return null;
        const l = this.constant(left, scope);
        if (l === null) return null;
        const r = this.constant(right, scope);
        return r === null ? null : l + r;
      }
      case 'parenthesized_expression': {
        const inner = v.args(node)[0];
        return inner ? this.constant(inner, scope) : null;
      }
      case 'identifier':
        return singleConstant(this.lookupName(v.text(node), scope));
      case 'subscript': {
        // "so"[::-1]
        const value = v.field(node, 'value');
        const index = v.field(node, 'subscript');
        if (!value || !index || v.text(index).replace(/\s/g, '') !== '::-1') return null;
        const c = this.constant(value, scope);
        return c === null ? null : [...c].reverse().join('');
      }
      case 'call':
        return this.constantCall(node, scope);
      default:
        return null;
    }
  }

  private constantCall(node: Node, scope: Scope): string | null {
    const v = this.view;
    const fn = v.field(node, 'function');
    if (!fn) return null;
    const args = this.positional(v.field(node, 'arguments'));
    if (v.type(fn) === 'attribute') {
      const obj = v.field(fn, 'object');
      const attr = v.field(fn, 'attribute');
      if (!obj || !attr) return null;
      const method = v.text(attr);
      const base = this.constant(obj, scope);
      if (base === null) return null;
      if (method === 'join' && args.length === 1) {
        const t = v.type(args[0]);
        if (t !== 'list' && t !== 'tuple') return null;
        const parts = v.args(args[0]).map((e) => this.constant(e, scope));
        return parts.every((p): p is string => p !== null) ? parts.join(base) : null;
      }
      if (args.length === 0 || method === 'encode' || method === 'decode') {
        if (method === 'lower') return base.toLowerCase();
        if (method === 'upper') return base.toUpperCase();
        if (method === 'strip') return base.trim();
        if (method === 'encode' || method === 'decode') return base;
      }
      return null;
    }
    const callee = this.evaluate(fn, scope);
    if (callee.length === 1 && callee[0] === 'builtins.chr' && args.length === 1) {
      const n = parseIntLiteral(v.text(args[0]));
      return n === null ? null : String.fromCodePoint(n);
    }
    if (callee.length === 1 && callee[0] === 'builtins.str' && args.length === 1) return this.constant(args[0], scope);
    return null;
  }

  private stringy(node: Node, scope: Scope): boolean {
    return this.constant(node, scope) !== null || this.dynamicString(node, scope);
  }

  dynamicString(node: Node, scope: Scope): boolean {
    const v = this.view;
    switch (v.type(node)) {
      case 'string':
        return this.stringLiteral(node) === null;
      case 'concatenated_string':
        return v.args(node).some((p) => this.dynamicString(p, scope));
      case 'binary_operator': {
        const op = v.field(node, 'operator');
        const left = v.field(node, 'left');
        const right = v.field(node, 'right');
        if (!op || !left || !right) return false;
        const o = v.type(op);
        if (o !== '+' && o !== '%') return false;
        return this.stringy(left, scope) || (o === '+' && this.stringy(right, scope));
      }
      case 'call': {
        const fn = v.field(node, 'function');
        if (!fn || v.type(fn) !== 'attribute') return false;
        const obj = v.field(fn, 'object');
        const attr = v.field(fn, 'attribute');
        return !!obj && !!attr && (v.text(attr) === 'format' || v.text(attr) === 'join') && this.stringy(obj, scope);
      }
      case 'parenthesized_expression': {
        const inner = v.args(node)[0];
        return inner ? this.dynamicString(inner, scope) : false;
      }
      case 'identifier':
        return this.lookupName(v.text(node), scope).some(isDynamicMarker);
      default:
        return false;
    }
  }

  values(node: Node, scope: Scope): Value[] {
    return this.evaluate(node, scope);
  }

  number(node: Node): number | null {
    return parseIntLiteral(this.view.text(node));
  }

  isFalse(node: Node): boolean {
    return FALSE_LITERALS.has(this.view.text(node));
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  private callFact(node: Node, wanted: WantedNames, nested: boolean): void {
    const v = this.view;
    const scope = this.scopeOf(node);
    // `a.b.c(` resolves from the text; calls sharing their start with another (`f(x)(y)`) need the tree.
    const plain = nested ? null : plainCallee(v.source, node.startIndex);
    let names: Value[];
    if (plain) names = this.resolveDotted(plain, scope).filter(isRef);
    else {
      const fn = v.field(node, 'function');
      if (!fn) return;
      names = this.evaluate(fn, scope).filter(isRef);
    }
    if (names.length === 0) return;
    const argsNode = v.field(node, 'arguments');
    const line = v.line(node);
    this.facts.push({
      kind: 'call',
      line,
      names,
      site: lazySite(() =>
        makeCallSite({ node, scope, ops: this, args: this.positional(argsNode), kwargs: this.keywords(argsNode) }),
      ),
    });
    // getattr(x, "__globals__") reads the attribute just like x.__globals__ does.
    if (names.includes('builtins.getattr') && wanted.attribute.size > 0) {
      const nameArg = this.positional(argsNode)[1];
      const attr = nameArg ? this.constant(nameArg, scope) : null;
      if (attr !== null && wanted.attribute.has(attr)) this.fact({ kind: 'attribute', line, name: attr });
    }
  }

  /** Attribute reads and bare identifiers that rules look for (never inside strings or comments). */
  private nameFacts(wanted: WantedNames): void {
    const v = this.view;
    const all = new Set([...wanted.attribute, ...wanted.identifier]);
    for (const { index, name } of occurrences(v.source, all)) {
      const node = v.namedAt(index, index + name.length);
      if (!node || v.type(node) !== 'identifier' || node.startIndex !== index) continue;
      const parent = node.parent;
      const isAttr = parent !== null && v.type(parent) === 'attribute' && v.field(parent, 'attribute')?.id === node.id;
      if (isAttr && wanted.attribute.has(name)) this.fact({ kind: 'attribute', line: v.line(node), name });
      else if (!isAttr && wanted.identifier.has(name)) this.fact({ kind: 'identifier', line: v.line(node), name });
    }
  }
}

function dotted(text: string): string {
  return text.replace(/\s+/g, '');
}

export const pythonAnalyzer: Analyzer = {
  analyze: (view: SyntaxView, wanted: WantedNames) => new PythonAnalysis(view).run(wanted),
};
