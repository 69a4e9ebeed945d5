// The SymPy-generated identity sets (bench/math_identities_oracle.py): no false identity is ever
// VERIFIED (soundness, exact), and the engine proves the families it has rules for (completeness
// floor; bench/math-identities.ts prints the per-family figures).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { verifyMath } from '../../activities/engines/math.js';

interface Entry { family: string; expression: string }
const data = JSON.parse(readFileSync('test/fixtures/math/identities.json', 'utf8')) as { true: Entry[]; false: Entry[] };

describe('SymPy-generated identity sets', () => {
  it('has at least 500 true and 500 false identities', () => {
    expect(data.true.length).toBeGreaterThanOrEqual(500);
    expect(data.false.length).toBeGreaterThanOrEqual(500);
  });

  it('never VERIFIES a false identity', () => {
    const verified = data.false.filter((e) => (verifyMath({ expression: e.expression }) as { is_valid?: boolean }).is_valid === true);
    expect(verified.map((e) => e.expression)).toEqual([]);
  });

  it('proves every true identity outside the exp form of sinh/cosh', () => {
    const unproven = data.true
      .filter((e) => e.family !== 'hyperbolic_exp')
      .filter((e) => {
        const r = verifyMath({ expression: e.expression }) as { is_valid?: boolean; method?: string };
        return !(r.is_valid === true && r.method === 'canonical_form');
      });
    expect(unproven.map((e) => e.expression)).toEqual([]);
  });
});
