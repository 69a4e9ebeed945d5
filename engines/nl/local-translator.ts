// The `local` provider: a deterministic translator from English arithmetic questions to a
// math-engine expression (docs/natural-language.md, "The local translator"). Pure, no model,
// linear in the query: one tokenizing pass and a recursive-descent parser over the tokens
// (bounded depth). It recognises a closed grammar (percentages, plus/minus/times/divided by,
// sum/product/difference/quotient of, squared, cubed, square/cube root of, to the power of,
// more/less than, increased/decreased by, simple rates and totals); whatever it cannot
// consume completely is not a math query for it (is_math_query false), never a guess.
//
// The claimed answer is the value the question itself asserts ("is 15% of 80 equal to 12?"),
// or otherwise the translator's own evaluation of its parse tree, computed independently of
// the math engine that later evaluates the printed expression.

export interface LocalTranslation {
  is_math_query: boolean;
  expression: string | null;
  claimed_answer: number | null;
  reasoning: string;
  confidence: number;
  /** True when claimed_answer is the value the question itself asserts (not the translator's own evaluation). */
  asserted?: boolean;
}

export const LOCAL_LIMITS = {
  maxQueryChars: 2000,
  maxTokens: 200,
  maxDepth: 24,
} as const;

type Node =
  | { k: 'num'; v: number; text: string }
  | { k: 'bin'; op: '+' | '-' | '*' | '/' | '^'; a: Node; b: Node }
  | { k: 'fn'; f: 'sqrt' | 'cbrt'; a: Node }
  | { k: 'neg'; a: Node };

const SMALL: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Record<string, number> = { hundred: 100, thousand: 1000, million: 1_000_000 };

/** Words that carry no arithmetic meaning where they stand (articles, currency, politeness). */
const CURRENCY_WORDS = new Set(['dollar', 'dollars', 'euro', 'euros', 'pound', 'pounds', 'usd', 'eur', 'gbp', 'bucks']);

class NotTranslatable extends Error {}

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

type Tok = { t: 'num'; v: number; text: string } | { t: 'w'; w: string } | { t: 'sym'; s: string };

/** Three digits at `at`, not followed by a fourth: the group after a thousands comma. */
function isThousands(text: string, at: number): boolean {
  for (let k = 0; k < 3; k++) {
    const c = text[at + k];
    if (c === undefined || c < '0' || c > '9') return false;
  }
  const after = text[at + 3];
  return after === undefined || after < '0' || after > '9';
}

