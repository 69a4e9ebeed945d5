// Python: a name that a guard has checked to hold the source text of one plain quoted string
// literal (issue 24, session 15; owasp-benchmark-python's safe code-injection cases):
//
//     if not x.startswith("'") or not x.endswith("'") or "'" in x[1:-1]:
//         return …            # or raise
//     … eval(x) …
//
// After such a guard, x starts and ends with the quote and holds none in between, with no prefix
// letter before it (no f-string): Python reads it as one short string literal (escapes only build
// characters; a newline or a trailing backslash is a SyntaxError), so eval / exec build a string
// and run nothing. Accepted spellings of the three facts: `not x.startswith(q)` / `x[0] != q`,
// `not x.endswith(q)` / `x[-1] != q`, and `q in x[1:-1]` / `x.count(q) != 2`, with q one and the
// same quote character, joined by `or` (extra disjuncts only reject more). Everything else fails
// closed (false): another shape, the guard not leaving (its body's last statement is not a
// return or raise, or it has an else), the guard in another function than the use or under a
// loop, x bound or written anywhere after the guard, x declared global or nonlocal, or a snippet
// defining its own startswith / endswith / count / __contains__ / __getitem__.
import type { Node } from 'web-tree-sitter';
import type { SyntaxView } from '../syntax.js';

