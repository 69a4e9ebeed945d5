// Quantities (numbers with units, percentages, amounts of money, counts of things) and dates
// found in a sentence's tokens. Each becomes an interval of values in a base unit, so that a
// claim and a context sentence compare by interval logic: the sentence supports the claim when
// its interval lies inside the claim's, and contradicts it when the two are disjoint.
import {
  COMPARATORS,
  CURRENCY_SYMBOLS,
  CURRENCY_WORDS,
  MONTHS,
  MULTI_UNITS,
  SCALES,
  STOPWORDS,
  UNITS,
  type QuantityOp,
  type UnitDef,
} from './lexicon.js';
import { stem, type Token } from './tokens.js';

export interface Quantity {
  kind: 'quantity';
  /** 'length', 'percent', 'currency:USD', 'count:employee', 'number' (no unit or noun) ... */
  dim: string;
  op: QuantityOp;
  /** Value in the base unit of `dim`. */
  value: number;
  /** Half the rounding step of the written number, in the base unit. */
  halfStep: number;
  lo: number;
  hi: number;
  /** Token range [first, last] inside the sentence (comparator and unit included). */
  first: number;
  last: number;
  start: number;
  end: number;
}

export interface DateMention {
  kind: 'date';
  year: number | null;
  month: number | null;
  day: number | null;
  first: number;
  last: number;
  start: number;
  end: number;
}

export type Mention = Quantity | DateMention;

const word = (t: Token | undefined, w: string) => t !== undefined && t.lower === w;
const isNum = (t: Token | undefined): t is Token & { value: number; step: number } =>
  t !== undefined && t.kind === 'number';
const isInt = (t: Token | undefined) => isNum(t) && !t.text.includes('.') && !t.text.includes(',');

/** Approximate quantities ("about 300") are taken as ±10 %. */
const APPROX_RELATIVE = 0.1;

function interval(op: QuantityOp, value: number, halfStep: number): [number, number] {
  switch (op) {
    case 'eq':
      return [value - halfStep, value + halfStep];
    case 'approx': {
      const d = Math.max(Math.abs(value) * APPROX_RELATIVE, halfStep);
      return [value - d, value + d];
    }
    case 'gt':
    case 'ge':
      return [value, Number.POSITIVE_INFINITY];
    case 'lt':
    case 'le':
      return [Number.NEGATIVE_INFINITY, value];
  }
}

function matchWords(tokens: Token[], at: number, words: readonly string[]): boolean {
  for (let k = 0; k < words.length; k++) if (!word(tokens[at + k], words[k]!)) return false;
  return true;
}

