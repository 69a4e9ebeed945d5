// Exact rational numbers on BigInt (always reduced, denominator > 0).
import { GuardError } from './errors.js';

export interface Q {
  readonly n: bigint;
  readonly d: bigint;
}

const abs = (x: bigint) => (x < 0n ? -x : x);

export function gcd(a: bigint, b: bigint): bigint {
  a = abs(a);
  b = abs(b);
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

export function q(n: bigint, d: bigint = 1n): Q {
  if (d === 0n) throw new Error('rational with zero denominator');
  if (d < 0n) {
    n = -n;
    d = -d;
  }
  const g = gcd(n, d);
  return g > 1n ? { n: n / g, d: d / g } : { n, d };
}

export const ZERO: Q = { n: 0n, d: 1n };
export const ONE: Q = { n: 1n, d: 1n };
export const qInt = (k: number | bigint): Q => ({ n: BigInt(k), d: 1n });

export const isZero = (a: Q) => a.n === 0n;
export const isOne = (a: Q) => a.n === 1n && a.d === 1n;
export const isInteger = (a: Q) => a.d === 1n;
export const sign = (a: Q) => (a.n > 0n ? 1 : a.n < 0n ? -1 : 0);
export const eq = (a: Q, b: Q) => a.n === b.n && a.d === b.d;
export const cmp = (a: Q, b: Q) => {
  const l = a.n * b.d;
  const r = b.n * a.d;
  return l < r ? -1 : l > r ? 1 : 0;
};

export function add(a: Q, b: Q): Q {
  if (a.d === 1n && b.d === 1n) return { n: a.n + b.n, d: 1n };
  return a.d === b.d ? q(a.n + b.n, a.d) : q(a.n * b.d + b.n * a.d, a.d * b.d);
}
export const sub = (a: Q, b: Q): Q => add(a, neg(b));
export function mul(a: Q, b: Q): Q {
  if (a.d === 1n && b.d === 1n) return { n: a.n * b.n, d: 1n };
  return q(a.n * b.n, a.d * b.d);
}
export const neg = (a: Q): Q => ({ n: -a.n, d: a.d });
export const qAbs = (a: Q): Q => ({ n: abs(a.n), d: a.d });
export function div(a: Q, b: Q): Q {
  if (b.n === 0n) throw new Error('rational division by zero');
  return q(a.n * b.d, a.d * b.n);
}

/** Approximate log10 of |x| (from the hex length; 0 for |x| < 2). Used only for size bounds. */
export function digitsOf(x: bigint): number {
  const a = abs(x);
  if (a < 2n) return 0;
  return a.toString(16).length * 4 * 0.30103;
}
export const sizeOf = (a: Q) => digitsOf(a.n) + digitsOf(a.d);

/** a^k for an integer k; the guards bound k, this re-checks the result size (defence in depth). */
export function pow(a: Q, k: number, maxDigits: number): Q {
  if (!Number.isInteger(k)) throw new Error('non-integer rational power');
  if (k === 0) return ONE;
  if (a.n === 0n) {
    if (k < 0) throw new Error('rational division by zero');
    return ZERO;
  }
  if (abs(a.n) === 1n && a.d === 1n) return { n: a.n < 0n && k % 2 !== 0 ? -1n : 1n, d: 1n };
  if (Math.abs(k) * sizeOf(a) > maxDigits) {
    throw new GuardError('exponent_too_large', `The exact value of a power would exceed ${maxDigits} digits.`);
  }
  const e = BigInt(Math.abs(k));
  const r = { n: a.n ** e, d: a.d ** e };
  return k < 0 ? q(r.d, r.n) : r;
}

export const floorQ = (a: Q): bigint => {
  const f = a.n / a.d;
  return a.n < 0n && f * a.d !== a.n ? f - 1n : f;
};
export const ceilQ = (a: Q): bigint => -floorQ(neg(a));
/** Round half away from zero (mathjs `round`). */
export function roundQ(a: Q): bigint {
  const twice = qAbs(mul(a, qInt(2)));
  const r = (floorQ(twice) + 1n) / 2n; // floor(|a| + 1/2)
  return a.n < 0n ? -r : r;
}

/** Exact decimal literal text (as produced by decimal.js toString) → rational. */
export function parseDecimal(text: string): Q | null {
  const m = /^([+-])?(\d+)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(text.trim());
  if (!m) return null;
  const frac = m[3] ?? '';
  const exp = Number(m[4] ?? '0') - frac.length;
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 100_000) return null;
  let n = BigInt(m[2] + frac);
  if (m[1] === '-') n = -n;
  return exp >= 0 ? q(n * 10n ** BigInt(exp)) : q(n, 10n ** BigInt(-exp));
}

