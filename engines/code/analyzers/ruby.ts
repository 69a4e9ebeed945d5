// Ruby: receiverless calls are Kernel methods unless the enclosing class or module (or the top
// level) defines a method of that name (a `def eval` in another class does not shadow Kernel's);
// `Kernel.x`, `::Kernel.x`, `obj.send(:x, ...)` / `public_send` / `__send__`, method objects
// (`m = method(:system); m.call(...)`), local/constant/instance-variable re-bindings,
// `Net::HTTP` as `Net.HTTP`, backticks and `%x()`.
import type { Node } from 'web-tree-sitter';
import { type ExprOps, type Fact, lazySite, makeCallSite } from '../facts.js';
import { constValue, isRef, member, membersOf, OPAQUE, type Scope, type ScopeRange, type Value } from '../scopes.js';
import { unescapeLiteral, type SyntaxView } from '../syntax.js';
import {
  AnalysisBase,
  type StringArms,
  type Analyzer,
  calleePrefix,
  dynamicMarker,
  occurrences,
  patternWords,
  plainCallee,
  sharedStarts,
  resultName,
  type PatternWords,
  type WantedNames,
} from './base.js';

/** The variable a `name << value` statement appends to, or null (a shift of a constant, any other operator). */
function shovelTarget(v: SyntaxView, n: Node): string | null {
  const left = v.field(n, 'left');
  const op = v.field(n, 'operator');
  if (!left || !op || v.text(op) !== '<<') return null;
  const lt = v.type(left);
  return lt === 'identifier' || lt === 'instance_variable' || lt === 'class_variable' ? v.text(left) : null;
}

const GATE_TYPES = ['method', 'singleton_method', 'class', 'module', 'singleton_class'];
const BLOCK_TYPES = ['block', 'do_block', 'lambda'];
const BINDER_TYPES = ['assignment', 'operator_assignment', 'for'];
const STATEMENTS = new Set(['assignment', 'operator_assignment', 'return']);
const SEND = new Set(['send', 'public_send', '__send__']);
/** A send whose method name is computed at run time (rule rb.dynamic-send). */
const DYNAMIC_SEND = 'Kernel.send(dynamic)';
/**
 * A block argument naming a method computed at run time (`Kernel.tap(&params[:m].to_sym)`:
 * Symbol#to_proc calls that public method on what the block is given); argument 0 is the
 * expression the symbol is made from (rule rb.block-method-from-input).
 */
export const RUBY_BLOCK_METHOD = 'Kernel.public_send(block)';
const TO_PROC = new Set(['to_sym', 'intern', 'to_proc']);
const METHOD_OBJECT_CALLS = new Set(['call', '()', '[]', '===', 'yield']);
/** Calls on a method object that return the same method in another form (session 16). */
const METHOD_OBJECT_WRAPPERS = new Set(['to_proc', 'curry', 'unbind', 'bind', 'bind_call']);
/** Calls that make a method object from a symbol (`method(:system)`, `Kernel.instance_method(:system)`). */
const METHOD_OBJECT_MAKERS = new Set(['method', 'instance_method', 'public_method', 'public_instance_method']);
/** Private Kernel methods that `obj.send(:name)` reaches on any object. */
const KERNEL_PRIVATE = new Set([
  'system',
  'exec',
  'spawn',
  '`',
  'eval',
  'open',
  'fork',
  'syscall',
  'instance_eval',
  'class_eval',
  'binding',
]);
const SPECIAL_WORDS = new Set([...SEND, 'method', 'Kernel', 'Object', 'binding']);

const TARGET = /(@{0,2}[A-Za-z_]\w*)\s*(?:=(?![=~>])|[-+*/%|&^]{1,2}=|\|\|=|&&=)/y;

class RubyAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = ['identifier', 'constant', 'instance_variable'];
  readonly statementTypes = STATEMENTS;
  private readonly bound = new Set<number>();
  /** Method name → the class/module bodies that define it (`top`: the file's top level). */
  private readonly definedMethods = new Map<string, Set<number | 'top'>>();

  run(wanted: WantedNames): Fact[] {
    const v = this.view;
    const src = v.source;
    const nodes = v.ofType(v.root, [
      ...GATE_TYPES,
      ...BLOCK_TYPES,
      ...BINDER_TYPES,
      'call',
      'block_argument',
      'subshell',
      'heredoc_beginning',
      'heredoc_body',
      'binary',
    ]);
    const types = nodes.map((n) => v.type(n));
    const ranges: ScopeRange[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (GATE_TYPES.includes(t)) ranges.push({ start: n.startIndex, end: v.end(n), kind: 'gate' });
      else if (BLOCK_TYPES.includes(t)) ranges.push({ start: n.startIndex, end: v.end(n), kind: 'function' });
    });
    this.buildScopes(ranges);
    const calls: Node[] = [];
    // Heredoc bodies follow their beginnings in the same order: a `<<\`EOF\`` beginning makes
    // its body a command line, reported on the beginning and on each interpolated body line.
    const heredocs: boolean[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (t === 'call') calls.push(n);
      else if (t === 'block_argument') this.blockMethodFact(n);
      else if (t === 'heredoc_beginning') {
        const command = /^<<[-~]?`/.test(v.text(n));
        heredocs.push(command);
        if (command && wanted.syntax.has('subshell'))
          this.fact({ kind: 'syntax', line: v.line(n), name: 'subshell', detail: 'backtick heredoc' });
      } else if (t === 'heredoc_body') {
        if (heredocs.shift() === true && wanted.syntax.has('subshell')) {
          const lines = new Set(v.ofType(n, ['interpolation']).map((x) => v.line(x)));
          for (const line of lines) this.fact({ kind: 'syntax', line, name: 'subshell', detail: 'backtick heredoc' });
        }
      } else if (t === 'subshell') {
        if (wanted.syntax.has('subshell'))
          this.fact({
            kind: 'syntax',
            line: v.line(n),
            name: 'subshell',
            detail: src[n.startIndex] === '`' ? 'backticks' : '%x()',
          });
      } else if (t === 'method') {
        const m = /def\s+([A-Za-z_]\w*[?!=]?)/y;
        m.lastIndex = n.startIndex;
        const name = m.exec(src);
        if (name) {
          const owners = this.definedMethods.get(name[1]) ?? new Set<number | 'top'>();
          owners.add(this.ownerOf(n));
          this.definedMethods.set(name[1], owners);
        }
        this.pendScope(this.scopeOf(n), n);
      } else if (t === 'singleton_method' || BLOCK_TYPES.includes(t) || t === 'for') {
        if (t === 'singleton_method') this.singletonDefinition(n);
        this.pendScope(this.scopeOf(n), n);
      } else if (t === 'binary') {
        // `s << x` appends to the string or array `s`: it rebinds `s` (a constant is no longer one).
        const left = shovelTarget(v, n);
        if (left) this.pendName(left, n);
      } else if (t === 'assignment' || t === 'operator_assignment') {
        if (t === 'assignment' && wanted.syntax.has('marshal_cookies')) this.marshalCookies(n);
        TARGET.lastIndex = n.startIndex;
        const m = TARGET.exec(src);
        if (m) this.pendName(m[1], n);
        else this.pendScope(this.scopeOf(n), n);
      }
    });
    const words = patternWords(wanted.callPatterns, 'Kernel');
    const shared = sharedStarts(calls);
    for (const c of calls) if (this.relevant(c, words)) this.callFact(c, shared.has(c.startIndex));
    if (src.includes('method')) this.methodObjectReferences(calls);
    this.syntaxFacts(wanted);
    return this.facts;
  }

  private relevant(call: Node, words: PatternWords): boolean {
    // The call's own method name, which the text prefix misses after a call (`obj().send(…)`).
    const methodNode = this.view.field(call, 'method');
    const own = methodNode ? this.view.text(methodNode) : null;
    if (own && (SEND.has(own) || words.lasts.has(own))) return true;
    const prefix = calleePrefix(this.view.source, call.startIndex);
    if (!prefix) return true;
    const root = prefix[0];
    const last = prefix[prefix.length - 1];
    return (
      words.roots.has(root) ||
      SPECIAL_WORDS.has(root) ||
      words.lasts.has(last) ||
      SEND.has(last) ||
      METHOD_OBJECT_CALLS.has(last) ||
      this.boundSomewhere(root)
    );
  }

  // ── bindings ──────────────────────────────────────────────────────────────────────────

  private bind(scope: Scope, name: string, expr: Node | null): void {
    this.knownNames.add(name);
    // Constants and instance variables are visible file-wide; locals stay in their scope.
    const target = /^[A-Z@]/.test(name) ? this.scopes.root : scope;
    if (expr) this.scopes.bindExpr(target, name, expr);
    else this.scopes.bindValue(target, name, OPAQUE);
  }

  protected bindNode(n: Node): void {
    if (this.bound.has(n.id)) return;
    this.bound.add(n.id);
    const v = this.view;
    const scope = this.scopeOf(n);
    const t = v.type(n);
    if (t === 'method' || t === 'singleton_method' || BLOCK_TYPES.includes(t)) {
      const params = v.field(n, 'parameters');
      if (params) for (const id of v.ofType(params, ['identifier'])) this.bind(scope, v.text(id), null);
      return;
    }
    if (t === 'for') {
      const pattern = v.field(n, 'pattern');
      if (pattern) for (const id of v.ofType(pattern, ['identifier'])) this.bind(scope, v.text(id), null);
      return;
    }
    if (t === 'binary') {
      const target = shovelTarget(v, n);
      if (target) this.bind(scope, target, n);
      return;
    }
    const left = v.field(n, 'left');
    const right = v.field(n, 'right');
    if (!left) return;
    const lt = v.type(left);
    if (lt === 'identifier' || lt === 'constant' || lt === 'instance_variable' || lt === 'class_variable') {
      this.bind(scope, v.text(left), t === 'assignment' ? right : n);
    } else {
      for (const id of v.ofType(left, ['identifier'])) this.bind(scope, v.text(id), null);
    }
  }

  // ── resolution ────────────────────────────────────────────────────────────────────────

  /**
   * `def self.m` inside `class C` (or `def C.m`): `C.m` is the file's own method, which replaces
   * Ruby's (`Bar.class_eval` defined by Bar itself is not Module#class_eval). Recorded as `C.m`.
   */
  private singletonDefinition(n: Node): void {
    const v = this.view;
    const object = v.field(n, 'object');
    const name = v.field(n, 'name');
    if (!object || !name) return;
    let owner: string | null = null;
    if (v.type(object) === 'constant') owner = v.text(object);
    else if (v.type(object) === 'self')
      for (let p = n.parent; p; p = p.parent)
        if (p.type === 'class' || p.type === 'module') {
          const cname = v.field(p, 'name');
          owner = cname ? v.text(cname) : null;
          break;
        }
    if (owner && /^[A-Z]\w*$/.test(owner)) this.ownSingletons.add(`${owner}.${v.text(name)}`);
  }
  private readonly ownSingletons = new Set<string>();

  /** `recv.m` as a name, or `recv.m(own)` when the file defines that singleton method itself. */
  private memberName(recv: Value, method: string): Value {
    return this.ownSingletons.has(`${recv}.${method}`) ? `${recv}.${method}(own)` : member(recv, method);
  }

  /** The class, module or singleton class whose body holds `n` (`top` outside any). */
  private ownerOf(n: Node): number | 'top' {
    for (let p = n.parent; p; p = p.parent)
      if (p.type === 'class' || p.type === 'module' || p.type === 'singleton_class') return p.id;
    return 'top';
  }

  /**
   * A method of this name defined where a receiverless call at `at` reaches it: in the same
   * class/module body or at the top level. Without a call node, any definition counts (bare names).
   */
  private definesMethod(name: string, at: Node | null): boolean {
    const owners = this.definedMethods.get(name);
    if (!owners) return false;
    return at === null || owners.has('top') || owners.has(this.ownerOf(at));
  }

  protected freeName(name: string): Value[] {
    if (/^[a-z_]/.test(name)) return [this.definesMethod(name, null) ? `self.${name}` : name];
    return [name];
  }

  private lookup(name: string, scope: Scope): Value[] {
    return this.lookupName(name, /^[A-Z@]/.test(name) ? this.scopes.root : scope);
  }

  evaluate(node: Node, scope: Scope): Value[] {
    const v = this.view;
    switch (v.type(node)) {
      case 'identifier':
      case 'constant':
      case 'instance_variable':
      case 'class_variable':
        return this.lookup(v.text(node), scope);
      case 'self':
        return ['self'];
      case 'scope_resolution': {
        const sc = v.field(node, 'scope');
        const name = v.field(node, 'name');
        if (!name) return [OPAQUE];
        if (!sc) return this.lookup(v.text(name), this.scopes.root);
        return membersOf(this.evaluate(sc, scope), [v.text(name)]);
      }
      case 'call': {
        const { names } = this.callTargets(node, scope);
        const method = v.field(node, 'method');
        const args = this.argNodes(node);
        // Session 16 (red team): `m.to_proc` / `m.curry` of a method object is that method still.
        const recvNode = v.field(node, 'receiver');
        if (method && recvNode && METHOD_OBJECT_WRAPPERS.has(v.text(method))) {
          const objs = this.evaluate(recvNode, scope).filter((x) => x.startsWith('&'));
          if (objs.length > 0) return objs;
        }
        // `Object.const_get('Kernel')`: the constant of that name.
        if (method && v.text(method) === 'const_get' && args[0]) {
          const name = this.constant(args[0], scope);
          if (
            name !== null &&
            /^[A-Z]\w*(?:::[A-Z]\w*)*$/.test(name) &&
            (!recvNode || /^(?:Object|Module|Kernel)$/.test(v.text(recvNode)))
          ) {
            const [head, ...rest] = name.split('::');
            return membersOf(this.lookup(head, this.scopes.root), rest);
          }
        }
        if (method && METHOD_OBJECT_MAKERS.has(v.text(method)) && args[0]) {
          // method(:system) / obj.method(:x): a method object.
          const sym = this.constant(args[0], scope);
          if (sym === null) return [OPAQUE];
          const recv = v.field(node, 'receiver');
          if (!recv || KERNEL_PRIVATE.has(sym)) return [`&Kernel.${sym}`];
          return membersOf(this.evaluate(recv, scope), [sym]).map((b) => `&${b}`);
        }
        return names.length > 0
          ? names.map((n) => resultName(n, () => (args[0] ? this.constant(args[0], scope) : null)))
          : [OPAQUE];
      }
      case 'parenthesized_statements': {
        const inner = v.args(node).at(-1);
        return inner ? this.evaluate(inner, scope) : [OPAQUE];
      }
      case 'assignment': {
        const right = v.field(node, 'right');
        return right ? this.evaluate(right, scope) : [OPAQUE];
      }
      case 'operator_assignment': {
        const right = v.field(node, 'right');
        return right && this.stringy(right, scope) ? [dynamicMarker(v.text(node))] : [OPAQUE];
      }
      case 'string':
      case 'simple_symbol':
      case 'delimited_symbol':
      case 'binary': {
        const c = this.constant(node, scope);
        if (c !== null) return [constValue(c)];
        return this.dynamicString(node, scope) ? [dynamicMarker(v.text(node))] : [OPAQUE];
      }
      case 'conditional': {
        const a = v.field(node, 'consequence');
        const b = v.field(node, 'alternative');
        return [...(a ? this.evaluate(a, scope) : []), ...(b ? this.evaluate(b, scope) : [])];
      }
      default:
        return [OPAQUE];
    }
  }

  private argNodes(call: Node): Node[] {
    const argsNode = this.view.field(call, 'arguments');
    if (!argsNode) return [];
    return this.view.args(argsNode).filter((a) => this.view.type(a) !== 'block_argument');
  }

  /** What a call invokes, and how many leading arguments name the method (send). */
  private callTargets(node: Node, scope: Scope): { names: Value[]; offset: number } {
    const v = this.view;
    const methodNode = v.field(node, 'method');
    const method = methodNode ? v.text(methodNode) : '()';
    const recv = v.field(node, 'receiver');
    const recvValues = recv
      ? this.evaluate(recv, scope)
          .filter((x) => isRef(x) || x === OPAQUE)
          .map((x) => (x === OPAQUE ? '?' : x))
      : null;
    if (SEND.has(method)) {
      const args = this.argNodes(node);
      const sym = args[0] ? this.constant(args[0], scope) : null;
      // A method name computed at run time reaches any method, private Kernel ones included
      // (send ignores visibility): `Kernel.send(dynamic)`, judged by the name argument (offset 0).
      if (sym === null) return { names: args[0] ? [DYNAMIC_SEND] : [], offset: 0 };
      if (!recvValues || KERNEL_PRIVATE.has(sym)) return { names: [this.receiverless(sym, node)], offset: 1 };
      return { names: recvValues.map((b) => this.memberName(b, sym)), offset: 1 };
    }
    if (!recvValues) return { names: [this.receiverless(method, node)], offset: 0 };
    const names: Value[] = [];
    for (const b of recvValues) {
      if (b.startsWith('&')) {
        if (METHOD_OBJECT_CALLS.has(method)) names.push(b.slice(1));
      } else names.push(this.memberName(b, method));
    }
    return { names, offset: 0 };
  }

  private receiverless(method: string, at: Node): Value {
    return this.definesMethod(method, at) ? `self.${method}` : `Kernel.${method}`;
  }

  private literal(node: Node): string | null {
    const v = this.view;
    const parts = v.named(node).filter((c) => v.type(c) === 'interpolation');
    // `"a#{2}b"`: an interpolation of a bare integer or float literal is constant text too.
    const numeric = parts.map((p) => {
      const inner = v.named(p);
      return inner.length === 1 && (v.type(inner[0]) === 'integer' || v.type(inner[0]) === 'float')
        ? v.text(inner[0])
        : null;
    });
    if (numeric.some((x) => x === null)) return null;
    let text = v.text(node);
    for (let k = parts.length - 1; k >= 0; k--) {
      const from = parts[k].startIndex - node.startIndex;
      text = text.slice(0, from) + numeric[k]! + text.slice(parts[k].endIndex - node.startIndex);
    }
    if (text.startsWith('"')) return unescapeLiteral(text.slice(1, -1));
    if (text.startsWith("'")) return text.slice(1, -1).replace(/\\(['\\])/g, '$1');
    if (text.startsWith(':"') || text.startsWith(":'")) return unescapeLiteral(text.slice(2, -1));
    if (text.startsWith(':')) return text.slice(1);
    const pct = /^%[qQ]?(.)/.exec(text);
    if (pct) return text.slice(pct[0].length, -1);
    return null;
  }

  protected readonly arms: StringArms = {
    binary: 'binary',
    concat: '+',
    format: '%',
    paren: 'parenthesized_statements',
    parenDynamic: false,
    names: ['identifier', 'constant'],
    dynamicNames: ['identifier'],
  };

  protected nameValues(node: Node, scope: Scope): Value[] {
    return this.lookup(this.view.text(node), scope);
  }

  protected ownConstant(node: Node): string | null {
    switch (this.view.type(node)) {
      case 'string':
      case 'simple_symbol':
      case 'delimited_symbol':
        return this.literal(node);
      default:
        return null;
    }
  }

  protected ownDynamicString(node: Node): boolean {
    return this.view.type(node) === 'string' && this.literal(node) === null;
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  /** `recv.m(` / `m(` resolved from the text; send, method objects and `method(...)` need the tree. */
  private plainTargets(parts: readonly string[], scope: Scope, at: Node): Value[] | null {
    const method = parts[parts.length - 1];
    if (SEND.has(method) || METHOD_OBJECT_CALLS.has(method) || method === 'method') return null;
    if (parts.length === 1) return [this.receiverless(method, at)];
    let recv = this.lookup(parts[0], scope);
    for (const p of parts.slice(1, -1)) recv = membersOf(recv, [p]);
    if (recv.some((r) => r.startsWith('&'))) return null;
    if (recv.some((r) => this.ownSingletons.has(`${r}.${method}`))) return null;
    return membersOf(recv, [method]);
  }

  /**
   * Session 15: `….cookies_serializer = :marshal` (or `:hybrid`, which still reads old Marshal
   * cookies) in a Rails configuration: a cookie is then unmarshalled, so whoever holds or guesses
   * the secret key base runs code. A value that is not a literal fails closed too.
   */
  private marshalCookies(n: Node): void {
    const v = this.view;
    const left = v.field(n, 'left');
    const right = v.field(n, 'right');
    if (!left || !right || !/(?:^|\.)cookies_serializer$/.test(v.text(left).replace(/\s+/g, ''))) return;
    const value = v.text(right).trim();
    if (/^(?::|['"])?(?:json|message_pack)['"]?$/.test(value)) return;
    this.fact({ kind: 'syntax', line: v.line(n), name: 'marshal_cookies', detail: value.slice(0, 40) });
  }

  private callFact(node: Node, sharedStart: boolean): void {
    const v = this.view;
    const scope = this.scopeOf(node);
    const plain = sharedStart ? null : plainCallee(v.source, node.startIndex, true);
    const fast = plain ? this.plainTargets(plain.parts, scope, node) : null;
    const { names, offset } = fast ? { names: fast, offset: 0 } : this.callTargets(node, scope);
    if (names.length === 0) return;
    this.facts.push({
      kind: 'call',
      line: v.line(node),
      names,
      site: lazySite(() => makeCallSite({ node, scope, ops: this, args: this.argNodes(node).slice(offset) })),
    });
  }

  /**
   * Session 16 (red team): a method object stored in a hash or array, or passed on
   * (`{ run: Kernel.method(:spawn) }`, `[method(:system)]`): whoever holds it may call it with
   * anything, so it is a reference fact (the critical call rows without their argument conditions).
   */
  private methodObjectReferences(calls: readonly Node[]): void {
    const v = this.view;
    for (const c of calls) {
      const method = v.field(c, 'method');
      if (!method || v.text(method) !== 'method') continue;
      const parent = c.parent;
      const pt = parent ? v.type(parent) : '';
      if (pt !== 'pair' && pt !== 'array' && pt !== 'argument_list') continue;
      const names = this.evaluate(c, this.scopeOf(c))
        .filter((x) => x.startsWith('&'))
        .map((x) => x.slice(1));
      if (names.length > 0) this.facts.push({ kind: 'reference', line: v.line(c), names });
    }
  }

  /** `&x.to_sym` / `&x.intern` / `&x.to_proc` / `&:"#{x}"` / `&local` with a computed `x`: a method chosen at run time. */
  private blockMethodFact(n: Node): void {
    const v = this.view;
    const e = v.named(n)[0];
    if (!e) return;
    const scope = this.scopeOf(n);
    // `&:"#{x}"` or `&sym` (a local holding a symbol made above): the expression itself is the name.
    const whole = v.type(e) === 'delimited_symbol' || v.type(e) === 'identifier';
    const method = whole ? null : v.field(e, 'method');
    const recv = whole ? e : v.field(e, 'receiver');
    if (!recv || (!whole && (v.type(e) !== 'call' || !method || !TO_PROC.has(v.text(method))))) return;
    if (this.constant(recv, scope) !== null) return;
    this.facts.push({
      kind: 'call',
      line: v.line(n),
      names: [RUBY_BLOCK_METHOD],
      site: lazySite(() => makeCallSite({ node: e, scope, ops: this, args: [recv] })),
    });
  }

  private syntaxFacts(wanted: WantedNames): void {
    if (!wanted.syntax.has('VERIFY_NONE')) return;
    const v = this.view;
    for (const { index, name } of occurrences(v.source, ['VERIFY_NONE'])) {
      const node = v.namedAt(index, index + name.length);
      if (node && v.type(node) === 'constant') this.fact({ kind: 'syntax', line: v.line(node), name });
    }
  }
}

export const rubyAnalyzer: Analyzer = {
  analyze: (view: SyntaxView, wanted: WantedNames) => new RubyAnalysis(view).run(wanted),
};
