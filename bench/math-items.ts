// The math claims the batch benches send (bench/batch.ts, bench/batch-ab.ts): identities, a false
// claim and plain arithmetic, the mix a 100-item job of issue 22's goals is made of.
export const MATH_ITEM_MIX: readonly string[] = [
  '(x+1)^2 = x^2 + 2*x + 1',
  '(a+b)*(a-b) = a^2 - b^2',
  '(x+1)^2 = x^2 + 1',
  '2^10 + 3*7',
  'x/2 + x/2 = x',
  'sqrt(16) * 3',
];
