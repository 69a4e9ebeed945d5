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
  type StringArms,
  type Analyzer,
  headerWords,
  patternWords,
  type PatternWords,
  plainCallee,
  resultName,
  dynamicMarker,
  occurrences,
  parseIntLiteral,
  type WantedNames,
} from './base.js';
import { PythonPathConstants } from './python-paths.js';
import { PythonLiteralGuard } from './python-literal-guard.js';
import { decodeExact, EXACT_DECODERS, type Decoded } from './payload-decode.js';

const BUILTINS = new Set(
  'abs aiter all anext any ascii bin bool breakpoint bytearray bytes callable chr classmethod compile complex delattr dict dir divmod enumerate eval exec execfile filter float format frozenset getattr globals hasattr hash help hex id input int isinstance issubclass iter len list locals map max memoryview min next object oct open ord pow print property range repr reversed round set setattr slice sorted staticmethod str sum super tuple type vars zip __import__ reload'.split(
    ' ',
  ),
);

const STATEMENTS = new Set(['expression_statement', 'return_statement', 'assert_statement', 'raise_statement']);

/**
 * Builtins that execute code: a call of one of these names is taken as the builtin unless a
 * binding of the name certainly happened before the call (flow order, fail closed).
 */
/** Builtins that run code, recognised when imported by name from another module (session 16). */
const REEXPORTED_BUILTINS = new Set(['eval', 'exec', 'execfile']);
const FLOW_BUILTINS = new Set(['eval', 'exec', 'compile', 'execfile', '__import__']);

/** Statement and expression kinds under which a binding may not have run. */
const CONDITIONAL_TYPES = new Set([
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'for_statement',
  'while_statement',
  'match_statement',
  'case_clause',
  'conditional_expression',
  'boolean_operator',
  'list_comprehension',
  'dictionary_comprehension',
  'set_comprehension',
  'generator_expression',
  'decorated_definition',
]);
const SCOPE_TYPES = new Set(['function_definition', 'class_definition', 'lambda', 'module']);

/** Parents under which a name or dotted reference is a value handed over, not a callee. */
/** Callables that run code or a process: returned by __reduce__ they make a pickle gadget (the usual `return (cls, args)` does not). */
const PICKLE_GADGET_CALLABLES =
  /^(?:builtins\.(?:eval|exec|compile|__import__|getattr)|os\.(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*)|subprocess\.\w+|commands\.\w+|pty\.spawn|importlib\.import_module)$/;
const VALUE_CONTAINERS = new Set([
  'argument_list',
  'keyword_argument',
  'pair',
  'list',
  'tuple',
  'set',
  'return_statement',
  'expression_list',
  'yield',
]);

/** Calls that only inspect a callable given to them (type tests, printing). */
const INSPECTING_CALLS = new Set([
  'isinstance',
  'issubclass',
  'hasattr',
  'callable',
  'id',
  'repr',
  'str',
  'type',
  'print',
  'inspect.getsource',
  'inspect.signature',
]);

/** Where a name was bound, for the flow-order check of FLOW_BUILTINS. */
interface BindSite {
  at: number;
  node: Node | null;
  /** Known to be conditional (loop targets). */
  conditional: boolean;
}

const SPECIAL_WORDS = new Set([
  'getattr',
  '__import__',
  'globals',
  'vars',
  'locals',
  'sys',
  'importlib',
  'functools',
  '__builtins__',
  'builtins',
]);