/** Integer k-th root when exact (x >= 0), else null. */
export function exactRoot(x: bigint, k: number): bigint | null {
  if (x < 0n) return null;
  if (x < 2n) return x;
  const r = integerRoot(x, k);
  return r ** BigInt(k) === x ? r : null;
}

/** floor(x^(1/k)) for x >= 0 (Newton iteration). */
export function integerRoot(x: bigint, k: number): bigint {
  if (x < 2n) return x;
  const K = BigInt(k);
  // Start above the root: 2^ceil(bits/k).
  let r = 1n << BigInt(Math.ceil(x.toString(2).length / k));
  for (;;) {
    const next = ((K - 1n) * r + x / r ** (K - 1n)) / K;
    if (next >= r) return r;
    r = next;
  }
}

/** Splits x > 0 as a^k * b where b has no k-th power factor among small primes. */
export function extractPower(x: bigint, k: number): { outside: bigint; inside: bigint } {
  let outside = 1n;
  let inside = x;
  const K = BigInt(k);
  const whole = exactRoot(inside, k);
  if (whole !== null) return { outside: whole, inside: 1n };
  for (let p = 2n; p <= 1000n && p ** K <= inside; p += p === 2n ? 1n : 2n) {
    const pk = p ** K;
    while (inside % pk === 0n) {
      inside /= pk;
      outside *= p;
    }
  }
  return { outside, inside };
}

/** Terminating decimal text when the denominator is 2^a*5^b (and short), else "n/d". */
export function formatQ(a: Q): string {
  if (a.d === 1n) return a.n.toString();
  let d = a.d;
  let twos = 0;
  let fives = 0;
  while (d % 2n === 0n) {
    d /= 2n;
    twos++;
  }
  while (d % 5n === 0n) {
    d /= 5n;
    fives++;
  }
  const places = Math.max(twos, fives);
  if (d === 1n && places <= 30) {
    const scaled = (abs(a.n) * 10n ** BigInt(places)) / a.d;
    const s = scaled.toString().padStart(places + 1, '0');
    const text = `${s.slice(0, -places)}.${s.slice(-places)}`;
    return a.n < 0n ? `-${text}` : text;
  }
  return `${a.n}/${a.d}`;
}

/** Nearest IEEE double (correct for |n|, d < 2^53; otherwise through a 64-digit decimal). */
export function toNumber(a: Q): number {
  const LIMIT = 2n ** 53n;
  if (abs(a.n) < LIMIT && a.d < LIMIT) return Number(a.n) / Number(a.d);
  return Number(toDecimalString(a, 40));
}

/** Decimal text of a with `digits` significant digits (truncated; exact when it terminates sooner). */
export function toDecimalString(a: Q, digits: number): string {
  if (a.n === 0n) return '0';
  const negative = a.n < 0n;
  const n = abs(a.n);
  // Scale so that the integer quotient has at least `digits` digits.
  const shift = Math.max(0, Math.ceil(digits - (digitsOf(n) - digitsOf(a.d))) + 2);
  const scaled = (n * 10n ** BigInt(shift)) / a.d;
  const s = scaled.toString();
  const exponent = s.length - shift - 1; // position of the leading digit
  const mantissa = s.slice(0, digits).replace(/0+$/, '') || '0';
  const text = `${mantissa[0]}${mantissa.length > 1 ? '.' + mantissa.slice(1) : ''}e${exponent}`;
  return negative ? `-${text}` : text;
}
