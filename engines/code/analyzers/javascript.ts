// JavaScript and TypeScript: `require` (plain, destructured, member), ES imports (default,
// namespace, named with alias, `import x = require()`), dynamic `import()`, `createRequire`,
// re-bindings, `this.x` fields, `util.promisify` / `.bind`, `.call` / `.apply`, global
// prefixes (`window.eval`, `globalThis.eval`) and `obj["name"]` lookups. TypeScript: a parameter,
// parameter property, field or variable declared `typeof f` holds `f` (dependency injection of
// `execaCommand` or `child_process.exec`), so calling it is calling `f`.
import type { Node } from 'web-tree-sitter';
import { type ExprOps, type Fact, lazySite, makeCallSite } from '../facts.js';
import { constValue, isRef, member, membersOf, OPAQUE, type Scope, type ScopeRange, type Value } from '../scopes.js';
import { dottedParts, unescapeLiteral, type SyntaxView } from '../syntax.js';
import {
  AnalysisBase,
  type StringArms,
  type Analyzer,
  calleePrefix,
  dynamicMarker,
  FALSE_LITERALS,
  occurrences,
  patternWords,
  plainCallee,
  sharedStarts,
  resultName,
  type PatternWords,
  type WantedNames,
} from './base.js';

const FUNCTION_TYPES = [
  'function_declaration',
  'function_expression',
  'function',
  'arrow_function',
  'method_definition',
  'generator_function_declaration',
  'generator_function',
];
const BINDER_TYPES = [
  'variable_declarator',
  'assignment_expression',
  'import_statement',
  'class_declaration',
  'field_definition',
  'public_field_definition',
  'catch_clause',
  'for_in_statement',
];
const CALL_TYPES = ['call_expression', 'new_expression'];
const STATEMENTS = new Set(['expression_statement', 'lexical_declaration', 'variable_declaration', 'return_statement']);
const GLOBAL_PREFIXES = new Set(['window', 'globalThis', 'self', 'global']);
/** The value of `window[<computed>]` (a rule matches a call of it). */
const COMPUTED_GLOBAL = 'global[computed]';
const SPECIAL_WORDS = new Set([
  ...GLOBAL_PREFIXES,
  'require',
  'import',
  'module',
  'process',
  'util',
  'this',
  'Reflect',
]);
const REQUIRE_LIKE = new Set([
  'require',
  'module.require',
  'process.mainModule.require',
  'module.createRequire()',
  // Session 16 (red team): Module._load is what require calls (`process.mainModule.constructor._load('child_process')`).
  'module.constructor._load',
  'process.mainModule.constructor._load',
  'module.Module._load',
]);
// Promisifiers hand back their argument's function (or an object with its methods), so calling
// the result is calling the original (session 14: CodeQL's promisification tests).
const TRANSPARENT_WRAPPERS = new Set([
  'util.promisify',
  'util-promisify',
  'util.promisify-all',
  'es6-promisify',
  'es6-promisify.promisify',
  'es6-promisify.promisifyAll',
  '@gar/promisify',
  '@google-cloud/promisify.promisify',
  '@google-cloud/promisify.promisifyAll',
  'thenify',
  'thenify-all',
  'thenify-all.withCallback',
  'bluebird.promisify',
  'bluebird.promisifyAll',
  'pify',
]);
/** Modifier nodes that make a constructor parameter a class property (`constructor(private run: …)`). */
const PARAMETER_PROPERTY = new Set(['accessibility_modifier', 'readonly', 'override_modifier']);
const WRAPPER_TYPES = new Set([
  'parenthesized_expression',
  'await_expression',
  'as_expression',
  'non_null_expression',
  'satisfies_expression',
  'type_assertion',
]);

