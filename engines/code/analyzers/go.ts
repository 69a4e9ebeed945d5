// Go: imports (default package names, aliases, dot-imports), `:=` / `var` / `=` re-bindings
// (`run := exec.Command`), method values on call results, and `InsecureSkipVerify: true`.
// A snippet without imports still resolves the standard package names it uses (`exec` →
// `os/exec`) as long as nothing in the file binds that name.
import type { Node } from 'web-tree-sitter';
import { type ExprOps, type Fact, lazySite, makeCallSite } from '../facts.js';
import { constValue, isRef, membersOf, OPAQUE, type Scope, type ScopeRange, type Value } from '../scopes.js';
import { dottedParts, unescapeLiteral, type SyntaxView } from '../syntax.js';
import {
  AnalysisBase,
  type StringArms,
  type Analyzer,
  calleePrefix,
  dynamicMarker,
  isDynamicMarker,
  occurrences,
  patternWords,
  plainCallee,
  sharedStarts,
  resultName,
  type PatternWords,
  type WantedNames,
} from './base.js';

/** Parameter types whose methods resolve as an instance's (`os/exec.Cmd#Run`). */
const TYPED_PARAMETERS = new Set([
  'os/exec.Cmd',
  'golang.org/x/sys/execabs.Cmd',
  'github.com/dop251/goja.Runtime',
  'github.com/robertkrimen/otto.Otto',
  'github.com/traefik/yaegi/interp.Interpreter',
]);
const FUNCTION_TYPES = ['function_declaration', 'method_declaration', 'func_literal'];
const BINDER_TYPES = [
  'import_spec',
  'short_var_declaration',
  'var_spec',
  'const_spec',
  'assignment_statement',
  'range_clause',
];
const STATEMENTS = new Set([
  'short_var_declaration',
  'assignment_statement',
  'expression_statement',
  'return_statement',
  'var_spec',
]);

/** Standard packages by the name code uses for them, for snippets that omit their imports. */
const WELL_KNOWN: Readonly<Record<string, string>> = {
  exec: 'os/exec',
  os: 'os',
  syscall: 'syscall',
  unix: 'golang.org/x/sys/unix',
  md5: 'crypto/md5',
  sha1: 'crypto/sha1',
  tls: 'crypto/tls',
  http: 'net/http',
  net: 'net',
  ioutil: 'io/ioutil',
  io: 'io',
  sql: 'database/sql',
  fmt: 'fmt',
};

const NAMES_AT = /(?:var\s+|const\s+)?([A-Za-z_]\w*(?:\s*,\s*[A-Za-z_]\w*)*)/y;

/** The name a package is referred to by when imported without an alias. */
export function defaultPackageName(path: string): string {
  const segs = path.split('/');
  let last = segs[segs.length - 1];
  if (/^v\d+$/.test(last) && segs.length > 1) last = segs[segs.length - 2];
  return last
    .replace(/\.v\d+$/, '')
    .replace(/^go-/, '')
    .replace(/\.go$/, '')
    .replace(/-/g, '_');
}

class GoAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = ['identifier', 'field_identifier'];
  readonly statementTypes = STATEMENTS;
  private readonly bound = new Set<number>();
  private readonly dotImports: string[] = [];

  run(wanted: WantedNames): Fact[] {
    const v = this.view;
    const src = v.source;
    const nodes = v.ofType(v.root, [...FUNCTION_TYPES, ...BINDER_TYPES, 'call_expression', 'composite_literal']);
    const types = nodes.map((n) => v.type(n));
    const ranges: ScopeRange[] = [];
    nodes.forEach((n, i) => {
      if (FUNCTION_TYPES.includes(types[i])) ranges.push({ start: n.startIndex, end: v.end(n), kind: 'function' });
    });
    this.buildScopes(ranges);
    const calls: Node[] = [];
    const literals: Node[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (t === 'call_expression') calls.push(n);
      else if (t === 'composite_literal') literals.push(n);
      else if (t === 'import_spec') this.bindNode(n);
      else if (FUNCTION_TYPES.includes(t)) {
        this.pendScope(this.scopeOf(n), n);
        // Parameters typed as a process command are names worth resolving (see processType).
        const params = v.field(n, 'parameters');
        if (params && /Cmd|Runtime|Otto|Interpreter/.test(v.text(params)))
          for (const decl of v.named(params)) for (const name of v.fields(decl, 'name')) this.pendName(v.text(name), n);
      } else if (t === 'range_clause') this.pendScope(this.scopeOf(n), n);
      else {
        NAMES_AT.lastIndex = n.startIndex;
        const m = NAMES_AT.exec(src);
        if (m) for (const w of m[1].split(/\s*,\s*/)) this.pendName(w, n);
      }
    });
    const words = patternWords(wanted.callPatterns);
    const roots = new Set([...words.roots].map((r) => defaultPackageName(r)));
    const shared = sharedStarts(calls);
    for (const c of calls) if (this.relevant(c, words, roots)) this.callFact(c, shared.has(c.startIndex));
    for (const l of literals) this.literalFact(l);
    nodes.forEach((n, i) => {
      if (types[i] === 'var_spec') this.zeroValueFact(n);
    });
    this.referenceFacts();
    this.syntaxFacts(wanted);
    return this.facts;
  }

  /** Session 16 (red team): `var cmd exec.Cmd` (no value) is a zero `exec.Cmd`, as `exec.Cmd{}` is. */
  private zeroValueFact(node: Node): void {
    const v = this.view;
    const type = v.field(node, 'type');
    if (!type || v.field(node, 'value')) return;
    const parts = dottedParts(v.text(type));
    if (!parts || parts.length < 2) return;
    const scope = this.scopeOf(node);
    const names = membersOf(this.lookupName(parts[0], scope), parts.slice(1)).filter(isRef);
    if (names.length > 0)
      this.facts.push({
        kind: 'call',
        line: v.line(node),
        names,
        site: lazySite(() => makeCallSite({ node, scope, ops: this, args: [] })),
      });
  }

  /**
   * Session 16 (red team): a package function handed over as a value, passed as an argument
   * (`reflect.ValueOf(exec.Command)`) or stored in a literal (`map[string]…{"run": exec.Command}`):
   * whoever holds it may call it with anything, so it is a reference fact.
   */
  private referenceFacts(): void {
    const v = this.view;
    for (const n of v.ofType(v.root, ['selector_expression'])) {
      const parent = n.parent;
      const pt = parent ? v.type(parent) : '';
      if (pt !== 'argument_list' && pt !== 'literal_element' && pt !== 'keyed_element' && pt !== 'element') continue;
      const parts = dottedParts(v.text(n));
      if (!parts || parts.length !== 2) continue;
      const names = membersOf(this.lookupName(parts[0], this.scopeOf(n)), parts.slice(1)).filter(isRef);
      if (names.length > 0) this.facts.push({ kind: 'reference', line: v.line(n), names });
    }
  }

  private relevant(call: Node, words: PatternWords, roots: ReadonlySet<string>): boolean {
    const prefix = calleePrefix(this.view.source, call.startIndex);
    if (!prefix || this.dotImports.length > 0) return true;
    const root = prefix[0];
    return roots.has(root) || words.lasts.has(prefix[prefix.length - 1]) || this.boundSomewhere(root);
  }

  // ── bindings ──────────────────────────────────────────────────────────────────────────

  private bind(scope: Scope, name: string, expr: Node | null, value: Value = OPAQUE): void {
    if (name === '_') return;
    this.knownNames.add(name);
    if (expr) this.scopes.bindExpr(scope, name, expr);
    else this.scopes.bindValue(scope, name, value);
  }

  /**
   * A parameter declared as an os/exec (or execabs) Cmd is that command (`func f(c *exec.Cmd) {
   * c.Run() }`): its value is an instance, so its methods resolve (`os/exec.Cmd#Run`) and any of
   * them falls under the process family. Likewise (session 12) the embedded interpreters' types
   * (`vm *goja.Runtime`, `i *interp.Interpreter`): their Run/Eval methods run code. Other
   * parameter types stay opaque.
   */
  private processType(type: Node | null, scope: Scope): Value | null {
    if (!type) return null;
    const parts = dottedParts(this.view.text(type).replace(/^\*+/, ''));
    if (!parts || parts.length !== 2) return null;
    const refs = membersOf(this.lookupName(parts[0], scope), [parts[1]]).filter(isRef);
    const cmd = refs.find((r) => TYPED_PARAMETERS.has(r));
    return cmd ? `${cmd}#` : null;
  }

  protected bindNode(n: Node): void {
    if (this.bound.has(n.id)) return;
    this.bound.add(n.id);
    const v = this.view;
    const scope = this.scopeOf(n);
    const t = v.type(n);
    if (FUNCTION_TYPES.includes(t)) {
      for (const list of [v.field(n, 'receiver'), v.field(n, 'parameters')]) {
        if (!list) continue;
        for (const decl of v.named(list)) {
          const typed = this.processType(v.field(decl, 'type'), scope);
          for (const name of v.fields(decl, 'name')) this.bind(scope, v.text(name), null, typed ?? OPAQUE);
        }
      }
      return;
    }
    switch (t) {
      case 'import_spec': {
        const path = v.field(n, 'path');
        const spec = path ? this.constant(path, scope) : null;
        if (spec === null) return;
        const alias = v.field(n, 'name');
        const at = alias ? v.type(alias) : '';
        if (at === 'dot') this.dotImports.push(spec);
        else if (at !== 'blank_identifier')
          this.bind(this.scopes.root, alias ? v.text(alias) : defaultPackageName(spec), null, spec);
        return;
      }
      case 'short_var_declaration':
      case 'assignment_statement': {
        const left = v.field(n, 'left');
        const right = v.field(n, 'right');
        if (left) this.bindLists(v.args(left), right ? v.args(right) : [], scope);
        return;
      }
      case 'var_spec':
      case 'const_spec': {
        const value = v.field(n, 'value');
        this.bindLists(v.fields(n, 'name'), value ? v.args(value) : [], scope);
        return;
      }
      case 'range_clause': {
        const left = v.field(n, 'left');
        if (left) for (const id of v.ofType(left, ['identifier'])) this.bind(scope, v.text(id), null);
        return;
      }
    }
  }

  private bindLists(names: readonly Node[], values: readonly Node[], scope: Scope): void {
    // `w, err := cmd.StdinPipe()`: one call giving several results; the first name is its first
    // result, named after the call (session 15); the others (errors, flags) stay unknown.
    const multi = names.length > 1 && values.length === 1 && this.view.type(values[0]) === 'call_expression';
    names.forEach((name, i) => {
      if (this.view.type(name) !== 'identifier') return;
      const value = names.length === values.length ? values[i] : multi && i === 0 ? values[0] : null;
      this.bind(scope, this.view.text(name), value);
    });
  }

  // ── resolution ────────────────────────────────────────────────────────────────────────

  protected freeName(name: string): Value[] {
    const out: Value[] = this.dotImports.map((p) => `${p}.${name}`);
    out.push(WELL_KNOWN[name] ?? name);
    return out;
  }

  evaluate(node: Node, scope: Scope): Value[] {
    const v = this.view;
    switch (v.type(node)) {
      case 'identifier':
      case 'package_identifier':
        return this.lookupName(v.text(node), scope);
      case 'selector_expression': {
        const parts = dottedParts(v.text(node));
        if (parts) return membersOf(this.lookupName(parts[0], scope), parts.slice(1));
        const operand = v.field(node, 'operand');
        const field = v.field(node, 'field');
        if (!operand || !field) return [OPAQUE];
        return membersOf(this.evaluate(operand, scope), [v.text(field)]);
      }
      case 'call_expression': {
        const fn = v.field(node, 'function');
        if (!fn) return [OPAQUE];
        const callees = this.evaluate(fn, scope).filter(isRef);
        if (callees.length === 0) return [OPAQUE];
        let args: Node[] | undefined;
        const first = () => (args ??= this.argNodes(v.field(node, 'arguments')))[0];
        if (callees.includes('fmt.Sprintf')) {
          const format = first();
          if (format && this.stringy(format, scope)) return [dynamicMarker(v.text(node))];
        }
        return callees.map((c) => resultName(c, () => (first() ? this.constant(first()!, scope) : null)));
      }
      case 'parenthesized_expression':
      case 'unary_expression': {
        const inner = v.args(node).at(-1);
        return inner ? this.evaluate(inner, scope) : [OPAQUE];
      }
      case 'interpreted_string_literal':
      case 'raw_string_literal':
      case 'binary_expression': {
        const c = this.constant(node, scope);
        if (c !== null) return [constValue(c)];
        return this.dynamicString(node, scope) ? [dynamicMarker(v.text(node))] : [OPAQUE];
      }
      default:
        return [OPAQUE];
    }
  }

  private argNodes(argsNode: Node | null): Node[] {
    return argsNode ? this.view.args(argsNode) : [];
  }

  protected readonly arms: StringArms = {
    binary: 'binary_expression',
    concat: '+',
    paren: 'parenthesized_expression',
    names: ['identifier'],
  };

  protected ownConstant(node: Node): string | null {
    const v = this.view;
    switch (v.type(node)) {
      case 'interpreted_string_literal':
        return unescapeLiteral(v.text(node).slice(1, -1));
      case 'raw_string_literal':
        return v.text(node).slice(1, -1);
      default:
        return null;
    }
  }

  protected dynamicNameValues(node: Node, scope: Scope): Value[] {
    return this.evaluate(node, scope);
  }

  protected ownDynamicString(node: Node, scope: Scope): boolean {
    return this.view.type(node) === 'call_expression' && this.evaluate(node, scope).some(isDynamicMarker);
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  private callFact(node: Node, sharedStart: boolean): void {
    const v = this.view;
    const scope = this.scopeOf(node);
    const plain = sharedStart ? null : plainCallee(v.source, node.startIndex);
    let names: Value[];
    if (plain) names = membersOf(this.lookupName(plain.parts[0], scope), plain.parts.slice(1)).filter(isRef);
    else {
      const fn = v.field(node, 'function');
      if (!fn) return;
      names = this.evaluate(fn, scope).filter(isRef);
    }
    if (names.length === 0) return;
    const argsNode = v.field(node, 'arguments');
    this.facts.push({
      kind: 'call',
      line: v.line(node),
      names,
      site: lazySite(() => makeCallSite({ node, scope, ops: this, args: this.argNodes(argsNode) })),
    });
  }

  /**
   * A struct literal builds a value the way a constructor call would: `exec.Cmd{Path: p}` or
   * `&exec.Cmd{…}` is a command ready to run, matched like a call of the type's name.
   */
  private literalFact(node: Node): void {
    const v = this.view;
    const type = v.field(node, 'type');
    if (!type) return;
    const parts = dottedParts(v.text(type));
    if (!parts) return;
    const scope = this.scopeOf(node);
    const names = membersOf(this.lookupName(parts[0], scope), parts.slice(1)).filter(isRef);
    if (names.length === 0) return;
    this.facts.push({
      kind: 'call',
      line: v.line(node),
      names,
      site: lazySite(() => makeCallSite({ node, scope, ops: this, args: [] })),
    });
  }

  /** `InsecureSkipVerify: true` in a literal, or `x.InsecureSkipVerify = true`. */
  private syntaxFacts(wanted: WantedNames): void {
    if (!wanted.syntax.has('InsecureSkipVerify:true')) return;
    const v = this.view;
    for (const { index, name } of occurrences(v.source, ['InsecureSkipVerify'])) {
      const node = v.namedAt(index, index + name.length);
      if (!node || !/identifier$/.test(v.type(node))) continue;
      let cur: Node | null = node;
      for (let i = 0; cur && i < 4; i++) {
        const parent: Node | null = cur.parent;
        if (!parent) break;
        const pt = v.type(parent);
        const value =
          pt === 'keyed_element' ? v.named(parent)[1] : pt === 'assignment_statement' ? v.field(parent, 'right') : null;
        if (value) {
          if (v.text(value).trim() === 'true')
            this.fact({
              kind: 'syntax',
              line: v.line(node),
              name: 'InsecureSkipVerify:true',
              detail: 'InsecureSkipVerify: true',
            });
          break;
        }
        cur = parent;
      }
    }
  }
}

export const goAnalyzer: Analyzer = {
  analyze: (view: SyntaxView, wanted: WantedNames) => new GoAnalysis(view).run(wanted),
};