/** Finds dates first (their numbers are not quantities), then quantities. */
export function extractMentions(tokens: Token[]): Mention[] {
  const used = new Uint8Array(tokens.length);
  const out: Mention[] = [];
  const mark = (a: number, b: number) => {
    for (let k = a; k <= b; k++) used[k] = 1;
  };
  const span = (a: number, b: number) => ({ first: a, last: b, start: tokens[a]!.start, end: tokens[b]!.end });

  // Dates.
  for (let i = 0; i < tokens.length; i++) {
    if (used[i]) continue;
    const t = tokens[i]!;
    // ISO 1789-07-14
    if (
      isInt(t) &&
      t.text.length === 4 &&
      word(tokens[i + 1], '-') &&
      isInt(tokens[i + 2]) &&
      word(tokens[i + 3], '-') &&
      isInt(tokens[i + 4])
    ) {
      const month = tokens[i + 2]!.value!;
      const day = tokens[i + 4]!.value!;
      if (month >= 1 && month <= 12 && day >= 1 && day <= 31) {
        out.push({ kind: 'date', year: t.value!, month, day, ...span(i, i + 4) });
        mark(i, i + 4);
        continue;
      }
    }
    const month = t.kind === 'word' ? MONTHS.get(t.lower) : undefined;
    // "May" and "March" are also ordinary words: a month name counts only next to a day or a year.
    if (month !== undefined && (t.capitalized || t.lower.length > 3)) {
      // D Month [YYYY] (checked first: in "14 July 1789" the year belongs to the day)
      const p = tokens[i - 1];
      if (isInt(p) && !used[i - 1] && p.value! >= 1 && p.value! <= 31 && p.text.length <= 2) {
        let last = i;
        let year: number | null = null;
        if (isInt(tokens[i + 1]) && tokens[i + 1]!.text.length === 4) {
          year = tokens[i + 1]!.value!;
          last = i + 1;
        }
        out.push({ kind: 'date', year, month, day: p.value!, ...span(i - 1, last) });
        mark(i - 1, last);
        continue;
      }
      // Month D, YYYY | Month D | Month YYYY
      const n1 = tokens[i + 1];
      if (isInt(n1) && n1.value! >= 1 && n1.value! <= 31 && n1.text.length <= 2) {
        let last = i + 1;
        let year: number | null = null;
        let k = i + 2;
        if (word(tokens[k], ',')) k++;
        if (isInt(tokens[k]) && tokens[k]!.text.length === 4) {
          year = tokens[k]!.value!;
          last = k;
        }
        out.push({ kind: 'date', year, month, day: n1.value!, ...span(i, last) });
        mark(i, last);
        continue;
      }
      if (isInt(n1) && n1.text.length === 4) {
        out.push({ kind: 'date', year: n1.value!, month, day: null, ...span(i, i + 1) });
        mark(i, i + 1);
        continue;
      }
    }
  }
  // Bare years: four digits 1000–2199 not followed by a unit, a scale or a counted noun.
  for (let i = 0; i < tokens.length; i++) {
    if (used[i]) continue;
    const t = tokens[i]!;
    if (!isInt(t) || t.text.length !== 4 || t.value! < 1000 || t.value! > 2199) continue;
    if (word(tokens[i - 1], '$') || CURRENCY_SYMBOLS.has(tokens[i - 1]?.text ?? '')) continue;
    const next = tokens[i + 1];
    if (next && (unitAt(tokens, i + 1) !== null || SCALES.has(next.lower) || next.text === '%')) continue;
    if (
      next &&
      next.kind === 'word' &&
      !STOPWORDS.has(next.lower) &&
      next.lower !== 'bc' &&
      next.lower !== 'ad' &&
      !next.capitalized
    )
      continue;
    out.push({ kind: 'date', year: t.value!, month: null, day: null, ...span(i, i) });
    mark(i, i);
  }

  // Quantities.
  for (let i = 0; i < tokens.length; i++) {
    if (used[i] || !isNum(tokens[i])) continue;
    const num = tokens[i]!;
    let first = i;
    let last = i;
    let value = num.value!;
    let step = num.step!;
    // Negative numbers: "-5" or "minus 5".
    if (
      (word(tokens[i - 1], '-') || word(tokens[i - 1], '−')) &&
      tokens[i - 1]!.end === num.start &&
      !isNum(tokens[i - 2])
    ) {
      value = -value;
      first = i - 1;
    }
    let dim = 'number';
    let currency: string | null = null;
    const before = tokens[first - 1];
    if (before && CURRENCY_SYMBOLS.has(before.text)) {
      currency = CURRENCY_SYMBOLS.get(before.text)!;
      first -= 1;
    }
    // Scale words: 3.5 million, 20 thousand; 5k, 3bn (written with the number are tokenized apart only with a space).
    const sc = tokens[last + 1];
    if (sc && SCALES.has(sc.lower)) {
      const f = SCALES.get(sc.lower)!;
      value *= f;
      step *= f;
      last += 1;
    }
    let factor = 1;
    let offset = 0;
    const unit = unitAt(tokens, last + 1);
    if (currency === null && unit !== null) {
      dim = unit.def.dim;
      factor = unit.def.factor;
      offset = unit.def.offset ?? 0;
      last = unit.last;
    } else if (currency === null) {
      const cw = tokens[last + 1];
      const cur = cw ? CURRENCY_WORDS.get(stem(cw.lower)) : undefined;
      if (cur) {
        currency = cur;
        last += 1;
      } else if (cw && cw.kind === 'word' && !STOPWORDS.has(cw.lower)) {
        // A counted noun: "5,000 employees", "3 moons" (an adjective in between is skipped once).
        const noun = tokens[last + 2];
        if (!cw.capitalized) {
          if (
            noun &&
            noun.kind === 'word' &&
            !STOPWORDS.has(noun.lower) &&
            !noun.capitalized &&
            isAdjectiveLike(cw.lower)
          ) {
            dim = `count:${stem(noun.lower)}`;
            last += 2;
          } else {
            dim = `count:${stem(cw.lower)}`;
            last += 1;
          }
        }
      }
    }
    if (currency !== null) dim = `currency:${currency}`;
    // Comparators before the quantity.
    let op: QuantityOp = 'eq';
    for (const c of COMPARATORS) {
      const at = first - c.words.length;
      if (at >= 0 && matchWords(tokens, at, c.words)) {
        op = c.op;
        first = at;
        break;
      }
    }
    // "or more" / "or less" / "+" after the quantity.
    if (
      word(tokens[last + 1], 'or') &&
      (word(tokens[last + 2], 'more') || word(tokens[last + 2], 'less') || word(tokens[last + 2], 'fewer'))
    ) {
      op = tokens[last + 2]!.lower === 'more' ? 'ge' : 'le';
      last += 2;
    }
    const base = value * factor + offset;
    const halfStep = (step * Math.abs(factor)) / 2;
    const [lo, hi] = interval(op, base, halfStep);
    out.push({ kind: 'quantity', dim, op, value: base, halfStep, lo, hi, ...span(first, last) });
    mark(first, last);
  }
  return out.sort((a, b) => a.first - b.first);
}

