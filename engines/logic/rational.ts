// Exact rational arithmetic on BigInt, used by the independent evaluator and for
// literals. Always normalized: gcd(num, den) = 1 and den > 0, so equality is structural.

export class Rational {
  readonly num: bigint;
  readonly den: bigint;

  private constructor(num: bigint, den: bigint) {
    this.num = num;
    this.den = den;
  }

  static of(num: bigint, den: bigint = 1n): Rational {
    if (den === 0n) throw new RangeError('Rational with zero denominator');
    if (den < 0n) {
      num = -num;
      den = -den;
    }
    const g = gcd(num < 0n ? -num : num, den);
    return g === 1n ? new Rational(num, den) : new Rational(num / g, den / g);
  }

  static readonly ZERO = Rational.of(0n);
  static readonly ONE = Rational.of(1n);

  /** Parses `-12`, `3.25`, `-1/3` (the forms the DSL and Z3's numeral strings use). */
  static parse(text: string): Rational {
    const frac = /^(-?\d+)\/(\d+)$/.exec(text);
    if (frac) return Rational.of(BigInt(frac[1]), BigInt(frac[2]));
    const dec = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
    if (!dec) throw new SyntaxError(`not a rational literal: ${text}`);
    const digits = dec[3] ?? '';
    const mag = BigInt(dec[2] + digits);
    return Rational.of(dec[1] === '-' ? -mag : mag, 10n ** BigInt(digits.length));
  }

  isInteger(): boolean {
    return this.den === 1n;
  }
  isZero(): boolean {
    return this.num === 0n;
  }
  sign(): number {
    return this.num > 0n ? 1 : this.num < 0n ? -1 : 0;
  }

  add(o: Rational): Rational {
    return Rational.of(this.num * o.den + o.num * this.den, this.den * o.den);
  }
  sub(o: Rational): Rational {
    return Rational.of(this.num * o.den - o.num * this.den, this.den * o.den);
  }
  mul(o: Rational): Rational {
    return Rational.of(this.num * o.num, this.den * o.den);
  }
  neg(): Rational {
    return Rational.of(-this.num, this.den);
  }
  /** Real division; caller handles the zero divisor (undefined in SMT-LIB). */
  div(o: Rational): Rational {
    if (o.num === 0n) throw new RangeError('division by zero');
    return Rational.of(this.num * o.den, this.den * o.num);
  }
  cmp(o: Rational): number {
    const l = this.num * o.den;
    const r = o.num * this.den;
    return l < r ? -1 : l > r ? 1 : 0;
  }
  equals(o: Rational): boolean {
    return this.num === o.num && this.den === o.den;
  }
  floor(): bigint {
    const q = this.num / this.den; // BigInt division truncates toward zero
    return this.num < 0n && q * this.den !== this.num ? q - 1n : q;
  }
  /** Largest absolute bit length of numerator/denominator; bounds evaluator cost. */
  bitLength(): number {
    const n = this.num < 0n ? -this.num : this.num;
    const a = n === 0n ? 0 : n.toString(16).length * 4;
    const b = this.den.toString(16).length * 4;
    return Math.max(a, b);
  }

  /** `p` for integers, `p/q` otherwise (lowest terms, q > 1): the model value format. */
  toString(): string {
    return this.den === 1n ? this.num.toString() : `${this.num}/${this.den}`;
  }

  /** Exact decimal text when the denominator is 2^a*5^b (always true for DSL literals), else null. */
  toDecimalString(): string | null {
    let d = this.den;
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
    if (d !== 1n) return null;
    const places = Math.max(twos, fives);
    const neg = this.num < 0n;
    const scaled = ((neg ? -this.num : this.num) * 10n ** BigInt(places)) / this.den;
    let digits = scaled.toString().padStart(places + 1, '0');
    const intPart = digits.slice(0, digits.length - places);
    const fracPart = places === 0 ? '0' : digits.slice(digits.length - places);
    digits = `${intPart}.${fracPart}`;
    return neg ? `-${digits}` : digits;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) {
    const t = a % b;
    a = b;
    b = t;
  }
  return a === 0n ? 1n : a;
}

/**
 * SMT-LIB (and Z3) integer division and modulus: for b != 0, a = b*q + r with 0 <= r < |b|
 * (Euclidean). q = sign(b) * floor(a / |b|).
 */
export function euclideanDivMod(a: bigint, b: bigint): { q: bigint; r: bigint } {
  if (b === 0n) throw new RangeError('division by zero');
  const absB = b < 0n ? -b : b;
  let fq = a / absB;
  if (a < 0n && fq * absB !== a) fq -= 1n;
  const q = b < 0n ? -fq : fq;
  return { q, r: a - b * q };
}
