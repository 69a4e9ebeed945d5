// How engine answers are compared and combined (docs/consensus.md, "Agreement and confidence").
//
// Numbers are compared in decimal arithmetic (decimal.js through mathjs BigNumber, 80
// significant digits), with a relative tolerance that depends on how the answers were
// computed: exact rationals must agree to 1e-60 (equal at this precision), 64-digit decimal
// evaluation to 1e-30 (the math engine's DECIMAL_AGREEMENT), IEEE doubles to 1e-9
// (FLOAT_AGREEMENT). Truth values and symbolic forms must be identical.
import type { BigNumber } from 'mathjs';
import { create, factoriesFor } from '../../engines/math/mathjs-factories.js';
import { DECIMAL_AGREEMENT, FLOAT_AGREEMENT } from '../../engines/math/limits.js';

export type Precision = 'exact' | 'decimal' | 'float' | 'sampled';

export interface Answer {
  /** boolean: the truth of an equation ('true' / 'false'); number: a real value; text: a symbolic or complex form. */
  kind: 'boolean' | 'number' | 'text';
  text: string;
  precision: Precision;
}

export type AgreementStatus = 'UNANIMOUS' | 'MAJORITY' | 'SPLIT' | 'NONE';

// Only bignumber and max (and their dependencies): the worker's main thread loads no other factory
// of mathjs for this (engines/math/mathjs-factories.ts; docs/performance.md, memory).
const big = create(factoriesFor(['bignumber', 'max', 'BigNumber']) as never, { number: 'BigNumber', precision: 80 });
const bn = (x: string | number): BigNumber => big.bignumber(x) as BigNumber;

const TOLERANCE: Record<Precision, BigNumber> = {
  exact: bn('1e-60'),
  decimal: bn(DECIMAL_AGREEMENT),
  sampled: bn(DECIMAL_AGREEMENT),
  float: bn(FLOAT_AGREEMENT),
};

/** "p/q", a decimal ("0.25", "-1.5e-7") or an integer, as an 80-digit BigNumber; null when not numeric. */
export function numericValue(text: string): BigNumber | null {
  const t = text.trim();
  const frac = /^([-+]?\d+)\s*\/\s*(\d+)$/.exec(t);
  try {
    if (frac) {
      const d = bn(frac[2] as string);
      return d.isZero() ? null : bn(frac[1] as string).div(d);
    }
    if (/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/.test(t)) return bn(t);
  } catch {
    return null;
  }
  return null;
}

/** Whether two answers say the same thing (see the header for the tolerances). */
export function answersAgree(a: Answer, b: Answer): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind !== 'number') return a.text === b.text;
  const x = numericValue(a.text);
  const y = numericValue(b.text);
  if (!x || !y) return a.text === b.text;
  const tol = TOLERANCE[a.precision].gt(TOLERANCE[b.precision]) ? TOLERANCE[a.precision] : TOLERANCE[b.precision];
  const scale = big.max(bn(1), x.abs(), y.abs()) as BigNumber;
  return x.minus(y).abs().lte(tol.times(scale));
}

// engineConfidence lives with the shared shapes (types.ts): the worker's main thread uses it
// without loading this module's BigNumber instance (mathjs).
export { engineConfidence } from './types.js';

export interface Scored {
  answer: Answer | null;
  confidence: number;
}

export interface Agreement {
  status: AgreementStatus;
  /** Indexes (into the input) of the engines whose answers form the winning group. */
  winners: number[];
  /** The winning group's answer (an exact member's text when there is one); '' when no engine answered. */
  finalAnswer: string;
  /** Sum of the winners' confidences over the number of engines, rounded to 2 decimals (0–100). */
  confidence: number;
}

/**
 * Groups the answers (each joins the first group whose first answer it agrees with), picks the
 * largest group (ties: the group of the earliest engine, i.e. the math engine first), and
 * classifies: every engine in it → UNANIMOUS; more than half of the engines → MAJORITY; some
 * answers but no majority → SPLIT; no answer at all → NONE.
 */
export function combine(entries: Scored[]): Agreement {
  const groups: number[][] = [];
  entries.forEach((e, i) => {
    if (!e.answer) return;
    const home = groups.find((g) =>
      answersAgree((entries[g[0] as number] as Scored).answer as Answer, e.answer as Answer),
    );
    if (home) home.push(i);
    else groups.push([i]);
  });
  if (groups.length === 0) return { status: 'NONE', winners: [], finalAnswer: '', confidence: 0 };
  let best = groups[0] as number[];
  for (const g of groups) if (g.length > best.length) best = g;
  const n = entries.length;
  const status: AgreementStatus = best.length === n ? 'UNANIMOUS' : best.length * 2 > n ? 'MAJORITY' : 'SPLIT';
  const answers = best.map((i) => (entries[i] as Scored).answer as Answer);
  const representative = answers.find((a) => a.precision === 'exact') ?? (answers[0] as Answer);
  const sum = best.reduce((s, i) => s + (entries[i] as Scored).confidence, 0);
  return { status, winners: best, finalAnswer: representative.text, confidence: Math.round((sum / n) * 100) / 100 };
}
