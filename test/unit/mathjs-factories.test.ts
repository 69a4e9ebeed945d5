// The math engine's mathjs instance is made only from the factories it uses and their
// dependencies (engines/math/mathjs-factories.ts, session 12, issue 22's memory goal). It must
// behave as an instance made from every factory: each function it takes has the same typed
// signatures (so the same implementation is dispatched for every argument type), and the parser
// gives the same tree for the same text.
import { describe, expect, it } from 'vitest';
import { all, create } from 'mathjs';
import { lockedMath, MATHJS_USED, parseMath } from '../../engines/math/mathjs-instance.js';
import { factoriesFor } from '../../engines/math/mathjs-factories.js';
import { MATH_LIMITS } from '../../engines/math/limits.js';

const full = create(all, { number: 'BigNumber', precision: MATH_LIMITS.decimalPrecision }) as unknown as Record<
  string,
  unknown
>;
const signatures = (fn: unknown) =>
  Object.keys((fn as { signatures?: Record<string, unknown> }).signatures ?? {}).sort();

describe('the math engine mathjs instance (only the factories it uses)', () => {
  it('loads far fewer factories than the whole library', () => {
    const n = Object.keys(factoriesFor(MATHJS_USED)).length;
    expect(n).toBeGreaterThan(MATHJS_USED.length);
    expect(n).toBeLessThan(150); // the library has about 370
  });

  it('every function the engine takes has the same typed signatures as in a full instance', () => {
    for (const name of MATHJS_USED) {
      if (name === 'parse') continue; // replaced by a thrower in the locked namespace; compared below
      const mine = lockedMath[name];
      expect(mine, name).toBeDefined();
      if (typeof full[name] === 'function' && 'signatures' in (full[name] as object))
        expect(signatures(mine), name).toEqual(signatures(full[name]));
      else if (name === 'BigNumber') {
        // decimal.js's constructor (the full instance here loads its ES module build, the engine its CommonJS one)
        const cfg = (c: unknown) => c as { precision: number; rounding: number };
        expect([cfg(mine).precision, cfg(mine).rounding]).toEqual([
          cfg(full[name]).precision,
          cfg(full[name]).rounding,
        ]);
      } else expect(String(mine), name).toBe(String(full[name]));
    }
  });

  it('parses the same text to the same tree as a full instance', () => {
    const fullParse = full.parse as (s: string) => { toJSON(): unknown; toString(): string };
    for (const text of [
      '2x^2 + 3x - 1',
      'sin(pi/3)^2 + cos(pi/3)^2',
      '5 cm + 3 inch',
      'x!',
      'nthRoot(27, 3) * e^(i*pi)',
      '1e-3 * 0.1 + 1/3',
      '[1, 2; 3, 4]',
      'a ? b : c',
      'f(x) = x^2',
      'x[1:2]',
      '{a: 1}.a',
      '3 mod 2 and not true',
      'log(x, 2) >= log2(x) == true',
      '"text" + 1',
      '2 to inch',
    ]) {
      const mine = parseMath(text) as unknown as { toJSON(): unknown; toString(): string };
      expect(JSON.stringify(mine), text).toBe(JSON.stringify(fullParse(text)));
      expect(mine.toString(), text).toBe(fullParse(text).toString());
    }
  });
});
