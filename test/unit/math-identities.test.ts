// The SymPy-generated identity sets (bench/math_identities_oracle.py): no false identity is ever
// VERIFIED (soundness, exact), and every identity SymPy proves is proven, under the entry's
// context when SymPy's symbols carried assumptions (bench/math-identities.ts prints the figures).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyMath, type MathRequest } from '../../engines/math.js';

/** `context`: the assumptions the SymPy symbols carried (the engine's request context). */
interface Entry {
  family: string;
  expression: string;
  context?: MathRequest['context'];
}
const data = JSON.parse(readFileSync('test/fixtures/math/identities.json', 'utf8')) as {
  true: Entry[];
  false: Entry[];
};
const run = (e: Entry) => verifyMath({ expression: e.expression, ...(e.context ? { context: e.context } : {}) });

describe('SymPy-generated identity sets', () => {
  it('has at least 500 true and 500 false identities', () => {
    expect(data.true.length).toBeGreaterThanOrEqual(500);
    expect(data.false.length).toBeGreaterThanOrEqual(500);
  });

  it('never VERIFIES a false identity', () => {
    const verified = data.false.filter((e) => run(e).is_valid === true);
    expect(verified.map((e) => e.expression)).toEqual([]);
  });

  it('proves every identity SymPy proves, naming the assumptions it used', () => {
    const unproven = data.true.filter((e) => {
      const r = run(e);
      return !(r.is_valid === true && r.method === 'canonical_form' && r.proof);
    });
    // No gaps left (docs/math-engine.md): every true identity is proven by the canonical form.
    expect(unproven.map((e) => e.expression)).toEqual([]);
    // A proof never relies on an assumption that was not declared.
    for (const e of data.true.filter((x) => !x.context)) expect(run(e).proof?.assumptions_used).toEqual([]);
  });
});