// Everything below is found from the source text and verified on the tree only where it
// matters: a full traversal of the tree costs more than the rest of the analysis together.
const STATEMENT_KEYWORD = /(?:async[ \t]+)?(def|class|import|from|global|nonlocal|for|with|except)\b/y;
const BLOCK_HEAD = /(?:if|elif|else|while|try|finally|with|for|except)\b[^\n:]*:(?=[ \t]*[^\s#])/y;
const FOR_TARGET = /for[ \t]+([^\n]+?)[ \t]+in\b/y;
const KEYWORD_TYPES = new Set([
  'function_definition',
  'class_definition',
  'lambda',
  'import_statement',
  'import_from_statement',
  'future_import_statement',
  'global_statement',
  'nonlocal_statement',
]);
// Assignment statements, tried at statement starts.
const SIMPLE_ASSIGN =
  /([A-Za-z_]\w*)(?:[ \t]*\.[ \t]*([A-Za-z_]\w*))?[ \t]*(?::[^=\n]*?)?(?:=(?!=)|(?:[-+*/%&|^@]|\/\/|\*\*|>>|<<)=)/y;
const TUPLE_ASSIGN = /[([]?[ \t]*([A-Za-z_]\w*(?:[ \t]*,[ \t]*\*?[A-Za-z_]\w*)+)[ \t]*,?[ \t]*[)\]]?[ \t]*=(?!=)/y;
const CHAINED_TARGET = /^[ \t]*([A-Za-z_]\w*)[ \t]*=(?!=)/;
const SELF_ATTR = /(?:self|cls)[ \t]*\.[ \t]*([A-Za-z_]\w*)/y;
const AS_TARGET = /(?<![\w.])as[ \t]+([A-Za-z_]\w*)/g;
const CHAIN = /[A-Za-z_]\w*(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*/y;
const DEF_NAME = /(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)/y;
const HEADER_END = /:/y;
const ASSIGNMENT_TYPES = new Set(['assignment', 'augmented_assignment', 'named_expression']);
/** Expression kinds a callee can be wrapped in on its way up to the call. */
const CALLEE_WRAPPERS = new Set(['parenthesized_expression', 'conditional_expression', 'boolean_operator', 'await']);

/**
 * The rest of a logical line from `i` (across brackets and `\` continuations), without string
 * literals and comments: the right-hand side of an assignment, for the alias pre-check.
 */
function logicalTail(src: string, i: number): string {
  let depth = 0;
  const parts: string[] = [];
  let from = i;
  const end = Math.min(src.length, i + 4000);
  let j = i;
  for (; j < end; j++) {
    const c = src.charCodeAt(j);
    if (c === 35 /* # */ || c === 34 /* " */ || c === 39 /* ' */) {
      parts.push(src.slice(from, j), ' ');
      if (c === 35) {
        const nl = src.indexOf('\n', j);
        j = (nl < 0 ? end : nl) - 1;
      } else {
        const q = src[j];
        const triple = src.startsWith(q.repeat(3), j);
        const close = triple ? src.indexOf(q.repeat(3), j + 3) : closingQuote(src, j, q);
        if (close < 0) return parts.join('');
        j = close + (triple ? 2 : 0);
      }
      from = j + 1;
      continue;
    }
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (--depth < 0) break;
    } else if ((c === 10 || c === 59) && depth <= 0 && src.charCodeAt(j - 1) !== 92) break;
  }
  parts.push(src.slice(from, j));
  return parts.join('');
}

function closingQuote(src: string, from: number, quote: string): number {
  for (let j = from + 1; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === quote) return j;
    else if (src[j] === '\n') return j;
  }
  return -1;
}

/** Whether a resolved name can match an active rule: by its root or, for `*.m` rules, its last member. */
function mayMatch(name: string, words: PatternWords): boolean {
  const root = /^[^.#(]*/.exec(name)![0];
  if (words.roots.has(root)) return true;
  const last = /[^.#()]*$/.exec(name)![0];
  return words.lasts.has(last);
}

/** Whole-word occurrences of any of `words` (optionally after `prefix`); group 1 is the word. */
function wordsRegExp(words: readonly string[], prefix = ''): RegExp {
  if (words.length === 0) return /(?!)/g;
  const alternatives = [...words].sort((a, b) => b.length - a.length).map((w) => w.replace(/[$]/g, '\\$&'));
  return new RegExp(`${prefix || '(?<![\\w$])'}(${alternatives.join('|')})(?![\\w$])`, 'g');
}

const HEAD = /[ \t\n(]*(?:(?:await|not|lambda[^:]*:)[ \t]+)?(?:(self|cls)[ \t]*\.[ \t]*([A-Za-z_]\w*)|([A-Za-z_]\w*))/y;

/**
 * Names (and `self.x` keys) a right-hand side can take its value from: the head of each
 * top-level alternative (`a`, `b.c(...)`, `x if c else y`, `a or b`, `a, b`), not names that
 * only appear as arguments (`min(width, 3)` does not alias `width`).
 */
function rhsWords(rhs: string): string[] {
  const out: string[] = [];
  const head = (at: number) => {
    HEAD.lastIndex = at;
    const m = HEAD.exec(rhs);
    if (m) out.push(m[2] ? `self.${m[2]}` : m[3]);
  };
  head(0);
  let depth = 0;
  for (let i = 0; i < rhs.length; i++) {
    const c = rhs[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (depth === 0) {
      if (c === ',') head(i + 1);
      else if (/[\s)]/.test(c) && /^(?:else|or|and)\b/.test(rhs.slice(i + 1, i + 5)))
        head(i + 1 + rhs.slice(i + 1).search(/\s|$/));
    }
  }
  return out;
}

/** Offset of the `]` closing the `[` at `open` (string literals skipped), or -1. */
function matchingBracket(src: string, open: number): number {
  let depth = 0;
  for (let j = open; j < src.length && j < open + 2000; j++) {
    const c = src[j];
    if (c === '"' || c === "'") {
      const close = closingQuote(src, j, c);
      if (close < 0) return -1;
      j = close;
    } else if (c === '[' || c === '(' || c === '{') depth++;
    else if (c === ']' || c === ')' || c === '}') {
      if (--depth === 0) return c === ']' ? j : -1;
    }
  }
  return -1;
}

/** Whether the name at `pos` directly follows a `(` that is not a call's argument list. */
function parenthesisedAlone(src: string, pos: number): boolean {
  let i = pos - 1;
  while (i >= 0 && /\s/.test(src[i])) i--;
  if (src[i] !== '(') return false;
  i--;
  while (i >= 0 && (src[i] === ' ' || src[i] === '\t')) i--;
  return i < 0 || !/[\w)\]"']/.test(src[i]);
}

function nextNonBlank(src: string, i: number): number {
  let j = i;
  while (j < src.length && (src[j] === ' ' || src[j] === '\t')) j++;
  return j;
}

class PythonAnalysis extends AnalysisBase implements ExprOps {
  readonly identifierTypes = ['identifier'];
  readonly statementTypes = STATEMENTS;
  private readonly globalsOf = new Map<Scope, Set<string>>();
  /** Names declared `global` / `nonlocal` anywhere: bound outside the scope that assigns them. */
  private readonly declaredGlobal = new Set<string>();
  private readonly bound = new Set<number>();
  /** Names some assignment or import may bind to a value (aliases); the rest can only be opaque. */
  private readonly valueNames = new Set<string>();
  /** Module paths bound by imports, per bound name. */
  private readonly importValues = new Map<string, string[]>();
  private readonly seenCalls = new Set<number>();
  private hasStars = false;
  /** Binding sites per binding scope and name (flow-order check of FLOW_BUILTINS). */
  private readonly sites = new Map<Scope, Map<string, BindSite[]>>();

  run(wanted: WantedNames): Fact[] {
    const v = this.view;
    const src = v.source;
    const root = v.root;

    // One pass over statement starts (line starts, after `;`, after a one-line block's `:`).
    const keywordNodes: Node[] = [];
    const seen = new Set<number>();
    const keywordNode = (at: number, length: number) => {
      const n = root.namedDescendantForIndex(at, at + length - 1);
      if (n && !seen.has(n.id) && KEYWORD_TYPES.has(v.type(n))) {
        seen.add(n.id);
        keywordNodes.push(n);
      }
    };
    const assignments: { name: string; offset: number; rhsStart: number }[] = [];
    const loopTargets: { words: string[]; offset: number }[] = [];
    const statement = (p: number) => {
      STATEMENT_KEYWORD.lastIndex = p;
      const k = STATEMENT_KEYWORD.exec(src);
      if (k) {
        const kw = k[1];
        const at = p + k[0].length - kw.length;
        if (kw === 'for') {
          FOR_TARGET.lastIndex = at;
          const f = FOR_TARGET.exec(src);
          if (f) loopTargets.push({ words: f[1].match(/[A-Za-z_]\w*/g) ?? [], offset: at });
        } else if (kw === 'with' || kw === 'except') {
          const lineEnd = src.indexOf('\n', at);
          for (const a of src.slice(at, lineEnd < 0 ? src.length : lineEnd).matchAll(AS_TARGET))
            loopTargets.push({ words: [a[1]], offset: at });
        } else keywordNode(at, kw.length);
        return;
      }
      SIMPLE_ASSIGN.lastIndex = p;
      const a = SIMPLE_ASSIGN.exec(src);
      if (a) {
        const name = !a[2] ? a[1] : a[1] === 'self' || a[1] === 'cls' ? `self.${a[2]}` : null;
        if (name) assignments.push({ name, offset: p, rhsStart: p + a[0].length });
        return;
      }
      TUPLE_ASSIGN.lastIndex = p;
      const t = TUPLE_ASSIGN.exec(src);
      if (t)
        for (const w of t[1].match(/[A-Za-z_]\w*/g) ?? [])
          assignments.push({ name: w, offset: p + t[0].indexOf(w), rhsStart: p + t[0].length });
    };
    for (let lineStart = 0; lineStart < src.length;) {
      let lineEnd = src.indexOf('\n', lineStart);
      if (lineEnd < 0) lineEnd = src.length;
      let p = lineStart;
      while (p < lineEnd && (src[p] === ' ' || src[p] === '\t')) p++;
      if (p < lineEnd && src[p] !== '#') {
        statement(p);
        const line = src.slice(p, lineEnd);
        if (line.includes(';'))
          for (let i = line.indexOf(';'); i >= 0; i = line.indexOf(';', i + 1)) statement(nextNonBlank(src, p + i + 1));
        BLOCK_HEAD.lastIndex = p;
        const head = BLOCK_HEAD.exec(src);
        if (head) statement(nextNonBlank(src, p + head[0].length));
      }
      lineStart = lineEnd + 1;
    }
    for (let i = src.indexOf('lambda'); i >= 0; i = src.indexOf('lambda', i + 6)) {
      if (!/[\w.]/.test(src[i - 1] ?? ' ') && !/\w/.test(src[i + 6] ?? ' ')) keywordNode(i, 6);
    }
    for (let i = src.indexOf(':='); i >= 0; i = src.indexOf(':=', i + 2)) {
      const m = /([A-Za-z_]\w*)[ \t]*$/.exec(src.slice(Math.max(0, i - 80), i));
      if (m) assignments.push({ name: m[1], offset: i - m[0].length, rhsStart: i + 2 });
    }

    const ranges: ScopeRange[] = [];
    for (const n of keywordNodes) {
      const t = v.type(n);
      if (t === 'function_definition' || t === 'lambda')
        ranges.push({ start: n.startIndex, end: v.end(n), kind: 'function' });
      else if (t === 'class_definition') ranges.push({ start: n.startIndex, end: v.end(n), kind: 'class' });
    }
    this.buildScopes(ranges);
    for (const n of keywordNodes) {
      const t = v.type(n);
      if (t === 'function_definition' || t === 'class_definition') {
        DEF_NAME.lastIndex = n.startIndex;
        const m = DEF_NAME.exec(src);
        if (m)
          this.bind(this.scopes.outer(this.scopeOf(n)), m[1], this.unpicklerBase(n), OPAQUE, {
            at: n.startIndex,
            node: n,
            conditional: false,
          });
      }
      // Parameters are filed under every word of the header (a superset of their names).
      if (t === 'function_definition' || t === 'lambda')
        for (const w of headerWords(src, n.startIndex, HEADER_END)) this.pendName(w, n);
      else if (t !== 'class_definition') this.bindNode(n);
    }
    // Loop and `as` targets only ever hold opaque values: bound at once, by text.
    for (const l of loopTargets) {
      for (const w of l.words)
        if (w !== 'in')
          this.bind(this.scopes.at(l.offset), w, null, OPAQUE, { at: l.offset, node: null, conditional: true });
    }

    // Assignments: filed by target name at their offset, inspected only when that name is looked up.
    const assigned: { name: string; words: string[] }[] = [];
    const target = (first: string, firstOffset: number, firstRhsStart: number) => {
      // `a = b = c = v`: each target in turn, iteratively (a chain may be thousands long).
      for (let next: [string, number, number] | null = [first, firstOffset, firstRhsStart]; next !== null;) {
        const [name, offset, rhsStart]: [string, number, number] = next;
        next = null;
        this.pendValue(name, offset);
        const rhs = logicalTail(src, rhsStart);
        const mentioned = rhsWords(rhs);
        assigned.push({ name, words: mentioned });
        // A class attribute is reachable as `self.name` from the methods.
        if (this.scopes.at(offset).kind === 'class' && !name.includes('.')) {
          this.pendValue(`self.${name}`, offset);
          assigned.push({ name: `self.${name}`, words: mentioned });
        }
        const chained = CHAINED_TARGET.exec(rhs);
        if (chained) next = [chained[1], rhsStart + rhs.indexOf(chained[1]), rhsStart + chained[0].length];
      }
    };
    for (const a of assignments) target(a.name, a.offset, a.rhsStart);
    // A class bound to its Unpickler base (unpicklerBase) is relevant as the base is.
    for (const n of keywordNodes) {
      const base = this.unpicklerBase(n);
      const name = base ? v.field(n, 'name') : null;
      if (base && name) assigned.push({ name: v.text(name), words: rhsWords(v.text(base)) });
    }

    const words = patternWords(wanted.callPatterns, 'builtins');
    if (this.hasStars) {
      // Any free name may come from the star-imported module: look at every call.
      for (const c of v.ofType(root, ['call'])) this.callFact(c, wanted, null);
    } else {
      const roots = this.relevantNames(words, assigned);
      // Occurrences of relevant names that start a chain (not `x.name`), then of `.m` for `*.m` rules.
      const plainRoots = [...roots].filter((w) => /^\w+$/.test(w));
      if ([...roots].some((w) => w.startsWith('self.'))) plainRoots.push('self', 'cls');
      for (const m of src.matchAll(wordsRegExp(plainRoots))) {
        const i = m.index;
        let before = i - 1;
        while (before >= 0 && (src[before] === ' ' || src[before] === '\t')) before--;
        if (src[before] === '.') continue;
        const w = m[0];
        if (w === 'self' || w === 'cls') {
          SELF_ATTR.lastIndex = i;
          const attr = SELF_ATTR.exec(src);
          if (attr && roots.has(`self.${attr[1]}`)) this.chainFrom(i, w.length, wanted, words);
        } else this.chainFrom(i, w.length, wanted, words);
      }
      if (words.lasts.size > 0) {
        for (const m of src.matchAll(wordsRegExp([...words.lasts], '\\.[ \\t]*')))
          this.climbFrom(m.index + m[0].length - m[1].length, m[1].length, wanted);
      }
    }
    this.nameFacts(wanted);
    if (wanted.syntax.has('annotation_computed')) this.annotationWrites();
    return this.facts;
  }

  /**
   * Session 16: `X.__annotations__[k] = v` / `X.__annotations__ = v`. typing.get_type_hints (and
   * inspect.get_annotations(eval_str=True), pydantic, …) evaluate string annotations as code, so a
   * value that may be a string the snippet does not show is code evaluated later. Not flagged: a
   * name, attribute or subscript of names that resolve to definitions (`int`, `typing.List[int]`),
   * or a constant string of names, dots, brackets and commas (no call can be written in it).
   * `.update(...)` and `.setdefault(k, v)` on the dict are judged by their argument values.
   */
  private annotationWrites(): void {
    const v = this.view;
    for (const { index } of occurrences(v.source, new Set(['__annotations__']))) {
      const id = v.namedAt(index, index + '__annotations__'.length);
      const attr = id?.parent;
      if (!id || !attr || v.type(attr) !== 'attribute' || v.field(attr, 'attribute')?.id !== id.id) continue;
      // `X.__annotations__.update(...)` / `.setdefault(k, v)`: every argument value must be inert.
      const method = attr.parent && v.type(attr.parent) === 'attribute' ? attr.parent : null;
      const call = method?.parent && v.type(method.parent) === 'call' ? method.parent : null;
      const name = method ? v.text(v.field(method, 'attribute') ?? method) : '';
      if (call && v.field(call, 'function')?.id === method!.id && (name === 'update' || name === 'setdefault')) {
        const args = v
          .named(v.field(call, 'arguments') ?? call)
          .map((a) => (v.type(a) === 'keyword_argument' ? (v.field(a, 'value') ?? a) : a));
        const scope = this.scopeOf(call);
        const values = name === 'setdefault' ? args.slice(1) : args;
        if (values.every((a) => this.inertAnnotation(a, scope, 0))) continue;
        this.fact({ kind: 'syntax', line: v.line(call), name: 'annotation_computed', detail: v.text(method!) });
        continue;
      }
      const sub = attr.parent && v.type(attr.parent) === 'subscript' ? attr.parent : null;
      const target = sub && v.field(sub, 'value')?.id === attr.id ? sub : attr;
      const assign = target.parent;
      if (!assign || v.type(assign) !== 'assignment' || v.field(assign, 'left')?.id !== target.id) continue;
      const right = v.field(assign, 'right');
      if (!right || this.inertAnnotation(right, this.scopeOf(right), 0)) continue;
      this.fact({ kind: 'syntax', line: v.line(assign), name: 'annotation_computed', detail: v.text(target) });
    }
  }

  private inertAnnotation(n: Node, scope: Scope, depth: number): boolean {
    const v = this.view;
    if (depth > 8) return false;
    const c = this.constant(n, scope);
    if (c !== null) return /^[\w. [\],|]*$/.test(c);
    switch (v.type(n)) {
      case 'none':
        return true;
      case 'identifier':
      case 'attribute': {
        const values = this.evaluate(n, scope);
        return values.length > 0 && values.every((x) => isRef(x) && !x.endsWith('()'));
      }
      case 'subscript':
      case 'binary_operator':
      case 'tuple':
      case 'list':
        return v.named(n).every((c) => this.inertAnnotation(c, scope, depth + 1));
      case 'dictionary':
        return v
          .named(n)
          .every((pair) =>
            v.type(pair) === 'pair' ? this.inertAnnotation(v.field(pair, 'value') ?? pair, scope, depth + 1) : false,
          );
      default:
        return false;
    }
  }

  /**
   * Names whose calls can possibly match an active rule: the rules' own roots, the special
   * forms, names imported from those modules, and (to a fixed point) names assigned from an
   * expression that mentions one of them.
   */
  private relevantNames(words: PatternWords, assigned: readonly { name: string; words: string[] }[]): Set<string> {
    const relevant = new Set<string>([...words.roots, ...SPECIAL_WORDS]);
    for (const [name, values] of this.importValues) {
      if (values.some((val) => relevant.has(val.split('.')[0]))) relevant.add(name);
    }
    for (let changed = true; changed;) {
      changed = false;
      for (const a of assigned) {
        if (!relevant.has(a.name) && a.words.some((w) => relevant.has(w))) {
          relevant.add(a.name);
          changed = true;
        }
      }
    }
    return relevant;
  }

  protected globalName(name: string): boolean {
    return super.globalName(name) || this.declaredGlobal.has(name);
  }

  private pendValue(name: string, offset: number): void {
    this.valueNames.add(name);
    this.pendName(name, offset);
  }

  protected binderAt(offset: number): Node | null {
    let cur: Node | null = this.view.root.namedDescendantForIndex(offset, offset);
    for (let i = 0; cur && i < 6; i++) {
      if (ASSIGNMENT_TYPES.has(this.view.type(cur))) return cur;
      cur = cur.parent;
    }
    return null;
  }

  /**
   * A relevant name at `pos` starting a dotted chain. A plain call `a.b(` is resolved from the
   * text first, and the tree is consulted only when the resolved name can match a rule.
   */
  private chainFrom(pos: number, length: number, wanted: WantedNames, words: PatternWords): void {
    const v = this.view;
    const src = v.source;
    const plain = plainCallee(src, pos);
    if (plain) {
      const scope = this.scopes.at(pos);
      const names = [
        ...this.resolveDotted(plain.parts, scope).filter(isRef),
        ...this.flowBuiltins(plain.parts, scope, pos),
      ];
      if (!names.some((n) => mayMatch(n, words))) return;
      const call = v.root.namedDescendantForIndex(pos, plain.paren + 1);
      if (!call || call.startIndex !== pos || v.type(call) !== 'call') return;
      this.callFact(call, wanted, plain.parts);
      // The call may itself be (part of) a callee: `os.popen(c).read()`, `f(x)(y)`.
      const after = src[nextNonBlank(src, v.end(call))];
      if (after === '(' || after === '.' || after === '[') this.climb(call, wanted);
      return;
    }
    CHAIN.lastIndex = pos;
    const chain = CHAIN.exec(src);
    const next = nextNonBlank(src, pos + (chain ? chain[0].length : length));
    // Only a few shapes lead from a name that is not called directly to a call of it:
    // a subscript that is called (`h[k](x)`), or a parenthesised callee (`(f)(x)`, `(f if c else g)(x)`).
    const c = src[next];
    if (
      chain &&
      (c === ',' || c === ')' || c === ']' || c === '}' || c === '\n' || c === undefined || c === '#' || c === ';')
    ) {
      const parts = dottedParts(chain[0]);
      const node = parts ? v.root.namedDescendantForIndex(pos, pos + chain[0].length - 1) : null;
      if (parts && node && node.startIndex === pos) this.referenceFact(node, parts, this.scopeOf(node));
    }
    if (c === '[') {
      const close = matchingBracket(src, next);
      const after = close < 0 ? '(' : src[nextNonBlank(src, close + 1)];
      if (after === '(' || after === '.' || after === '[') this.climbFrom(pos, length, wanted);
    } else if ((c === ')' || /^(?:if|or|and|else)\b/.test(src.slice(next, next + 5))) && parenthesisedAlone(src, pos)) {
      this.climbFrom(pos, length, wanted);
    }
  }

  /** From the identifier at `pos`, records every call it is (part of) the callee of. */
  private climbFrom(pos: number, length: number, wanted: WantedNames): void {
    const node = this.view.root.namedDescendantForIndex(pos, pos + length - 1);
    if (!node || node.startIndex !== pos || this.view.type(node) !== 'identifier') return;
    this.climb(node, wanted);
  }

  private climb(start: Node, wanted: WantedNames): void {
    const v = this.view;
    let cur = start;
    for (let i = 0; i < 16; i++) {
      const p = cur.parent;
      if (!p) return;
      const t = v.type(p);
      if (t === 'call') {
        if (v.field(p, 'function')?.id !== cur.id) return;
        this.callFact(p, wanted, null);
      } else if (t === 'attribute') {
        if (v.field(p, 'object')?.id !== cur.id && v.field(p, 'attribute')?.id !== cur.id) return;
      } else if (t === 'subscript') {
        if (v.field(p, 'value')?.id !== cur.id) return;
      } else if (!CALLEE_WRAPPERS.has(t)) return;
      cur = p;
    }
  }

  // ── bindings ──────────────────────────────────────────────────────────────────────────

  private bind(scope: Scope, name: string, expr: Node | null, value: Value = OPAQUE, site?: BindSite): void {
    const target = this.globalsOf.get(scope)?.has(name) ? this.scopes.root : scope;
    if (FLOW_BUILTINS.has(name)) {
      let byName = this.sites.get(target);
      if (!byName) this.sites.set(target, (byName = new Map()));
      const where = site ?? { at: expr ? expr.startIndex : scope.start, node: expr, conditional: false };
      const list = byName.get(name);
      if (list) list.push(where);
      else byName.set(name, [where]);
    }
    this.knownNames.add(name);
    if (expr || value !== OPAQUE) this.valueNames.add(name);
    if (!expr && value !== OPAQUE) {
      const list = this.importValues.get(name);
      if (list) list.push(value);
      else this.importValues.set(name, [value]);
    }
    if (expr) this.scopes.bindExpr(target, name, expr);
    else this.scopes.bindValue(target, name, value);
  }

  /**
   * Session 16 (red team): `class P(pickle.Unpickler): pass` is an Unpickler (`P(f).load()`
   * unpickles), unless it defines `find_class` (the documented way to restrict what loads).
   * Its name is then bound to the base class expression; other classes stay opaque.
   */
  private unpicklerBase(n: Node): Node | null {
    const v = this.view;
    if (v.type(n) !== 'class_definition') return null;
    const sup = v.field(n, 'superclasses');
    const bases = sup ? v.args(sup) : [];
    if (bases.length !== 1 || !/(?:^|\.)Unpickler$/.test(v.text(bases[0]))) return null;
    const body = v.field(n, 'body');
    if (!body || /\bfind_class\b/.test(v.text(body))) return null;
    return bases[0];
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
            if (alias && mod) this.bind(scope, v.text(alias), null, dotted(v.text(mod)), site(n));
          } else {
            const top = dotted(v.text(item)).split('.')[0];
            this.bind(scope, top, null, top, site(n));
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
          const aliased = v.type(item) === 'aliased_import';
          const nameNode = aliased ? v.field(item, 'name') : item;
          const local = aliased ? v.field(item, 'alias') : item;
          if (!nameNode || !local) continue;
          const name = dotted(v.text(nameNode));
          this.bind(scope, v.text(local), null, `${mod}.${name}`, site(n));
          // Session 16: `eval` / `exec` / `execfile` imported by name from a module no rule knows
          // (a re-export such as `six.moves.builtins`, `past.builtins`) is taken as the builtin too.
          if (REEXPORTED_BUILTINS.has(name) && mod !== 'builtins')
            this.bind(scope, v.text(local), null, `builtins.${name}`, site(n));
        }
        return;
      }
      case 'global_statement':
      case 'nonlocal_statement': {
        let set = this.globalsOf.get(scope);
        if (!set) this.globalsOf.set(scope, (set = new Set()));
        for (const id of v.named(n)) {
          set.add(v.text(id));
          this.declaredGlobal.add(v.text(id));
        }
        return;
      }
      case 'assignment': {
        const left = v.field(n, 'left');
        const right = v.field(n, 'right');
        if (left) this.bindTarget(left, right, scope, n);
        return;
      }
      case 'augmented_assignment': {
        const left = v.field(n, 'left');
        if (left && v.type(left) === 'identifier') this.bind(scope, v.text(left), n, OPAQUE, site(n));
        return;
      }
      case 'named_expression': {
        const name = v.field(n, 'name');
        const value = v.field(n, 'value');
        if (name) this.bind(scope, v.text(name), value, OPAQUE, site(n));
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
  private bindTarget(left: Node, right: Node | null, scope: Scope, statement: Node): void {
    const v = this.view;
    const lt = v.type(left);
    if (lt === 'identifier') {
      this.bind(scope, v.text(left), right, OPAQUE, site(statement));
      if (scope.kind === 'class' && right) this.scopes.bindExpr(this.scopes.root, `self.${v.text(left)}`, right);
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
      targets.forEach((t, i) =>
        this.bindTarget(t, values && values.length === targets.length ? values[i] : null, scope, statement),
      );
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
    if (selfKey && this.boundSomewhere(selfKey))
      return membersOf(this.lookupName(selfKey, this.scopes.root), parts.slice(2));
    const base = this.lookupName(parts[0], scope);
    return parts.length === 1 ? base : membersOf(base, parts.slice(1));
  }

  /**
   * `eval(x)` … `from m import eval`: the binding of a FLOW_BUILTINS name counts only from where
   * it certainly ran: an unconditional binding in the binding scope before the use (for a use in
   * a nested function, before that function's definition). Otherwise the builtin stays a
   * candidate (fail closed).
   */
  private flowBuiltins(parts: readonly string[], scope: Scope, at: number): Value[] {
    const name = parts[0];
    if (!FLOW_BUILTINS.has(name) || this.globalName(name)) return [];
    const bindings = this.scopes.lookup(scope, name);
    if (!bindings || bindings.length === 0) return [];
    const home = bindings[0].scope;
    let pos = at;
    for (let s: Scope | null = scope; s && s !== home; s = s.parent) pos = s.start;
    const sites = this.sites.get(home)?.get(name) ?? [];
    if (sites.some((b) => b.at < pos && !b.conditional && !this.underCondition(b.node))) return [];
    return membersOf([`builtins.${name}`], parts.slice(1));
  }

  /** Whether a binding statement sits under a branch, loop, handler or comprehension of its scope. */
  private underCondition(node: Node | null): boolean {
    if (!node) return false;
    const v = this.view;
    for (let cur = node.parent; cur; cur = cur.parent) {
      const t = v.type(cur);
      if (SCOPE_TYPES.has(t)) return false;
      if (CONDITIONAL_TYPES.has(t)) return true;
    }
    return false;
  }

  /** A name or dotted reference at `node` handed over as a value (argument, container element, returned). */
  private referenceFact(node: Node, parts: readonly string[], scope: Scope): void {
    const v = this.view;
    const parent = node.parent;
    if (!parent || !VALUE_CONTAINERS.has(v.type(parent))) return;
    if (v.type(parent) === 'keyword_argument' && v.field(parent, 'value')?.id !== node.id) return;
    if (v.type(parent) === 'pair' && v.field(parent, 'value')?.id !== node.id) return;
    // Class bases and type tests name the callable without handing it to anyone.
    const holder = v.type(parent) === 'keyword_argument' ? parent.parent : parent;
    const owner = holder && v.type(holder) === 'argument_list' ? holder.parent : null;
    if (owner && v.type(owner) === 'class_definition') return;
    const callee = owner && v.type(owner) === 'call' ? v.field(owner, 'function') : null;
    if (callee && INSPECTING_CALLS.has(v.text(callee))) return;
    const names = [
      ...this.resolveDotted(parts, scope).filter(isRef),
      ...this.flowBuiltins(parts, scope, node.startIndex),
    ];
    if (names.length > 0) this.facts.push({ kind: 'reference', line: v.line(node), names });
    // Session 12: `def __reduce__(self): return (os.system, (...))` is a pickle gadget: whoever
    // unpickles the object calls it (unsafe deserialization as well as the callable handed over).
    if (
      names.length > 0 &&
      ['tuple', 'expression_list'].includes(v.type(parent)) &&
      v.args(parent)[0]?.id === node.id
    ) {
      const ret =
        parent.parent && v.type(parent.parent) === 'parenthesized_expression' ? parent.parent.parent : parent.parent;
      const fn =
        ret && v.type(ret) === 'return_statement' ? v.ancestor(ret, new Set(['function_definition']), 8) : null;
      const fname = fn ? v.field(fn, 'name') : null;
      const runs = names.find((n) => PICKLE_GADGET_CALLABLES.test(n));
      if (fname && runs && /^__reduce(?:_ex)?__$/.test(v.text(fname)))
        this.fact({ kind: 'syntax', line: v.line(node), name: 'pickle_gadget', detail: runs });
    }
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
        // Session 16 (red team): `vars(os)` is `os.__dict__` (`vars(os)['popen'](c)`).
        case 'builtins.vars':
          if (args[0]) {
            for (const base of this.evaluate(args[0], scope).filter(isRef)) out.push(`${base}.__dict__`);
            break;
          }
          out.push(resultName(callee, () => null));
          break;
        default: {
          out.push(resultName(callee, () => (args[0] ? this.constant(args[0], scope) : null)));
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

  /** Path-sensitive constants inside a function body (python-paths.ts), asked when the flow-insensitive answer is not one constant. */
  private readonly paths = new PythonPathConstants(this.view, (n) => this.stringLiteral(n));

  /** As AnalysisBase.constant; a name with several bindings is then read along the path to it. */
  constant(node: Node, scope: Scope): string | null {
    const c = super.constant(node, scope);
    if (c !== null || this.view.type(node) !== 'identifier') return c;
    const all = this.paths.constantsAt(node);
    return all?.length === 1 ? all[0] : null;
  }

  /** A name a guard checked to hold one plain string literal's text (python-literal-guard.ts). */
  private readonly literalGuard = new PythonLiteralGuard(this.view, (n) => this.stringLiteral(n));
  inertLiteral(node: Node): boolean {
    return this.literalGuard.checked(node);
  }

  /**
   * Session 16: `base64.urlsafe_b64decode(bar)` (payload-decode.ts) with one positional argument
   * whose every constant on the paths to it is known: each decoding's bytes, or `raises`; else null.
   */
  decoded(node: Node, scope: Scope): readonly Decoded[] | null {
    const v = this.view;
    if (v.type(node) !== 'call') return null;
    const fn = v.field(node, 'function');
    const argsNode = v.field(node, 'arguments');
    if (!fn || !argsNode || v.type(argsNode) !== 'argument_list') return null;
    const args = v.args(argsNode);
    if (args.length !== 1 || this.positional(argsNode).length !== 1) return null;
    const callee = this.evaluate(fn, scope);
    const name = callee[0];
    if (!isRef(name) || !EXACT_DECODERS.has(name) || callee.some((c) => c !== name)) return null;
    const texts = this.constants(args[0], scope);
    if (texts === null || texts.length === 0) return null;
    const out: Decoded[] = [];
    for (const t of texts) {
      const d = decodeExact(name, t);
      if (d === null) return null;
      out.push(d);
    }
    return out;
  }

  /** Every constant a name may hold on the paths to it (python-paths.ts), or null. */
  constants(node: Node, scope: Scope): readonly string[] | null {
    const c = this.constant(node, scope);
    if (c !== null) return [c];
    return this.view.type(node) === 'identifier' ? this.paths.constantsAt(node) : null;
  }

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

  protected readonly arms: StringArms = {
    binary: 'binary_operator',
    concat: '+',
    format: '%',
    paren: 'parenthesized_expression',
    names: ['identifier'],
  };

  protected ownConstant(node: Node, scope: Scope): string | null {
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

  protected ownDynamicString(node: Node, scope: Scope): boolean {
    const v = this.view;
    switch (v.type(node)) {
      case 'string':
        return this.stringLiteral(node) === null;
      case 'concatenated_string':
        return v.args(node).some((p) => this.dynamicString(p, scope));
      case 'call': {
        const fn = v.field(node, 'function');
        if (!fn || v.type(fn) !== 'attribute') return false;
        const obj = v.field(fn, 'object');
        const attr = v.field(fn, 'attribute');
        return !!obj && !!attr && (v.text(attr) === 'format' || v.text(attr) === 'join') && this.stringy(obj, scope);
      }
      default:
        return false;
    }
  }

  // ── facts ─────────────────────────────────────────────────────────────────────────────

  private callFact(node: Node, wanted: WantedNames, plain: readonly string[] | null): void {
    if (this.seenCalls.has(node.id)) return;
    this.seenCalls.add(node.id);
    const v = this.view;
    const scope = this.scopeOf(node);
    let names: Value[];
    if (plain)
      names = [...this.resolveDotted(plain, scope).filter(isRef), ...this.flowBuiltins(plain, scope, node.startIndex)];
    else {
      const fn = v.field(node, 'function');
      if (!fn) return;
      names = this.evaluate(fn, scope).filter(isRef);
      if (v.type(fn) === 'identifier') names.push(...this.flowBuiltins([v.text(fn)], scope, node.startIndex));
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

function site(n: Node): BindSite {
  return { at: n.startIndex, node: n, conditional: false };
}
