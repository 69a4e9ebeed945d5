// PHP: function names are case-insensitive and global (a namespaced call falls back to the
// global function), `use function x as y` aliases, variable functions (`$f = 'system'; $f()`),
// callbacks by name (`call_user_func('system', ...)`, `array_map('system', ...)`), methods
// (`$pdo->query`), static calls, backticks, include/require of computed paths.
import type { Node } from 'web-tree-sitter';
import { type ExprOps, type Fact, lazySite, makeCallSite } from '../facts.js';
import {
  constValue,
  DYNAMIC_STRING,
  isConst,
  isRef,
  member,
  OPAQUE,
  type Scope,
  type ScopeRange,
  type Value,
} from '../scopes.js';
import { unescapeLiteral, type SyntaxView } from '../syntax.js';
import { PHP_DECODED_NAME } from './php-decoded-names.js';
import {
  AnalysisBase,
  type StringArms,
  type Analyzer,
  calleePrefix,
  dynamicMarker,
  FALSE_LITERALS,
  isDynamicMarker,
  parseIntLiteral,
  patternWords,
  type PatternWords,
  type WantedNames,
} from './base.js';

const GATE_TYPES = ['function_definition', 'method_declaration', 'anonymous_function'];
const CALL_TYPES = [
  'function_call_expression',
  'member_call_expression',
  'nullsafe_member_call_expression',
  'scoped_call_expression',
  'object_creation_expression',
];
const INCLUDE_TYPES = [
  'include_expression',
  'include_once_expression',
  'require_expression',
  'require_once_expression',
];
const BINDER_TYPES = ['assignment_expression', 'namespace_use_declaration'];
const STATEMENTS = new Set(['expression_statement', 'return_statement', 'echo_statement']);
const SUPERGLOBALS = new Set(['$_GET', '$_POST', '$_REQUEST', '$_COOKIE', '$_SERVER', '$_FILES', '$_ENV']);
const CLOSURE: Value = 'closure#';
/** An include argument that starts with a stream whose text is the code (`data:`, `php://input`). */
const CODE_STREAM = /^\(?\s*['"](?:data:|php:\/\/(?:input|stdin)|expect:)/i;
const DECODED = new Set(PHP_DECODED_NAME);
/** Prefix of the string values of an array literal, read back only through a subscript. */
const ARRAY_ELEMENT = '[]';
/** Functions that call a callback given by name, and the argument holding it. */
const CALLBACK_ARG: Readonly<Record<string, number>> = {
  call_user_func: 0,
  call_user_func_array: 0,
  forward_static_call: 0,
  forward_static_call_array: 0,
  array_map: 0,
  register_shutdown_function: 0,
  register_tick_function: 0,
  array_filter: 1,
  array_walk: 1,
  array_walk_recursive: 1,
  array_reduce: 1,
  usort: 1,
  uasort: 1,
  uksort: 1,
  iterator_apply: 1,
  // Session 16 (red team): more functions that call a callback given by name, and reflection
  // over a function named by a string (`(new ReflectionFunction('system'))->invoke($c)`).
  ob_start: 0,
  set_error_handler: 0,
  set_exception_handler: 0,
  spl_autoload_register: 0,
  header_register_callback: 0,
  preg_replace_callback: 1,
  mb_ereg_replace_callback: 1,
  ReflectionFunction: 0,
};
const SPECIAL_WORDS = new Set(Object.keys(CALLBACK_ARG));
/**
 * Pseudo-names of calls whose function or class is computed (`$f(…)`, `$_GET['f'](…)`,
 * `new $cls(…)`): the call fact's argument 0 is the computed callee, so a rule can ask whether
 * it carries request input.
 */
export const PHP_DYNAMIC_CALLEE = '$callee()';
export const PHP_DYNAMIC_NEW = 'new $class';
const USE_FUNCTION = /use\s+function\s+([^;]+);/y;
/**
 * Sinks a function's docblock declares (Psalm's `@psalm-taint-sink <kind> $param` on a stub):
 * a call of the function is a call of this sink with that argument. Kinds outside the scanner's
 * families (html, sql, ldap, …) are not modelled.
 */
const DECLARED_SINK_CALL: Readonly<Record<string, string>> = {
  callable: 'call_user_func',
  eval: 'eval',
  shell: 'system',
  unserialize: 'unserialize',
};
const TAINT_SINK_TAG = /@psalm-taint-sink\s+([\w-]+)\s+\$(\w+)/g;
/** `@psalm-flow proxy target($a, $b)`: the function passes those parameters to `target`. */
const FLOW_PROXY_TAG = /@psalm-flow\s+proxy\s+([\w\\:]+)\s*\(([^()]*)\)/g;
/** Docblocks longer than this are not read for declared sinks (bounded work per function). */
const MAX_DOCBLOCK = 4000;

/** A function's declared sinks and proxies, by parameter position. */
interface DeclaredFlow {
  sinks: Array<{ param: number; call: string }>;
  proxies: Array<{ target: string; args: number[] }>;
}
const TARGET = /(\$[A-Za-z_]\w*)\s*(?:=(?![=>])|\.=|\?\?=)/y;

/** `\Foo\Bar` → `foo\bar`, `\system` → `system`: PHP function names as rule patterns spell them. */
function functionName(text: string): string {
  return text.replace(/\s+/g, '').replace(/^\\/, '').toLowerCase();
}

class PhpAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = ['name'];
  readonly statementTypes = STATEMENTS;
  private readonly bound = new Set<number>();
  private readonly functionAliases = new Map<string, string>();
  /** Functions and methods (lower-case short name) whose docblock declares a sink or a proxy. */
  private readonly declared = new Map<string, DeclaredFlow>();

  run(wanted: WantedNames): Fact[] {
    const v = this.view;
    const src = v.source;
    const nodes = v.ofType(v.root, [
      ...GATE_TYPES,
      'arrow_function',
      ...CALL_TYPES,
      ...INCLUDE_TYPES,
      ...BINDER_TYPES,
      'shell_command_expression',
    ]);
    const types = nodes.map((n) => v.type(n));
    const ranges: ScopeRange[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (GATE_TYPES.includes(t)) {
        ranges.push({ start: n.startIndex, end: v.end(n), kind: 'gate' });
        if (t !== 'anonymous_function') this.readDocblock(n);
      } else if (t === 'arrow_function') ranges.push({ start: n.startIndex, end: v.end(n), kind: 'function' });
    });
    this.buildScopes(ranges);
    const calls: Node[] = [];
    nodes.forEach((n, i) => {
      const t = types[i];
      if (CALL_TYPES.includes(t)) calls.push(n);
      else if (GATE_TYPES.includes(t) || t === 'arrow_function') this.pendScope(this.scopeOf(n), n);
      else if (t === 'shell_command_expression') {
        if (wanted.syntax.has('subshell'))
          this.fact({ kind: 'syntax', line: v.line(n), name: 'subshell', detail: 'backticks' });
      } else if (INCLUDE_TYPES.includes(t)) {
        const arg = v.args(n)[0];
        if (arg && wanted.syntax.has('dynamic_include') && this.constant(arg, this.scopeOf(n)) === null) {
          this.fact({
            kind: 'syntax',
            line: v.line(n),
            name: 'dynamic_include',
            detail: t.replace(/_expression$/, ''),
          });
        }
        // Session 16 (red team): `include 'data://text/plain;base64,' . $x` (or php://input) runs
        // the stream's text as PHP code: code execution, not only a file inclusion.
        if (arg && CODE_STREAM.test(v.text(arg)) && this.constant(arg, this.scopeOf(n)) === null)
          this.fact({ kind: 'syntax', line: v.line(n), name: 'include_code_stream', detail: v.text(arg).slice(0, 40) });
      } else if (t === 'namespace_use_declaration') {
        USE_FUNCTION.lastIndex = n.startIndex;
        const m = USE_FUNCTION.exec(src);
        if (m) {
          for (const clause of m[1].split(',')) {
            const [target, alias] = clause.split(/\s+as\s+/i).map((s) => s.trim());
            const name = functionName(target);
            this.functionAliases.set(
              (alias ?? name.slice(name.lastIndexOf('\\') + 1)).toLowerCase(),
              name.slice(name.lastIndexOf('\\') + 1),
            );
          }
        }
      } else {
        TARGET.lastIndex = n.startIndex;
        const m = TARGET.exec(src);
        if (m) this.pendName(m[1], n);
      }
    });
    const words = patternWords(wanted.callPatterns);
    const lower = new Set([...words.all].map((w) => w.toLowerCase()));
    for (const c of calls) if (this.relevant(c, words, lower)) this.callFact(c, wanted);
    return this.facts;
  }

  private relevant(call: Node, words: PatternWords, lower: ReadonlySet<string>): boolean {
    const src = this.view.source;
    let start = call.startIndex;
    if (src.startsWith('new', start)) start = skipSpace(src, start + 3);
    if (src[start] === '\\') start++;
    const prefix = calleePrefix(src, start);
    if (!prefix) return true;
    const root = prefix[0];
    return (
      root.startsWith('$') ||
      this.declared.has(prefix[prefix.length - 1].toLowerCase()) ||
      prefix.some(
        (w) =>
          lower.has(w.toLowerCase()) || SPECIAL_WORDS.has(w.toLowerCase()) || this.functionAliases.has(w.toLowerCase()),
      ) ||
      words.lasts.has(prefix[prefix.length - 1])
    );
  }

  /** Records the sinks and proxies the docblock right above a function or method declares. */
  private readDocblock(n: Node): void {
    const v = this.view;
    const src = v.source;
    const name = v.field(n, 'name');
    if (!name) return;
    let k = n.startIndex;
    while (k > 0 && /\s/.test(src[k - 1])) k--;
    if (!src.startsWith('*/', k - 2)) return;
    const from = Math.max(0, k - MAX_DOCBLOCK);
    const open = src.slice(from, k - 2).lastIndexOf('/**');
    if (open < 0) return;
    const doc = src.slice(from + open, k);
    const params: string[] = [];
    const list = v.field(n, 'parameters');
    if (list)
      for (const p of v.named(list)) {
        const pn = v.field(p, 'name');
        params.push(pn ? v.text(pn).replace(/^\$/, '') : '');
      }
    const flow: DeclaredFlow = { sinks: [], proxies: [] };
    for (const m of doc.matchAll(TAINT_SINK_TAG)) {
      const call = DECLARED_SINK_CALL[m[1].toLowerCase()];
      const param = params.indexOf(m[2]);
      if (call && param >= 0) flow.sinks.push({ param, call });
    }
    for (const m of doc.matchAll(FLOW_PROXY_TAG)) {
      const target = functionName(m[1]).split(/::|\\/).pop() ?? '';
      const args = m[2].split(',').map((a) => params.indexOf(a.trim().replace(/^\$/, '')));
      if (target) flow.proxies.push({ target, args });
    }
    if (flow.sinks.length > 0 || flow.proxies.length > 0) this.declared.set(v.text(name).toLowerCase(), flow);
  }

  /** The sink calls a call of `fn` amounts to, through declared sinks and proxies: argument position → sink. */
  private declaredSinks(fn: string, seen: Set<string> = new Set()): Array<{ param: number; call: string }> {
    const flow = this.declared.get(fn);
    if (!flow || seen.has(fn)) return [];
    seen.add(fn);
    const out = [...flow.sinks];
    for (const p of flow.proxies)
      for (const s of this.declaredSinks(p.target, seen)) {
        const param = p.args[s.param];
        if (param !== undefined && param >= 0) out.push({ param, call: s.call });
      }
    return out;
  }

  // ── bindings ──────────────────────────────────────────────────────────────────────────

  protected bindNode(n: Node): void {
    if (this.bound.has(n.id)) return;
    this.bound.add(n.id);
    const v = this.view;
    const scope = this.scopeOf(n);
    const t = v.type(n);
    if (t === 'assignment_expression') {
      const left = v.field(n, 'left');
      const right = v.field(n, 'right');
      if (left && right && v.type(left) === 'variable_name') this.scopes.bindExpr(scope, v.text(left), right);
      return;
    }
    const params = v.field(n, 'parameters');
    if (params) for (const p of v.ofType(params, ['variable_name'])) this.scopes.bindValue(scope, v.text(p), OPAQUE);
  }

  // ── resolution ────────────────────────────────────────────────────────────────────────

  protected freeName(name: string): Value[] {
    if (SUPERGLOBALS.has(name)) return [DYNAMIC_STRING];
    return [OPAQUE];
  }

  private unwrapArg(n: Node): Node {
    return this.view.type(n) === 'argument' ? (this.view.args(n).at(-1) ?? n) : n;
  }

  evaluate(node: Node, scope: Scope): Value[] {
    const v = this.view;
    const n = this.unwrapArg(node);
    switch (v.type(n)) {
      case 'variable_name':
        return v.text(n) === '$this' ? ['this'] : this.lookupName(v.text(n), scope);
      case 'name':
      case 'qualified_name':
        return [functionName(v.text(n))];
      case 'anonymous_function':
      case 'arrow_function':
        return [CLOSURE];
      case 'subscript_expression': {
        const base = v.args(n)[0];
        if (base && SUPERGLOBALS.has(v.text(base))) return [DYNAMIC_STRING];
        // Session 16 (red team): an element of an array literal of strings (`$ops['run']($c)` with
        // `$ops = ['run' => 'shell_exec']`): any of its string values (the key is not followed).
        const elements = base
          ? this.evaluate(base, scope)
              .filter((x) => x.startsWith(ARRAY_ELEMENT))
              .map((x) => x.slice(ARRAY_ELEMENT.length))
          : [];
        return elements.length > 0 ? elements : [OPAQUE];
      }
      case 'array_creation_expression': {
        // Marked so that only a subscript reads the strings (the array itself is no function name).
        const out: Value[] = [];
        for (const el of v
          .named(n)
          .filter((c) => v.type(c) === 'array_element_initializer')
          .slice(0, 64)) {
          const value = v.named(el).at(-1);
          const c = value ? this.constant(value, scope) : null;
          if (c !== null) out.push(`${ARRAY_ELEMENT}${constValue(c)}`);
        }
        return out.length > 0 ? out : [OPAQUE];
      }
      case 'object_creation_expression': {
        const cls = v.args(n)[0];
        return cls ? [`${v.text(cls).replace(/^\\/, '')}#`] : [OPAQUE];
      }
      case 'member_call_expression':
      case 'nullsafe_member_call_expression':
      case 'scoped_call_expression':
      case 'function_call_expression':
        return this.callNames(n, scope).names.map((c) => `${c}()`);
      case 'parenthesized_expression': {
        const inner = v.args(n)[0];
        return inner ? this.evaluate(inner, scope) : [OPAQUE];
      }
      case 'string':
      case 'encapsed_string':
      case 'heredoc':
      case 'nowdoc':
      case 'binary_expression': {
        const c = this.constant(n, scope);
        if (c !== null) return [constValue(c)];
        return this.dynamicString(n, scope) ? [dynamicMarker(v.text(n))] : [OPAQUE];
      }
      case 'assignment_expression': {
        const right = v.field(n, 'right');
        return right ? this.evaluate(right, scope) : [OPAQUE];
      }
      default:
        return [OPAQUE];
    }
  }

  private argNodes(call: Node): Node[] {
    const argsNode =
      this.view.field(call, 'arguments') ??
      this.view.named(call).find((c) => this.view.type(c) === 'arguments') ??
      null;
    return argsNode ? this.view.args(argsNode).map((a) => this.unwrapArg(a)) : [];
  }

  /** Function names a value can call: constant strings name functions; references name methods. */
  private callableNames(values: readonly Value[]): Value[] {
    const out: Value[] = [];
    for (const val of values) {
      if (isConst(val)) {
        const fn = functionName(val.slice(1));
        out.push(fn.includes('::') ? fn.replace('::', '.') : fn);
      } else if (isRef(val) && val !== CLOSURE) out.push(val);
    }
    return out;
  }

  private callNames(n: Node, scope: Scope): { names: Value[]; dynamic: boolean } {
    const v = this.view;
    switch (v.type(n)) {
      case 'function_call_expression': {
        const fn = v.field(n, 'function');
        if (!fn) return { names: [], dynamic: false };
        const ft = v.type(fn);
        if (ft === 'name' || ft === 'qualified_name') {
          const name = functionName(v.text(fn));
          const short = name.slice(name.lastIndexOf('\\') + 1);
          return { names: [this.functionAliases.get(short) ?? short], dynamic: false };
        }
        const values = this.evaluate(fn, scope);
        return {
          names: this.callableNames(values),
          dynamic: values.some(isDynamicMarker) || values.some((x) => DECODED.has(x)),
        };
      }
      case 'member_call_expression':
      case 'nullsafe_member_call_expression': {
        const obj = v.field(n, 'object');
        const name = v.field(n, 'name');
        if (!obj || !name) return { names: [], dynamic: false };
        if (v.type(name) !== 'name') return { names: [], dynamic: true };
        const method = v.text(name).toLowerCase();
        const bases = this.evaluate(obj, scope).filter(isRef);
        return { names: (bases.length > 0 ? bases : [v.text(obj)]).map((b) => member(b, method)), dynamic: false };
      }
      case 'scoped_call_expression': {
        const sc = v.field(n, 'scope');
        const name = v.field(n, 'name');
        if (!sc || !name) return { names: [], dynamic: false };
        return { names: [`${v.text(sc).replace(/^\\/, '')}.${v.text(name).toLowerCase()}`], dynamic: false };
      }
      case 'object_creation_expression': {
        const cls = v.args(n)[0];
        if (cls && /variable|subscript|member|call|parenthesized/.test(v.type(cls)))
          return { names: [PHP_DYNAMIC_NEW], dynamic: false };
        return { names: cls ? [v.text(cls).replace(/^\\/, '')] : [], dynamic: false };
      }
      default:
        return { names: [], dynamic: false };
    }
  }

  /** The node naming the function or class of a call whose callee is computed, or null. */
  private computedCallee(n: Node): Node | null {
    const v = this.view;
    if (v.type(n) === 'object_creation_expression') return v.args(n)[0] ?? null;
    if (v.type(n) !== 'function_call_expression') return null;
    const fn = v.field(n, 'function');
    return fn && v.type(fn) !== 'name' && v.type(fn) !== 'qualified_name' ? fn : null;
  }

  protected readonly arms: StringArms = {
    binary: 'binary_expression',
    concat: '.',
    paren: 'parenthesized_expression',
    parenDynamic: false,
    names: ['variable_name'],
    dynamicNames: ['variable_name', 'subscript_expression'],
  };

  protected unwrapExpr(node: Node): Node {
    return this.unwrapArg(node);
  }

  protected dynamicNameValues(node: Node, scope: Scope): Value[] {
    return this.evaluate(node, scope);
  }

  protected ownConstant(n: Node, scope: Scope): string | null {
    const v = this.view;
    switch (v.type(n)) {
      case 'string': {
        const text = v.text(n);
        return text.slice(1, -1).replace(/\\(['\\])/g, '$1');
      }
      case 'encapsed_string': {
        if (v.named(n).some((c) => !/^(string_content|escape_sequence)$/.test(v.type(c)))) return null;
        return unescapeLiteral(v.text(n).slice(1, -1));
      }
      case 'nowdoc':
        return v
          .args(n)
          .map((c) => (v.type(c) === 'nowdoc_body' ? v.text(c) : ''))
          .join('');
      case 'name': {
        // Magic path constants are fixed for a given file.
        const t = v.text(n);
        return t === '__DIR__' || t === '__FILE__' ? t : null;
      }
      case 'function_call_expression': {
        const fn = v.field(n, 'function');
        const args = this.argNodes(n);
        if (fn && functionName(v.text(fn)) === 'dirname' && args[0]) return this.constant(args[0], scope);
        return null;
      }
      default:
        return null;
    }
  }

  protected ownDynamicString(n: Node, scope: Scope): boolean {
    const v = this.view;
    switch (v.type(n)) {
      case 'encapsed_string':
      case 'heredoc':
        return this.constant(n, scope) === null;
      case 'function_call_expression': {
        const fn = v.field(n, 'function');
        const args = this.argNodes(n);
        return (
          !!fn &&
          /^(sprintf|vsprintf|implode|str_replace)$/.test(functionName(v.text(fn))) &&
          args.some((a) => this.stringy(a, scope))
        );
      }
      default:
        return false;
    }
  }

  values(node: Node, scope: Scope): Value[] {
    return this.evaluate(node, scope);
  }

  number(node: Node): number | null {
    return parseIntLiteral(this.view.text(this.unwrapArg(node)));
  }

  isFalse(node: Node): boolean {
    return FALSE_LITERALS.has(this.view.text(this.unwrapArg(node)));
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  private callFact(node: Node, wanted: WantedNames): void {
    const v = this.view;
    const scope = this.scopeOf(node);
    const { names: all, dynamic } = this.callNames(node, scope);
    const line = v.line(node);
    if (dynamic && wanted.syntax.has('dynamic_function_call'))
      this.fact({ kind: 'syntax', line, name: 'dynamic_function_call', detail: 'callee computed from run-time input' });
    // A computed function or class: its own fact, whose argument 0 is the callee expression.
    const callee = dynamic || all.includes(PHP_DYNAMIC_NEW) ? this.computedCallee(node) : null;
    if (callee)
      this.facts.push({
        kind: 'call',
        line,
        names: [all.includes(PHP_DYNAMIC_NEW) ? PHP_DYNAMIC_NEW : PHP_DYNAMIC_CALLEE],
        site: lazySite(() => makeCallSite({ node, scope, ops: this, args: [callee, ...this.argNodes(node)] })),
      });
    const names = all.filter((x) => x !== PHP_DYNAMIC_NEW);
    if (names.length === 0) return;
    this.facts.push({
      kind: 'call',
      line,
      names,
      site: lazySite(() => makeCallSite({ node, scope, ops: this, args: this.argNodes(node) })),
    });
    // A call of a function whose docblock declares a sink is a call of that sink.
    for (const name of names) {
      const short = name.slice(Math.max(name.lastIndexOf('.'), name.lastIndexOf('#')) + 1).replace(/\(\)$/, '');
      if (!this.declared.has(short)) continue;
      const args = this.argNodes(node);
      for (const s of this.declaredSinks(short)) {
        const arg = args[s.param];
        if (arg)
          this.facts.push({
            kind: 'call',
            line,
            names: [s.call],
            site: lazySite(() => makeCallSite({ node, scope, ops: this, args: [arg] })),
          });
      }
    }
    // A callback given by name is a call of that function.
    for (const name of names) {
      const at = CALLBACK_ARG[name];
      if (at === undefined) continue;
      const args = this.argNodes(node);
      const cb = args[at];
      if (!cb) continue;
      const values = this.evaluate(cb, scope);
      if (values.some(isDynamicMarker) && wanted.syntax.has('dynamic_function_call')) {
        this.fact({
          kind: 'syntax',
          line,
          name: 'dynamic_function_call',
          detail: `${name} callback computed from run-time input`,
        });
      }
      const targets = this.callableNames(values);
      const rest = at === 0 ? args.slice(1) : [];
      if (targets.length > 0)
        this.facts.push({
          kind: 'call',
          line,
          names: targets,
          site: lazySite(() => makeCallSite({ node, scope, ops: this, args: rest })),
        });
    }
  }
}

function skipSpace(src: string, i: number): number {
  let j = i;
  while (j < src.length && /\s/.test(src[j])) j++;
  return j;
}

export const phpAnalyzer: Analyzer = {
  analyze: (view: SyntaxView, wanted: WantedNames) => new PhpAnalysis(view).run(wanted),
};