const NAME_AT = /[A-Za-z_$][\w$]*/y;
const THIS_MEMBER = /this\s*\.\s*([A-Za-z_$][\w$]*)\s*=(?!=)/y;
const PATTERN_HEAD = /[[{][^=;]{0,400}?(?==)/y;
const FUNCTION_NAME = /(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/y;
const CLASS_NAME = /class\s+([A-Za-z_$][\w$]*)/y;
const FIELD_NAME =
  /(?:(?:static|private|public|protected|readonly|declare|override|accessor)\s+)*#?([A-Za-z_$][\w$]*)/y;

/** Module specifier → the name rule patterns use (`node:fs` → `fs`, `fs/promises` → `fs.promises`). */
export function moduleName(spec: string): string {
  const bare = spec.replace(/^node:/, '');
  return bare === 'fs/promises' ? 'fs.promises' : bare;
}

/** Receiver names of a headless-browser page or frame (`page`, `newPage`, `iframe`, `mainFrame`, …). */
/**
 * AngularJS services are injected by parameter name; the `$` names are reserved for Angular's own,
 * so a call to a `$compile` / `$parse` / `$interpolate` the snippet receives is the service.
 */
const ANGULAR_SERVICES = new Set(['$compile', '$parse', '$interpolate']);
/**
 * Session 16: a parameter named for an injected AngularJS service holds that service, so an alias
 * (`var compile = $compile; compile(x)`) and a filter looked up by name (`$filter('orderBy')`,
 * whose expression argument is parsed by `$parse`) resolve to it.
 */
const ANGULAR_INJECTED = new Set([...ANGULAR_SERVICES, '$filter', 'orderByFilter']);
/** React Native WebView props whose string is run as JavaScript in the page. */
const WEBVIEW_SCRIPT_PROPS = new Set([
  'injectedJavaScript',
  'injectedJavaScriptBeforeContentLoaded',
  'injectedJavaScriptForMainFrameOnly',
]);
const PAGE_CALLEE = /^((?:[a-z][A-Za-z0-9_]*)?(?:[pP]age|[fF]rame))\.([A-Za-z]+)$/;
const PAGE_EVAL_METHODS = new Set(['evaluate', 'evaluateHandle', 'evaluateOnNewDocument']);

class JavaScriptAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = [
    'identifier',
    'property_identifier',
    'shorthand_property_identifier',
    'shorthand_property_identifier_pattern',
  ];
  readonly statementTypes = STATEMENTS;
  private readonly bound = new Set<number>();

  run(wanted: WantedNames): Fact[] {
    const v = this.view;
    const src = v.source;
    const nodes = v.ofType(v.root, [...FUNCTION_TYPES, ...BINDER_TYPES, ...CALL_TYPES]);
    const types = nodes.map((n) => v.type(n));
    const ranges: ScopeRange[] = [];
    nodes.forEach((n, i) => {
      if (FUNCTION_TYPES.includes(types[i])) ranges.push({ start: n.startIndex, end: v.end(n), kind: 'function' });
    });
    this.buildScopes(ranges);
    const calls: Node[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (t === 'call_expression' || t === 'new_expression') {
        calls.push(n);
        return;
      }
      if (FUNCTION_TYPES.includes(t)) {
        const scope = this.scopeOf(n);
        this.pendScope(scope, n);
        this.pendTypedParameters(n);
        if (t === 'function_declaration' || t === 'generator_function_declaration') {
          FUNCTION_NAME.lastIndex = n.startIndex;
          const m = FUNCTION_NAME.exec(src);
          if (m) this.bind(this.scopes.outer(scope), m[1], null);
        }
        return;
      }
      switch (t) {
        case 'import_statement':
          this.bindNode(n);
          return;
        case 'class_declaration': {
          CLASS_NAME.lastIndex = n.startIndex;
          const m = CLASS_NAME.exec(src);
          if (m) this.bind(this.scopeOf(n), m[1], null);
          return;
        }
        case 'field_definition':
        case 'public_field_definition': {
          FIELD_NAME.lastIndex = n.startIndex;
          const m = FIELD_NAME.exec(src);
          if (m) this.pendName(`this.${m[1]}`, n);
          return;
        }
        case 'catch_clause':
        case 'for_in_statement':
          this.pendScope(this.scopeOf(n), n);
          return;
        default: {
          // variable_declarator / assignment_expression: file under the bound name(s).
          THIS_MEMBER.lastIndex = n.startIndex;
          const self = THIS_MEMBER.exec(src);
          if (self) {
            this.pendName(`this.${self[1]}`, n);
            return;
          }
          PATTERN_HEAD.lastIndex = n.startIndex;
          const pattern = PATTERN_HEAD.exec(src);
          if (pattern) {
            for (const w of pattern[0].match(/[A-Za-z_$][\w$]*/g) ?? []) this.pendName(w, n);
            return;
          }
          NAME_AT.lastIndex = n.startIndex;
          const name = NAME_AT.exec(src);
          if (name) this.pendName(name[0], n);
        }
      }
    });
    const words = patternWords(wanted.callPatterns);
    const shared = sharedStarts(calls);
    for (const c of calls) if (this.relevant(c, words)) this.callFact(c, shared.has(c.startIndex));
    for (const c of calls) this.argumentReferences(c, words);
    this.containerReferences(words);
    this.nameFacts(wanted);
    return this.facts;
  }

  /**
   * A dangerous callable handed to another call as a value (`xs.map(eval)`,
   * `cmds.forEach(cp.exec)`): whoever receives it calls it with any argument.
   */
  private argumentReferences(call: Node, words: PatternWords): void {
    const v = this.view;
    const args = v.field(call, 'arguments');
    if (!args || v.type(args) !== 'arguments') return;
    for (const a of v.args(args)) this.referenceAt(a, words);
  }

  /**
   * A dangerous callable stored in an array or object literal (`[eval][0](c)`, `{ run: cp.exec }`):
   * whoever reads it out may call it with anything (session 12; as Python's containers).
   */
  private containerReferences(words: PatternWords): void {
    const v = this.view;
    for (const holder of v.ofType(v.root, ['array', 'pair'])) {
      const items = v.type(holder) === 'array' ? v.args(holder) : [v.field(holder, 'value')];
      for (const a of items) if (a) this.referenceAt(a, words);
    }
  }

  private referenceAt(a: Node, words: PatternWords): void {
    const v = this.view;
    const t = v.type(a);
    if (t !== 'identifier' && t !== 'member_expression') return;
    const prefix = calleePrefix(v.source, a.startIndex);
    if (!prefix) return;
    const root = prefix[0];
    if (!words.roots.has(root) && !SPECIAL_WORDS.has(root) && !this.boundSomewhere(root)) return;
    const names = this.evaluate(a, this.scopeOf(a)).filter(isRef);
    if (names.length > 0) this.facts.push({ kind: 'reference', line: v.line(a), names });
  }

  private relevant(call: Node, words: PatternWords): boolean {
    const src = this.view.source;
    let start = call.startIndex;
    if (src.startsWith('new', start)) start = skipSpace(src, start + 3);
    const prefix = calleePrefix(src, start);
    if (!prefix) return true;
    const root = prefix[0];
    return (
      words.roots.has(root) ||
      SPECIAL_WORDS.has(root) ||
      words.lasts.has(prefix[prefix.length - 1]) ||
      (prefix.length > 1 && (prefix[prefix.length - 1] === 'call' || prefix[prefix.length - 1] === 'apply')) ||
      this.boundSomewhere(root) ||
      this.ownMethodRelevant(call, prefix, words)
    );
  }

  /**
   * A chained receiver (`db.collection('d').find(…)`, `getPage().evaluate(…)`, `xs[0].exec(…)`):
   * the text prefix stops at the first call or index, so the method the call itself invokes is
   * read from the tree; it is relevant when a rule matches that method name on any receiver.
   */
  private ownMethodRelevant(call: Node, prefix: readonly string[], words: PatternWords): boolean {
    const v = this.view;
    const fn = v.field(call, 'function');
    if (!fn) return false;
    const target = this.unwrap(fn);
    if (v.type(target) !== 'member_expression') return false;
    const prop = v.field(target, 'property');
    if (!prop) return false;
    const own = v.text(prop);
    return own !== prefix[prefix.length - 1] && (words.lasts.has(own) || own === 'call' || own === 'apply');
  }

  // ── bindings ──────────────────────────────────────────────────────────────────────────

  /**
   * The expressions `f` of a declared type `typeof f` (also inside a union, `typeof f | undefined`):
   * a value of that type is `f` or a stand-in with its signature, so it is treated as `f` (fail
   * closed). Other types (`ReturnType<typeof f>`, plain names) give nothing.
   */
  private typeQueryTargets(declaration: Node): Node[] {
    const v = this.view;
    const annotation = v.field(declaration, 'type');
    if (!annotation || v.type(annotation) !== 'type_annotation') return [];
    const out: Node[] = [];
    const visit = (t: Node, depth: number): void => {
      const tt = v.type(t);
      if (tt === 'type_query') {
        const target = v.named(t)[0];
        if (target) out.push(target);
      } else if ((tt === 'union_type' || tt === 'parenthesized_type') && depth < 8) {
        for (const c of v.named(t)) visit(c, depth + 1);
      }
    };
    for (const t of v.named(annotation)) visit(t, 0);
    return out;
  }

  /**
   * Parameters declared `typeof f`: their names are marked bound so that calls of them are
   * resolved (`run(cmd)` with `run: typeof exec`), and a constructor parameter property
   * (`private readonly run: typeof exec`) is filed under `this.run`.
   */
  private pendTypedParameters(fn: Node): void {
    const v = this.view;
    const params = v.field(fn, 'parameters');
    if (!params || v.type(params) !== 'formal_parameters') return;
    for (const p of v.named(params)) {
      const pt = v.type(p);
      if (pt !== 'required_parameter' && pt !== 'optional_parameter') continue;
      const pattern = v.field(p, 'pattern');
      if (!pattern || v.type(pattern) !== 'identifier' || this.typeQueryTargets(p).length === 0) continue;
      const name = v.text(pattern);
      this.knownNames.add(name);
      if (p.children.some((c) => c !== null && c.startIndex < pattern.startIndex && PARAMETER_PROPERTY.has(c.type)))
        this.pendName(`this.${name}`, p);
    }
  }

  private bind(scope: Scope, name: string, expr: Node | null, value: Value = OPAQUE, path?: string[]): void {
    this.knownNames.add(name);
    if (expr) this.scopes.bindExpr(scope, name, expr, path);
    else this.scopes.bindValue(scope, name, value);
  }

  protected bindNode(n: Node): void {
    if (this.bound.has(n.id)) return;
    this.bound.add(n.id);
    const v = this.view;
    const scope = this.scopeOf(n);
    const t = v.type(n);
    if (FUNCTION_TYPES.includes(t)) {
      const params = v.field(n, 'parameters') ?? v.field(n, 'parameter');
      if (params) this.bindPattern(params, null, [], scope);
      return;
    }
    switch (t) {
      case 'import_statement':
        this.bindImport(n, scope);
        return;
      case 'variable_declarator': {
        const name = v.field(n, 'name');
        const value = v.field(n, 'value');
        const typed = !value && name && v.type(name) === 'identifier' ? this.typeQueryTargets(n) : [];
        if (typed.length > 0) for (const t of typed) this.bind(scope, v.text(name!), t);
        else if (name) this.bindPattern(name, value, [], scope);
        return;
      }
      case 'assignment_expression': {
        const left = v.field(n, 'left');
        const right = v.field(n, 'right');
        if (!left || !right) return;
        const lt = v.type(left);
        if (lt === 'identifier') this.bind(scope, v.text(left), right);
        else if (lt === 'member_expression') {
          const parts = dottedParts(v.text(left));
          if (parts && parts.length === 2 && parts[0] === 'this')
            this.scopes.bindExpr(this.scopes.root, `this.${parts[1]}`, right);
        } else this.bindPattern(left, right, [], scope);
        return;
      }
      case 'field_definition':
      case 'public_field_definition': {
        const name = v.field(n, 'property') ?? v.field(n, 'name');
        const value = v.field(n, 'value');
        const key = name ? `this.${v.text(name).replace(/^#/, '')}` : null;
        if (key && value) this.scopes.bindExpr(this.scopes.root, key, value);
        else if (key) for (const t of this.typeQueryTargets(n)) this.scopes.bindExpr(this.scopes.root, key, t);
        return;
      }
      case 'required_parameter':
      case 'optional_parameter': {
        // A constructor parameter property declared `typeof f` (filed by pendTypedParameters).
        const pattern = v.field(n, 'pattern');
        if (pattern)
          for (const t of this.typeQueryTargets(n))
            this.scopes.bindExpr(this.scopes.root, `this.${v.text(pattern)}`, t);
        return;
      }
      case 'catch_clause': {
        const p = v.field(n, 'parameter');
        if (p) this.bindPattern(p, null, [], scope);
        return;
      }
      case 'for_in_statement': {
        const left = v.field(n, 'left');
        if (left) this.bindPattern(left, null, [], scope);
        return;
      }
    }
  }

  /** Binds the names of a (possibly destructuring) pattern to members of `value`. */
  private bindPattern(p: Node, value: Node | null, path: string[], scope: Scope): void {
    const v = this.view;
    switch (v.type(p)) {
      case 'identifier':
      case 'shorthand_property_identifier_pattern':
        if (value) this.bind(scope, v.text(p), value, OPAQUE, path.length > 0 ? path : undefined);
        else if (path.length === 0 && ANGULAR_INJECTED.has(v.text(p))) this.bind(scope, v.text(p), null, v.text(p));
        else this.bind(scope, v.text(p), null);
        return;
      case 'object_pattern':
        for (const prop of v.named(p)) {
          const pt = v.type(prop);
          if (pt === 'shorthand_property_identifier_pattern')
            this.bindPattern(prop, value, [...path, v.text(prop)], scope);
          else if (pt === 'pair_pattern') {
            const key = v.field(prop, 'key');
            const target = v.field(prop, 'value');
            const keyName = key ? (this.constant(key, scope) ?? v.text(key)) : null;
            if (target)
              this.bindPattern(
                target,
                keyName !== null ? value : null,
                keyName !== null ? [...path, keyName] : path,
                scope,
              );
          } else this.bindPattern(prop, null, path, scope);
        }
        return;
      case 'object_assignment_pattern':
      case 'assignment_pattern': {
        const left = v.field(p, 'left');
        if (left) this.bindPattern(left, value, path, scope);
        return;
      }
      case 'required_parameter':
      case 'optional_parameter': {
        const pattern = v.field(p, 'pattern');
        const typed = pattern && v.type(pattern) === 'identifier' ? this.typeQueryTargets(p) : [];
        if (typed.length > 0) for (const t of typed) this.bind(scope, v.text(pattern!), t);
        else if (pattern) this.bindPattern(pattern, null, path, scope);
        return;
      }
      default:
        // formal_parameters, array_pattern, rest_pattern, lexical binding lists: every identifier, opaque.
        for (const c of v.named(p)) {
          if (v.type(c) === 'type_annotation') continue;
          this.bindPattern(c, null, path, scope);
        }
    }
  }

  private bindImport(n: Node, scope: Scope): void {
    const v = this.view;
    const source = v.field(n, 'source');
    const spec = source ? this.constant(source, scope) : null;
    for (const clause of v.named(n)) {
      const ct = v.type(clause);
      if (ct === 'import_require_clause') {
        const id = v.named(clause).find((c) => v.type(c) === 'identifier');
        const src = v.field(clause, 'source');
        const s = src ? this.constant(src, scope) : null;
        if (id && s !== null) this.bind(scope, v.text(id), null, moduleName(s));
        continue;
      }
      if (ct !== 'import_clause' || spec === null) continue;
      const mod = moduleName(spec);
      for (const part of v.named(clause)) {
        const pt = v.type(part);
        if (pt === 'identifier') this.bind(scope, v.text(part), null, mod);
        else if (pt === 'namespace_import') {
          const id = v.named(part).find((c) => v.type(c) === 'identifier');
          if (id) this.bind(scope, v.text(id), null, mod);
        } else if (pt === 'named_imports') {
          for (const spec of v.named(part)) {
            if (v.type(spec) !== 'import_specifier') continue;
            const name = v.field(spec, 'name');
            const alias = v.field(spec, 'alias');
            if (!name) continue;
            const imported = v.text(name).replace(/^['"]|['"]$/g, '');
            this.bind(scope, v.text(alias ?? name), null, imported === 'default' ? mod : `${mod}.${imported}`);
          }
        }
      }
    }
  }

  // ── resolution ────────────────────────────────────────────────────────────────────────

  protected freeName(name: string): Value[] {
    return [name];
  }

  private unwrap(node: Node): Node {
    let n = node;
    for (let i = 0; i < 8 && WRAPPER_TYPES.has(this.view.type(n)); i++) {
      const inner = this.view.args(n)[0];
      if (!inner) break;
      n = inner;
    }
    return n;
  }

  /** Session 16 (red team): `const { eval: e } = globalThis` binds `globalThis.eval`, which is `eval`. */
  override lookupName(name: string, scope: Scope): Value[] {
    return super.lookupName(name, scope).map((x) => {
      const dot = x.indexOf('.');
      return dot > 0 && GLOBAL_PREFIXES.has(x.slice(0, dot)) && !x.includes('.', dot + 1) ? x.slice(dot + 1) : x;
    });
  }

  evaluate(node: Node, scope: Scope): Value[] {
    const v = this.view;
    const n = this.unwrap(node);
    switch (v.type(n)) {
      case 'identifier':
        return this.lookupName(v.text(n), scope);
      case 'this':
        return ['this'];
      case 'member_expression':
        return this.evalMember(n, scope);
      case 'subscript_expression': {
        const obj = v.field(n, 'object');
        const index = v.field(n, 'index');
        const key = index ? this.constant(index, scope) : null;
        if (!obj) return [OPAQUE];
        // `window[name]` with a computed name: any global function, eval and Function included.
        if (key === null) {
          const bases = this.evaluate(obj, scope);
          if (bases.some((b) => GLOBAL_PREFIXES.has(b))) return [COMPUTED_GLOBAL];
          // Session 16 (red team): a computed member of a module (`cp[m](c)` with `cp =
          // require('child_process')`) is any of its members: `child_process.?` (a family's
          // `child_process.*` row matches it; fail closed).
          const modules = bases.filter((b) => isRef(b) && b !== 'this' && !b.includes('#') && !b.includes('('));
          return modules.length > 0 ? modules.map((b) => member(b, '?')) : [OPAQUE];
        }
        return membersOf(this.evaluate(obj, scope), [key], (b, k) => this.memberOf(b, k));
      }
      case 'call_expression':
        return this.evalCall(n, scope);
      case 'new_expression': {
        const ctor = v.field(n, 'constructor');
        return ctor
          ? this.evaluate(ctor, scope)
              .filter(isRef)
              .map((r) => `${r}#`)
          : [OPAQUE];
      }
      case 'string':
      case 'template_string':
      case 'binary_expression': {
        if (v.type(n) === 'binary_expression') {
          const op = v.field(n, 'operator');
          const o = op ? v.type(op) : '';
          if (o === '||' || o === '??' || o === '&&') {
            const l = v.field(n, 'left');
            const r = v.field(n, 'right');
            return [...(l ? this.evaluate(l, scope) : []), ...(r ? this.evaluate(r, scope) : [])];
          }
        }
        const c = this.constant(n, scope);
        if (c !== null) return [constValue(c)];
        return this.dynamicString(n, scope) ? [dynamicMarker(v.text(n))] : [OPAQUE];
      }
      case 'ternary_expression': {
        const a = v.field(n, 'consequence');
        const b = v.field(n, 'alternative');
        return [...(a ? this.evaluate(a, scope) : []), ...(b ? this.evaluate(b, scope) : [])];
      }
      case 'sequence_expression': {
        const parts = v.args(n);
        return parts.length > 0 ? this.evaluate(parts[parts.length - 1], scope) : [OPAQUE];
      }
      case 'assignment_expression': {
        const right = v.field(n, 'right');
        return right ? this.evaluate(right, scope) : [OPAQUE];
      }
      default:
        return [OPAQUE];
    }
  }

  /** `window.eval` → `eval`: a global prefix on an unbound root is dropped. */
  private memberOf(base: Value, name: string): Value {
    return GLOBAL_PREFIXES.has(base) ? name : member(base, name);
  }

  /** Values of a dotted name (`this.x` first through its file-wide binding, global prefixes dropped). */
  private resolveDotted(parts: readonly string[], scope: Scope): Value[] {
    if (parts[0] === 'this' && parts.length >= 2) {
      const key = `this.${parts[1]}`;
      if (this.boundSomewhere(key)) return membersOf(this.lookupName(key, this.scopes.root), parts.slice(2));
    }
    if (parts.length === 1) return parts[0] === 'this' ? ['this'] : this.lookupName(parts[0], scope);
    return membersOf(this.lookupName(parts[0], scope), parts.slice(1), (b, p) => this.memberOf(b, p));
  }

  private evalMember(n: Node, scope: Scope): Value[] {
    const v = this.view;
    const parts = dottedParts(v.text(n));
    if (parts) return this.resolveDotted(parts, scope);
    const obj = v.field(n, 'object');
    const prop = v.field(n, 'property');
    if (!obj || !prop) return [OPAQUE];
    // Session 16 (red team): `(() => {}).constructor` and `Object.getPrototypeOf(async function () {}).constructor`
    // are the Function constructor (or its async / generator kin, which compile code the same way).
    if (v.text(prop) === 'constructor' && this.functionValue(obj)) return ['Function'];
    return membersOf(this.evaluate(obj, scope), [v.text(prop).replace(/^#/, '')], (b, p) => this.memberOf(b, p));
  }

  /** A function written in place, or `Object.getPrototypeOf` / `Reflect.getPrototypeOf` of one. */
  private functionValue(node: Node): boolean {
    const v = this.view;
    const n = this.unwrap(node);
    const t = v.type(n);
    if (t === 'arrow_function' || t === 'function_expression' || t === 'function' || t === 'generator_function')
      return true;
    if (t !== 'call_expression') return false;
    const fn = v.field(n, 'function');
    const args = this.argNodes(v.field(n, 'arguments'));
    return (
      !!fn &&
      /^(?:Object|Reflect)\s*\.\s*getPrototypeOf$/.test(v.text(fn)) &&
      args.length === 1 &&
      this.functionValue(args[0])
    );
  }

  private argNodes(argsNode: Node | null): Node[] {
    if (!argsNode) return [];
    const v = this.view;
    if (v.type(argsNode) === 'template_string') return [argsNode];
    // A spread (`eval(...[code])`, `new Function(...parts)`) stays in place as an argument
    // whose value is unknown (never constant): dropping it let an eval-like sink see no code.
    return v.args(argsNode);
  }

  /** Candidate names of what a call invokes (`f.call(...)` / `f.apply(...)` invoke f). */
  private callees(fn: Node, scope: Scope): { names: Value[]; offset: number } {
    const v = this.view;
    const names = this.evaluate(fn, scope).filter(isRef);
    let offset = 0;
    const target = this.unwrap(fn);
    if (v.type(target) === 'member_expression') {
      const prop = v.field(target, 'property');
      const obj = v.field(target, 'object');
      const method = prop ? v.text(prop) : '';
      if (obj && (method === 'call' || method === 'apply')) {
        names.push(...this.evaluate(obj, scope).filter(isRef));
        offset = method === 'call' ? 1 : 0;
      }
    }
    return { names: [...new Set(names)], offset };
  }

  private evalCall(n: Node, scope: Scope): Value[] {
    const v = this.view;
    const fn = v.field(n, 'function');
    if (!fn) return [OPAQUE];
    let args: Node[] | undefined;
    const first = (): Node | undefined => (args ??= this.argNodes(v.field(n, 'arguments')))[0];
    const firstConstant = (): string | null => {
      const a = first();
      return a ? this.constant(a, scope) : null;
    };
    if (v.type(fn) === 'import') {
      const spec = firstConstant();
      return [spec === null ? OPAQUE : moduleName(spec)];
    }
    const target = this.unwrap(fn);
    if (v.type(target) === 'member_expression') {
      const prop = v.field(target, 'property');
      const obj = v.field(target, 'object');
      if (prop && obj && v.text(prop) === 'bind') return this.evaluate(obj, scope);
    }
    const out: Value[] = [];
    for (const callee of this.evaluate(fn, scope).filter(isRef)) {
      if (REQUIRE_LIKE.has(callee)) {
        const spec = firstConstant();
        out.push(spec === null ? OPAQUE : moduleName(spec));
      } else if (TRANSPARENT_WRAPPERS.has(callee)) {
        const a = first();
        if (a) out.push(...this.evaluate(a, scope));
      } else if (callee === 'Reflect.get') {
        // Session 16 (red team): `Reflect.get(globalThis, 'eval')` is `globalThis.eval`.
        const [o, k] = (args ??= this.argNodes(v.field(n, 'arguments')));
        const key = k ? this.constant(k, scope) : null;
        if (o && key !== null) out.push(...membersOf(this.evaluate(o, scope), [key], (b, p) => this.memberOf(b, p)));
        else out.push(OPAQUE);
      } else if (callee === 'module.createRequire') {
        out.push('module.createRequire()');
      } else {
        out.push(resultName(callee, firstConstant));
      }
    }
    return out.length > 0 ? out : [OPAQUE];
  }

  // ── expression views (ExprOps) ───────────────────────────────────────────────────────

  protected readonly arms: StringArms = { binary: 'binary_expression', concat: '+', names: ['identifier'] };

  protected unwrapExpr(node: Node): Node {
    return this.unwrap(node);
  }

  protected ownConstant(n: Node): string | null {
    const v = this.view;
    switch (v.type(n)) {
      case 'string':
        return unescapeLiteral(v.text(n).slice(1, -1));
      case 'template_string':
        if (v.named(n).some((c) => v.type(c) === 'template_substitution')) return null;
        return unescapeLiteral(v.text(n).slice(1, -1));
      default:
        return null;
    }
  }

  protected ownDynamicString(n: Node): boolean {
    const v = this.view;
    return v.type(n) === 'template_string' && v.named(n).some((c) => v.type(c) === 'template_substitution');
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  private callFact(node: Node, sharedStart: boolean): void {
    const v = this.view;
    const scope = this.scopeOf(node);
    // `a.b.c(` resolves from the text (not for `.call`/`.apply`/`.bind`, which need the tree).
    const plain = sharedStart ? null : plainCallee(v.source, node.startIndex);
    const last = plain?.parts[plain.parts.length - 1];
    let names: Value[];
    let offset = 0;
    if (
      plain &&
      plain.parts[0] !== 'new' &&
      plain.parts[0] !== 'import' &&
      last !== 'call' &&
      last !== 'apply' &&
      last !== 'bind'
    ) {
      names = this.resolveDotted(plain.parts, scope).filter(isRef);
    } else {
      const isNew = v.type(node) === 'new_expression';
      const fn = v.field(node, isNew ? 'constructor' : 'function');
      if (!fn) return;
      if (isNew) names = this.evaluate(fn, scope).filter(isRef);
      else if (v.type(fn) === 'import') names = ['import'];
      else ({ names, offset } = this.callees(fn, scope));
    }
    // `page.evaluate(…)` on a page or frame the snippet receives (a parameter, an unresolved
    // name): the headless-browser family by its conventional receiver name, fail closed; the
    // rule still requires code built at run time.
    const callee = v.field(node, 'function');
    const page = callee && v.type(callee) === 'member_expression' ? PAGE_CALLEE.exec(v.text(callee)) : null;
    if (page && PAGE_EVAL_METHODS.has(page[2])) names = [...names, `${page[1]}.${page[2]}`];
    if (callee && v.type(callee) === 'identifier' && ANGULAR_SERVICES.has(v.text(callee)))
      names = [...names, v.text(callee)];
    if (names.length === 0) return;
    const argsNode = v.field(node, 'arguments');
    this.facts.push({
      kind: 'call',
      line: v.line(node),
      names,
      site: lazySite(() => makeCallSite({ node, scope, ops: this, args: this.argNodes(argsNode).slice(offset) })),
    });
  }

  private nameFacts(wanted: WantedNames): void {
    const v = this.view;
    const names = new Set(wanted.property_write);
    if (wanted.syntax.has('dangerouslySetInnerHTML')) names.add('dangerouslySetInnerHTML');
    if (wanted.syntax.has('rejectUnauthorized:false')) names.add('rejectUnauthorized');
    if (wanted.syntax.has('injectedJavaScript={computed}')) for (const n of WEBVIEW_SCRIPT_PROPS) names.add(n);
    if (wanted.syntax.has('NODE_TLS_REJECT_UNAUTHORIZED=0')) names.add('NODE_TLS_REJECT_UNAUTHORIZED');
    for (const { index, name } of occurrences(v.source, names)) {
      const node = v.namedAt(index, index + name.length);
      if (!node) continue;
      const t = v.type(node);
      if (t === 'comment') continue;
      const line = v.line(node);
      if (wanted.property_write.has(name) && t === 'property_identifier') {
        const parent = node.parent;
        const grand = parent?.parent;
        if (
          parent &&
          grand &&
          v.type(parent) === 'member_expression' &&
          /assignment_expression$/.test(v.type(grand)) &&
          v.field(grand, 'left')?.id === parent.id
        ) {
          this.fact({ kind: 'property_write', line, name });
        }
      }
      if (
        name === 'dangerouslySetInnerHTML' &&
        wanted.syntax.has(name) &&
        t === 'property_identifier' &&
        node.parent &&
        v.type(node.parent) === 'jsx_attribute'
      ) {
        this.fact({ kind: 'syntax', line, name });
      }
      // `<WebView injectedJavaScript={code} />`: React Native runs the string in the page; a
      // string literal (or `{'…'}`) is the snippet's own code, anything else is computed.
      if (
        WEBVIEW_SCRIPT_PROPS.has(name) &&
        wanted.syntax.has('injectedJavaScript={computed}') &&
        t === 'property_identifier' &&
        node.parent &&
        v.type(node.parent) === 'jsx_attribute'
      ) {
        const value = v.named(node.parent)[1];
        const inner = value && v.type(value) === 'jsx_expression' ? v.named(value)[0] : null;
        if (inner && v.type(inner) !== 'string')
          this.fact({ kind: 'syntax', line, name: 'injectedJavaScript={computed}', detail: `${name}={…}` });
      }
      if (name === 'rejectUnauthorized' && wanted.syntax.has('rejectUnauthorized:false')) {
        const value = this.assignedValue(node);
        if (value !== null && FALSE_LITERALS.has(value))
          this.fact({ kind: 'syntax', line, name: 'rejectUnauthorized:false', detail: 'rejectUnauthorized: false' });
      }
      if (name === 'NODE_TLS_REJECT_UNAUTHORIZED' && wanted.syntax.has('NODE_TLS_REJECT_UNAUTHORIZED=0')) {
        const value = this.assignedValue(node);
        if (value !== null && /^(['"`]?)0\1$/.test(value))
          this.fact({
            kind: 'syntax',
            line,
            name: 'NODE_TLS_REJECT_UNAUTHORIZED=0',
            detail: 'NODE_TLS_REJECT_UNAUTHORIZED = 0',
          });
      }
    }
  }

  /** Text of the value given to a key/property (`{ key: value }`, `x.key = value`, `x["key"] = value`). */
  private assignedValue(node: Node): string | null {
    const v = this.view;
    let cur: Node | null = node;
    for (let i = 0; cur && i < 4; i++) {
      const parent: Node | null = cur.parent;
      if (!parent) return null;
      const pt = v.type(parent);
      if (pt === 'pair' && v.field(parent, 'key')?.id === cur.id) {
        const value = v.field(parent, 'value');
        return value ? v.text(value) : null;
      }
      if (pt === 'assignment_expression' && v.field(parent, 'left')?.id === cur.id) {
        const value = v.field(parent, 'right');
        return value ? v.text(value) : null;
      }
      cur = parent;
    }
    return null;
  }
}

function skipSpace(src: string, i: number): number {
  let j = i;
  while (j < src.length && /\s/.test(src[j])) j++;
  return j;
}

export const javascriptAnalyzer: Analyzer = {
  analyze: (view: SyntaxView, wanted: WantedNames) => new JavaScriptAnalysis(view).run(wanted),
};