/** A few adjectives that commonly sit between a number and its noun ("5 new stores"). */
function isAdjectiveLike(w: string): boolean {
  return (
    w === 'new' ||
    w === 'full' ||
    w === 'more' ||
    w === 'additional' ||
    w === 'other' ||
    w === 'active' ||
    w === 'total' ||
    w === 'major' ||
    w === 'known'
  );
}

/** The unit starting at token `at` (single- or multi-token), with its last token index. */
export function unitAt(tokens: Token[], at: number): { def: UnitDef; last: number } | null {
  const t = tokens[at];
  if (!t) return null;
  for (const mu of MULTI_UNITS) {
    if (matchWords(tokens, at, mu.words)) return { def: mu.unit, last: at + mu.words.length - 1 };
    // plural / singular of the first word ("square mile")
  }
  if (t.text === '%') return { def: UNITS.get('%')!, last: at };
  if (t.kind !== 'word') return null;
  const direct = UNITS.get(t.lower) ?? UNITS.get(stem(t.lower));
  if (direct) {
    // "°C" is tokenized as '°' + 'C'; handled by MULTI_UNITS. Single letters need to touch the number
    // or be lower-case symbols ("5 m", "10 g"); a capital "I" or "A" is not a unit.
    if (t.lower.length === 1 && t.capitalized && t.lower !== 'c' && t.lower !== 'f') return null;
    return { def: direct, last: at };
  }
  return null;
}

export const dimLabel = (dim: string) =>
  dim.startsWith('count:')
    ? `count of "${dim.slice(6)}"`
    : dim.startsWith('currency:')
      ? `amount in ${dim.slice(9)}`
      : dim;

/**
 * Relation of a context quantity to a claim quantity of the same dimension:
 * 'support' (context interval inside the claim's), 'contradict' (disjoint), 'unknown'.
 */
export function compareQuantities(claim: Quantity, ctx: Quantity): 'support' | 'contradict' | 'unknown' {
  const eps = 1e-9 * Math.max(1, Math.abs(claim.value), Math.abs(ctx.value));
  // An exact claim ("330 m") is supported by a context value that rounds to it either way.
  const cLo = claim.op === 'eq' ? Math.min(claim.lo, claim.value - ctx.halfStep) : claim.lo;
  const cHi = claim.op === 'eq' ? Math.max(claim.hi, claim.value + ctx.halfStep) : claim.hi;
  if (ctx.lo >= cLo - eps && ctx.hi <= cHi + eps) return 'support';
  const strictLo = claim.op === 'gt' ? claim.value : cLo;
  const strictHi = claim.op === 'lt' ? claim.value : cHi;
  if (ctx.hi < strictLo - eps || ctx.lo > strictHi + eps) return 'contradict';
  if (
    (claim.op === 'gt' && ctx.op === 'eq' && ctx.value <= claim.value + eps) ||
    (claim.op === 'lt' && ctx.op === 'eq' && ctx.value >= claim.value - eps)
  ) {
    return 'contradict';
  }
  return 'unknown';
}

export function compareDates(claim: DateMention, ctx: DateMention): 'support' | 'contradict' | 'unknown' {
  let shared = 0;
  for (const k of ['year', 'month', 'day'] as const) {
    const a = claim[k];
    const b = ctx[k];
    if (a !== null && b !== null) {
      if (a !== b) return 'contradict';
      shared++;
    }
  }
  // Supported when every component the claim states is stated equal by the context.
  const stated = (['year', 'month', 'day'] as const).filter((k) => claim[k] !== null);
  if (stated.every((k) => ctx[k] !== null)) return 'support';
  return shared > 0 ? 'unknown' : 'unknown';
}

export function describeMention(m: Mention, text: string): string {
  return JSON.stringify(text.slice(m.start, m.end));
}