/** Words a guard is written with: a snippet without any of them is not searched. */
const GUARD_WORDS = /startswith|\[\s*0\s*\]|\.count\s*\(/;
const OWN_PROTOCOL = /\bdef\s+(?:startswith|endswith|count|__contains__|__getitem__|__ne__|__eq__)\b/;
/** Parents under which an identifier is only read (anything else may bind or change it: fail closed). */
const READ_PARENTS = new Set([
  'argument_list',
  'attribute',
  'subscript',
  'comparison_operator',
  'binary_operator',
  'boolean_operator',
  'not_operator',
  'parenthesized_expression',
  'interpolation',
  'conditional_expression',
  'return_statement',
  'keyword_argument',
  'expression_statement',
  'list',
  'tuple',
  'set',
  'dictionary',
  'pair',
]);
type Fact = 'starts' | 'ends' | 'inner';

export class PythonLiteralGuard {
  private readonly answers = new Map<number, boolean>();

  constructor(
    private readonly view: SyntaxView,
    /** The value of a string literal node, or null. */
    private readonly literal: (n: Node) => string | null,
  ) {}

  /** The identifier `use` certainly holds one plain quoted string literal's source text. */
  checked(use: Node): boolean {
    if (this.view.type(use) !== 'identifier') return false;
    let out = this.answers.get(use.id);
    if (out === undefined) {
      out = this.answer(use);
      this.answers.set(use.id, out);
    }
    return out;
  }

  /** Per source, once: the snippet can hold a guard at all, and defines none of the string protocol methods. */
  private possible: boolean | undefined;
  /** Per function: names declared global/nonlocal, and the offsets where each name is bound or written. */
  private readonly functions = new Map<number, { declared: Set<string>; writes: Map<string, number[]> }>();
  /** Per block: its guard statements (start offset, end offset, the names each checks). */
  private readonly guards = new Map<number, Array<{ start: number; end: number; names: Set<string> }>>();

  private answer(use: Node): boolean {
    const v = this.view;
    this.possible ??= GUARD_WORDS.test(v.source) && !OWN_PROTOCOL.test(v.source);
    if (!this.possible) return false;
    const name = v.text(use);
    // The chain from the use up to its function's body block.
    const chain: Node[] = [];
    let fn: Node | null = null;
    for (let n: Node | null = use.parent; n; n = n.parent) {
      const t = v.type(n);
      if (t === 'function_definition') {
        fn = n;
        break;
      }
      if (t === 'lambda' || t === 'class_definition' || t === 'for_statement' || t === 'while_statement') return false;
      if (t.endsWith('comprehension') || t === 'generator_expression') return false;
      chain.push(n);
    }
    if (!fn || !v.field(fn, 'body')) return false;
    const info = this.functionInfo(fn);
    if (info.declared.has(name)) return false;
    // A guard: a statement before the use's statement in a block on the chain.
    let guardEnd = -1;
    for (const n of chain) {
      const block = n.parent;
      if (!block || v.type(block) !== 'block') continue;
      for (const g of this.blockGuards(block)) if (g.end <= n.startIndex && g.names.has(name)) guardEnd = g.end;
      if (guardEnd >= 0) break;
    }
    if (guardEnd < 0) return false;
    // The name is only read from the guard to the end of the function.
    return !(info.writes.get(name) ?? []).some((at) => at >= guardEnd);
  }

  private functionInfo(fn: Node): { declared: Set<string>; writes: Map<string, number[]> } {
    const cached = this.functions.get(fn.id);
    if (cached) return cached;
    const v = this.view;
    const declared = new Set<string>();
    for (const d of v.ofType(fn, ['global_statement', 'nonlocal_statement']))
      for (const c of v.named(d)) declared.add(v.text(c));
    const writes = new Map<string, number[]>();
    for (const id of v.ofType(fn, ['identifier'])) {
      const p = id.parent;
      const t = p ? v.type(p) : '';
      if (READ_PARENTS.has(t)) continue;
      // The value side of an assignment reads (`y = x`); its target binds.
      if ((t === 'assignment' || t === 'augmented_assignment') && v.field(p!, 'left')?.id !== id.id) continue;
      const list = writes.get(v.text(id));
      if (list) list.push(id.startIndex);
      else writes.set(v.text(id), [id.startIndex]);
    }
    const info = { declared, writes };
    this.functions.set(fn.id, info);
    return info;
  }

  private blockGuards(block: Node): Array<{ start: number; end: number; names: Set<string> }> {
    const cached = this.guards.get(block.id);
    if (cached) return cached;
    const v = this.view;
    const out: Array<{ start: number; end: number; names: Set<string> }> = [];
    for (const s of v.named(block)) {
      if (v.type(s) !== 'if_statement') continue;
      const names = this.guardedNames(s);
      if (names.size > 0) out.push({ start: s.startIndex, end: v.end(s), names });
    }
    this.guards.set(block.id, out);
    return out;
  }

  /** The names an `if <or-chain>:` whose body leaves (return / raise) and which has no else checks all three facts of. */
  private guardedNames(s: Node): Set<string> {
    const v = this.view;
    const none = new Set<string>();
    if (v.field(s, 'alternative')) return none;
    if (v.named(s).some((c) => v.type(c) === 'elif_clause' || v.type(c) === 'else_clause')) return none;
    const cons = v.field(s, 'consequence');
    const last = cons
      ? v
          .named(cons)
          .filter((c) => v.type(c) !== 'comment')
          .at(-1)
      : undefined;
    if (!last || (v.type(last) !== 'return_statement' && v.type(last) !== 'raise_statement')) return none;
    const cond = v.field(s, 'condition');
    if (!cond) return none;
    /** name → fact → quote */
    const facts = new Map<string, Map<Fact, string>>();
    for (const d of this.disjuncts(cond)) {
      const f = this.fact(d);
      if (!f) continue;
      const [name, fact, quote] = f;
      const m = facts.get(name) ?? new Map<Fact, string>();
      m.set(fact, quote);
      facts.set(name, m);
    }
    const out = new Set<string>();
    for (const [name, m] of facts) {
      const q = m.get('starts');
      if (q !== undefined && m.get('ends') === q && m.get('inner') === q) out.add(name);
    }
    return out;
  }

  /** The operands of an `or` chain (parentheses dropped). */
  private disjuncts(n: Node): Node[] {
    const v = this.view;
    const t = v.type(n);
    if (t === 'parenthesized_expression') {
      const inner = v.named(n)[0];
      return inner ? this.disjuncts(inner) : [n];
    }
    if (t === 'boolean_operator' && v.text(v.field(n, 'operator') ?? n) === 'or') {
      const l = v.field(n, 'left');
      const r = v.field(n, 'right');
      return l && r ? [...this.disjuncts(l), ...this.disjuncts(r)] : [n];
    }
    return [n];
  }

  /** One disjunct as a fact about a name and its quote character, or null. */
  private fact(d: Node): [string, Fact, string] | null {
    const v = this.view;
    const t = v.type(d);
    if (t === 'not_operator') {
      // not x.startswith(q) / not x.endswith(q)
      const call = v.field(d, 'argument');
      const m = call ? this.method(call) : null;
      if (m && (m.method === 'startswith' || m.method === 'endswith'))
        return [m.name, m.method === 'startswith' ? 'starts' : 'ends', m.quote];
      return null;
    }
    if (t !== 'comparison_operator') return null;
    const parts = v.named(d);
    if (parts.length !== 2) return null;
    const op = v.source.slice(v.end(parts[0]), parts[1].startIndex).trim();
    const [a, b] = parts;
    if (op === 'in') {
      // q in x[1:-1]
      const q = this.quote(a);
      const x = this.sliced(b, '1:-1');
      return q && x ? [x, 'inner', q] : null;
    }
    if (op !== '!=') return null;
    // x[0] != q, x[-1] != q, x.count(q) != 2
    const q = this.quote(b);
    const first = this.sliced(a, '0');
    if (q && first) return [first, 'starts', q];
    const lastOne = this.sliced(a, '-1');
    if (q && lastOne) return [lastOne, 'ends', q];
    const m = this.method(a);
    if (m?.method === 'count' && v.text(b) === '2') return [m.name, 'inner', m.quote];
    return null;
  }

  /** `x.method(q)` with x a name and q one quote character. */
  private method(call: Node): { name: string; method: string; quote: string } | null {
    const v = this.view;
    if (v.type(call) !== 'call') return null;
    const fn = v.field(call, 'function');
    const args = v.field(call, 'arguments');
    if (!fn || !args || v.type(fn) !== 'attribute') return null;
    const obj = v.field(fn, 'object');
    const attr = v.field(fn, 'attribute');
    if (!obj || !attr || v.type(obj) !== 'identifier') return null;
    const list = v.named(args);
    const q = list.length === 1 ? this.quote(list[0]) : null;
    return q ? { name: v.text(obj), method: v.text(attr), quote: q } : null;
  }

  /** The name x of `x[<index>]` with the index written exactly as given (`0`, `-1`, `1:-1`), or null. */
  private sliced(n: Node, index: string): string | null {
    const v = this.view;
    if (v.type(n) !== 'subscript') return null;
    const value = v.field(n, 'value');
    if (!value || v.type(value) !== 'identifier') return null;
    const open = v.source.indexOf('[', v.end(value));
    const close = v.end(n) - 1;
    return open >= 0 && v.source.slice(open + 1, close).replace(/\s+/g, '') === index ? v.text(value) : null;
  }

  /** A string literal holding exactly `'` or `"`. */
  private quote(n: Node): string | null {
    if (this.view.type(n) !== 'string') return null;
    const s = this.literal(n);
    return s === "'" || s === '"' ? s : null;
  }
}