/** One pass over the text; character classes only (no backtracking). */
export function tokenize(text: string): Tok[] | null {
  const out: Tok[] = [];
  let i = 0;
  const n = text.length;
  const isDigit = (c: string) => c >= '0' && c <= '9';
  const isLetter = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  while (i < n) {
    const c = text[i] as string;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++;
    } else if (isDigit(c) || (c === '.' && i + 1 < n && isDigit(text[i + 1] as string))) {
      let j = i;
      let s = '';
      let dot = false;
      while (j < n) {
        const d = text[j] as string;
        if (isDigit(d)) s += d;
        else if (d === ',' && !dot && s.length > 0 && isThousands(text, j + 1)) {
          /* thousands separator: 1,000 */
        } else if (d === '.' && !dot && j + 1 < n && isDigit(text[j + 1] as string)) {
          dot = true;
          s += d;
        } else break;
        j++;
      }
      if (s.startsWith('.')) s = `0${s}`;
      if (s.replace('.', '').length > 30) return null;
      out.push({ t: 'num', v: Number(s), text: s });
      i = j;
    } else if (isLetter(c)) {
      let j = i;
      while (j < n && (isLetter(text[j] as string) || text[j] === "'")) j++;
      out.push({ t: 'w', w: text.slice(i, j).toLowerCase().replace(/'s$/, "'s") });
      i = j;
    } else if ('+-*/^()%=×÷$€£?,.!:;'.includes(c)) {
      out.push({ t: 'sym', s: c === '×' ? '*' : c === '÷' ? '/' : c });
      i++;
    } else {
      return null; // anything else: not something this translator reads
    }
    if (out.length > LOCAL_LIMITS.maxTokens) return null;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------------------

class Parser {
  private i = 0;
  private depth = 0;
  constructor(private readonly toks: Tok[]) {}

  get done(): boolean {
    return this.i >= this.toks.length;
  }
  private peek(o = 0): Tok | undefined {
    return this.toks[this.i + o];
  }
  private isWord(w: string, o = 0): boolean {
    const t = this.peek(o);
    return t?.t === 'w' && t.w === w;
  }
  private isSym(s: string, o = 0): boolean {
    const t = this.peek(o);
    return t?.t === 'sym' && t.s === s;
  }
  /** Consumes a sequence of words if all are next. */
  words(...ws: string[]): boolean {
    for (let k = 0; k < ws.length; k++) if (!this.isWord(ws[k] as string, k)) return false;
    this.i += ws.length;
    return true;
  }
  sym(s: string): boolean {
    if (!this.isSym(s)) return false;
    this.i++;
    return true;
  }
  /** Skips any of the given words, once each occurrence. */
  skip(...ws: string[]): void {
    while (ws.some((w) => this.isWord(w))) this.i++;
  }
  mark(): number {
    return this.i;
  }
  reset(m: number): void {
    this.i = m;
  }
  rest(): Tok[] {
    return this.toks.slice(this.i);
  }

  private enter(): void {
    if (++this.depth > LOCAL_LIMITS.maxDepth) throw new NotTranslatable('too deeply nested');
  }
  private leave(): void {
    this.depth--;
  }

  // expr := term (('plus'|'+'|'minus'|'-'|'and' in sum context) term)*
  expr(): Node {
    this.enter();
    let a = this.term();
    for (;;) {
      if (this.sym('+') || this.words('plus') || this.words('added', 'to'))
        a = { k: 'bin', op: '+', a, b: this.term() };
      else if (this.sym('-') || this.words('minus')) a = { k: 'bin', op: '-', a, b: this.term() };
      else if (this.words('more', 'than')) a = { k: 'bin', op: '+', a: this.term(), b: a };
      else if (this.words('less', 'than') || this.words('fewer', 'than')) {
        const b = this.term();
        a = { k: 'bin', op: '-', a: b, b: a };
      } else if (this.words('increased', 'by')) a = this.changeBy(a, '+');
      else if (this.words('decreased', 'by') || this.words('reduced', 'by')) a = this.changeBy(a, '-');
      else break;
    }
    this.leave();
    return a;
  }

  /** "A increased by 10%" = A * (1 + 10/100); "A increased by 3" = A + 3. */
  private changeBy(a: Node, op: '+' | '-'): Node {
    const m = this.mark();
    const n = this.number();
    if (n && (this.sym('%') || this.words('percent') || this.words('per', 'cent'))) {
      return { k: 'bin', op: '*', a, b: { k: 'bin', op, a: num(1), b: { k: 'bin', op: '/', a: n, b: num(100) } } };
    }
    this.reset(m);
    return { k: 'bin', op, a, b: this.term() };
  }

  // term := power (('times'|'*'|'x'|'multiplied by'|'divided by'|'/'|'over') power)*
  term(): Node {
    this.enter();
    let a = this.power();
    for (;;) {
      if (this.sym('*') || this.words('times') || this.words('multiplied', 'by') || this.words('x'))
        a = { k: 'bin', op: '*', a, b: this.power() };
      else if (this.sym('/') || this.words('divided', 'by') || this.words('over'))
        a = { k: 'bin', op: '/', a, b: this.power() };
      else break;
    }
    this.leave();
    return a;
  }

  // power := unary ('squared' | 'cubed' | ('to the power of'|'raised to the power of'|'^') unary)*
  power(): Node {
    this.enter();
    let a = this.unary();
    for (;;) {
      if (this.words('squared')) a = { k: 'bin', op: '^', a, b: num(2) };
      else if (this.words('cubed')) a = { k: 'bin', op: '^', a, b: num(3) };
      else if (
        this.sym('^') ||
        this.words('to', 'the', 'power', 'of') ||
        this.words('raised', 'to', 'the', 'power', 'of') ||
        this.words('to', 'the', 'power')
      ) {
        a = { k: 'bin', op: '^', a, b: this.unary() };
      } else break;
    }
    this.leave();
    return a;
  }

  unary(): Node {
    this.enter();
    try {
      this.skip('the');
      if (this.sym('-') || this.words('negative') || this.words('minus')) return { k: 'neg', a: this.unary() };
      if (this.words('square', 'root', 'of') || this.words('sqrt', 'of') || this.words('sqrt'))
        return { k: 'fn', f: 'sqrt', a: this.unary() };
      if (this.words('cube', 'root', 'of')) return { k: 'fn', f: 'cbrt', a: this.unary() };
      if (this.words('half', 'of')) return { k: 'bin', op: '/', a: this.unary(), b: num(2) };
      if (this.words('a', 'third', 'of') || this.words('one', 'third', 'of'))
        return { k: 'bin', op: '/', a: this.unary(), b: num(3) };
      if (this.words('a', 'quarter', 'of') || this.words('one', 'quarter', 'of'))
        return { k: 'bin', op: '/', a: this.unary(), b: num(4) };
      if (this.words('twice') || this.words('double')) return { k: 'bin', op: '*', a: num(2), b: this.unary() };
      if (this.words('triple')) return { k: 'bin', op: '*', a: num(3), b: this.unary() };
      if (this.words('square', 'of')) return { k: 'bin', op: '^', a: this.unary(), b: num(2) };
      if (this.words('cube', 'of')) return { k: 'bin', op: '^', a: this.unary(), b: num(3) };
      for (const [word, op] of [
        ['sum', '+'],
        ['product', '*'],
        ['difference', '-'],
        ['quotient', '/'],
      ] as const) {
        if (this.words(word, 'of') || this.words(word, 'between')) {
          const a = this.expr0();
          if (!this.words('and')) throw new NotTranslatable(`"${word} of" needs "and"`);
          const b = this.term();
          return { k: 'bin', op, a, b };
        }
      }
      if (this.sym('(')) {
        const e = this.expr();
        if (!this.sym(')')) throw new NotTranslatable('unbalanced parenthesis');
        return e;
      }
      const n = this.number();
      if (!n) throw new NotTranslatable('expected a number');
      // "15% of 80", "15 percent of 80"; a bare "15%" is 15/100.
      if (this.sym('%') || this.words('percent') || this.words('per', 'cent')) {
        const p: Node = { k: 'bin', op: '/', a: n, b: num(100) };
        if (this.words('of')) return { k: 'bin', op: '*', a: p, b: this.unary() };
        return p;
      }
      return this.rate(n);
    } finally {
      this.leave();
    }
  }

  /** The first operand of "sum of A and B": an expression that stops at "and". */
  private expr0(): Node {
    return this.term();
  }

  /**
   * Rates and totals: "3 notebooks at 4.50 each", "3 notebooks at $4.50 per notebook",
   * "12 hours at 15 dollars per hour", "40 dollars per hour for 6 hours", "3 boxes of 12".
   */
  private rate(n: Node): Node {
    const m = this.mark();
    // "<n> [unit words] at <price> [each|apiece|per <unit>|a <unit>]"
    const unitWords = this.nounRun();
    if (unitWords > 0 || this.isWord('at')) {
      if (this.words('at')) {
        const price = this.number();
        if (price) {
          this.skip(...CURRENCY_WORDS);
          if (this.words('each') || this.words('apiece')) return { k: 'bin', op: '*', a: n, b: price };
          if ((this.words('per') || this.words('a') || this.words('an')) && this.nounRun() > 0)
            return { k: 'bin', op: '*', a: n, b: price };
          return { k: 'bin', op: '*', a: n, b: price };
        }
      }
      // "<n> <units> of <m>" (3 boxes of 12 eggs)
      if (unitWords > 0 && this.words('of')) {
        const per = this.number();
        if (per) {
          this.nounRun();
          return { k: 'bin', op: '*', a: n, b: per };
        }
      }
      // "<n> <units> per <unit> for <m> <units>"
      if (this.words('per') && this.nounRun() > 0 && this.words('for')) {
        const t = this.number();
        if (t) {
          this.nounRun();
          return { k: 'bin', op: '*', a: n, b: t };
        }
      }
      if (unitWords > 0 && !this.isWord('at')) {
        // Units after a plain number ("5 dollars") are only skipped when they are currency words.
        const after = this.mark();
        this.reset(m);
        this.skip(...CURRENCY_WORDS);
        if (this.mark() === after) return n;
      }
      this.reset(m);
    }
    this.skip(...CURRENCY_WORDS);
    return n;
  }

  /** Consumes plain nouns (not operator words) after a count; returns how many. */
  private nounRun(): number {
    let k = 0;
    while (k < 3) {
      const t = this.peek();
      if (t?.t !== 'w' || RESERVED.has(t.w) || t.w in SMALL || t.w in SCALES) break;
      this.i++;
      k++;
    }
    return k;
  }

  /** A number: digits (with an optional currency sign before) or English number words. */
  number(): Node | null {
    const m = this.mark();
    this.sym('$') || this.sym('€') || this.sym('£');
    const t = this.peek();
    if (t?.t === 'num') {
      this.i++;
      let v = t.v;
      const text = t.text;
      const scale = this.peek();
      if (scale?.t === 'w' && scale.w in SCALES) {
        this.i++;
        v *= SCALES[scale.w] as number;
        return { k: 'bin', op: '*', a: { k: 'num', v: t.v, text }, b: num(SCALES[scale.w] as number) };
      }
      return { k: 'num', v, text };
    }
    // English number words: "twenty five", "three hundred", "two thousand five hundred".
    let total = 0;
    let current = 0;
    let any = false;
    for (;;) {
      const w = this.peek();
      if (w?.t !== 'w') break;
      if (w.w in SMALL) {
        current += SMALL[w.w] as number;
        any = true;
        this.i++;
      } else if (w.w in SCALES && any) {
        const s = SCALES[w.w] as number;
        if (s === 100) current = (current || 1) * 100;
        else {
          total += (current || 1) * s;
          current = 0;
        }
        this.i++;
      } else if (
        w.w === 'a' &&
        (this.isWord('hundred', 1) || this.isWord('thousand', 1) || this.isWord('million', 1)) &&
        !any
      ) {
        current = 1;
        any = true;
        this.i++;
      } else if (
        w.w === 'and' &&
        any &&
        this.peek(1)?.t === 'w' &&
        (this.peek(1) as { w: string }).w in SMALL &&
        current % 100 === 0 &&
        current > 0
      ) {
        this.i++;
      } else break;
    }
    if (!any) {
      this.reset(m);
      return null;
    }
    const v = total + current;
    return { k: 'num', v, text: String(v) };
  }
}

const RESERVED = new Set([
  'plus',
  'minus',
  'times',
  'x',
  'multiplied',
  'divided',
  'over',
  'by',
  'squared',
  'cubed',
  'to',
  'the',
  'power',
  'raised',
  'of',
  'and',
  'more',
  'less',
  'fewer',
  'than',
  'increased',
  'decreased',
  'reduced',
  'percent',
  'per',
  'cent',
  'at',
  'each',
  'apiece',
  'for',
  'is',
  'equal',
  'equals',
  'a',
  'an',
  'what',
  'how',
  'much',
  'many',
  'sum',
  'product',
  'difference',
  'quotient',
  'square',
  'root',
  'cube',
  'half',
  'twice',
  'double',
  'triple',
  'negative',
  'in',
  'total',
  'it',
  'does',
  'give',
  'gives',
  'make',
  'makes',
  'result',
  'answer',
  'then',
]);

const num = (v: number): Node => ({ k: 'num', v, text: String(v) });

// ---------------------------------------------------------------------------------------
// Printing and the translator's own evaluation
// ---------------------------------------------------------------------------------------

function print(n: Node): string {
  switch (n.k) {
    case 'num':
      return n.text;
    case 'neg':
      return `(-${print(n.a)})`;
    case 'fn':
      return `${n.f}(${print(n.a)})`;
    case 'bin':
      return `(${print(n.a)} ${n.op} ${print(n.b)})`;
  }
}

function evaluate(n: Node): number {
  switch (n.k) {
    case 'num':
      return n.v;
    case 'neg':
      return -evaluate(n.a);
    case 'fn':
      return n.f === 'sqrt' ? Math.sqrt(evaluate(n.a)) : Math.cbrt(evaluate(n.a));
    case 'bin': {
      const a = evaluate(n.a);
      const b = evaluate(n.b);
      switch (n.op) {
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return a / b;
        case '^':
          return a ** b;
      }
    }
  }
}

/** Strips the outermost parentheses of a printed expression when they enclose all of it. */
function unwrap(s: string): string {
  if (!s.startsWith('(') || !s.endsWith(')')) return s;
  let depth = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    if (depth === 0 && i < s.length - 1) return s;
  }
  return s.slice(1, -1);
}

// ---------------------------------------------------------------------------------------
// Sentence frames
// ---------------------------------------------------------------------------------------

const LEAD_FRAMES: string[][] = [
  ['what', 'is'],
  ["what's"],
  ['whats'],
  ['what', 'are'],
  ['how', 'much', 'is'],
  ['how', 'much', 'are'],
  ['how', 'many', 'is'],
  ['calculate'],
  ['compute'],
  ['evaluate'],
  ['find'],
  ['work', 'out'],
  ['tell', 'me'],
  ['determine'],
  ['solve'],
  ['is'],
  ['does'],
  ['do'],
  ['check', 'that'],
  ['check', 'if'],
  ['check', 'whether'],
  ['verify', 'that'],
  ['verify'],
];
const POLITE = ['please', 'can', 'you', 'could', 'would'];
const TOTAL_FRAMES: string[][] = [
  ['the', 'total', 'cost', 'of'],
  ['the', 'total', 'price', 'of'],
  ['the', 'total', 'of'],
  ['the', 'cost', 'of'],
  ['the', 'price', 'of'],
  ['the', 'value', 'of'],
  ['the', 'result', 'of'],
];
const CLAIM_FRAMES: string[][] = [
  ['is', 'equal', 'to'],
  ['equal', 'to'],
  ['equals'],
  ['equal'],
  ['is'],
  ['make'],
  ['makes'],
  ['give'],
  ['gives'],
  ['come', 'to'],
  ['comes', 'to'],
];

function fail(reason: string): LocalTranslation {
  return {
    is_math_query: false,
    expression: null,
    claimed_answer: null,
    reasoning: `local translator: ${reason}`,
    confidence: 0,
  };
}

/** Translates an English arithmetic question; anything outside its grammar is is_math_query false. */
export function translateArithmeticLocally(query: string): LocalTranslation {
  if (query.length > LOCAL_LIMITS.maxQueryChars)
    return fail(`the question is longer than ${LOCAL_LIMITS.maxQueryChars} characters`);
  const toks = tokenize(query);
  if (!toks) return fail('the question contains characters or numbers outside the arithmetic grammar');
  // Trailing punctuation.
  while (toks.length > 0) {
    const last = toks[toks.length - 1] as Tok;
    if (last.t === 'sym' && '?.!'.includes(last.s)) toks.pop();
    else break;
  }
  if (toks.length === 0) return fail('the question is empty');
  const p = new Parser(toks);
  p.skip(...POLITE);
  for (const f of LEAD_FRAMES) if (p.words(...f)) break;
  p.skip(...POLITE);
  for (const f of TOTAL_FRAMES) if (p.words(...f)) break;
  let tree: Node;
  let claimed: Node | null = null;
  try {
    tree = p.expr();
    // An asserted answer: "... equal to 12", "... = 12", "... is 12".
    if (!p.done) {
      const m = p.mark();
      let framed = p.sym('=');
      if (!framed)
        for (const f of CLAIM_FRAMES)
          if (p.words(...f)) {
            framed = true;
            break;
          }
      if (framed) {
        claimed = p.expr();
      } else p.reset(m);
    }
    if (!p.done) p.skip('in', 'total');
    if (!p.done) {
      const next = p.rest()[0] as Tok;
      const shown = next.t === 'num' ? next.text : next.t === 'w' ? next.w : next.s;
      return fail(`could not translate the question from "${shown}" on`);
    }
  } catch (err) {
    if (err instanceof NotTranslatable) return fail(err.message);
    throw err;
  }
  const expression = unwrap(print(tree));
  // 15 significant digits: the float noise of the translator's own evaluation is not a claim.
  const raw = evaluate(tree);
  const own = Number.isFinite(raw) ? Number(raw.toPrecision(15)) : raw;
  if (claimed) {
    const claimedRaw = evaluate(claimed);
    const claimedValue = Number.isFinite(claimedRaw) ? Number(claimedRaw.toPrecision(15)) : claimedRaw;
    if (!Number.isFinite(claimedValue)) return fail('the asserted answer is not a finite number');
    return {
      is_math_query: true,
      expression,
      claimed_answer: claimedValue,
      reasoning: `local translator: the question asserts the answer ${formatNumber(claimedValue)} for ${expression}`,
      confidence: 1,
      asserted: true,
    };
  }
  if (!Number.isFinite(own)) {
    // The math engine decides what the expression means (division by zero, overflow...).
    return {
      is_math_query: true,
      expression,
      claimed_answer: null,
      reasoning: `local translator: ${expression}`,
      confidence: 1,
    };
  }
  return {
    is_math_query: true,
    expression,
    claimed_answer: own,
    reasoning: `local translator: ${expression}; the translator's own evaluation gives ${formatNumber(own)}`,
    confidence: 1,
  };
}

export function formatNumber(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(15)));
}
