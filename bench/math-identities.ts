// Completeness and soundness of the math engine on identity sets generated with SymPy as the
// oracle (bench/math_identities_oracle.py → test/fixtures/math/identities.json): how many
// identities SymPy proves the engine also proves, and that no false one is ever VERIFIED.
//   npx tsx bench/math-identities.ts [identities.json]
// Regenerate the set (installs the pinned SymPy into .tools/):
//   bash bench/math-identities.sh
import { readFileSync } from 'node:fs';
import { verifyMath, type MathRequest } from '../engines/math.js';

/** `context`: the assumptions SymPy's symbols carried, as the engine's request context. */
interface Entry {
  family: string;
  expression: string;
  context?: MathRequest['context'];
}
const file = process.argv[2] ?? 'test/fixtures/math/identities.json';
const data = JSON.parse(readFileSync(file, 'utf8')) as { sympy: string; seed: number; true: Entry[]; false: Entry[] };

type Tally = { total: number; proven: number };
const byFamily = new Map<string, Tally>();
const missed: string[] = [];
for (const e of data.true) {
  const r = verifyMath({ expression: e.expression, ...(e.context ? { context: e.context } : {}) });
  const t = byFamily.get(e.family) ?? { total: 0, proven: 0 };
  t.total++;
  if (r.is_valid === true && r.method === 'canonical_form') t.proven++;
  else missed.push(`${e.family}: ${e.expression}`);
  byFamily.set(e.family, t);
}
let falseVerified = 0;
let refuted = 0;
let disproved = 0;
const wrong: string[] = [];
for (const e of data.false) {
  const r = verifyMath({ expression: e.expression, ...(e.context ? { context: e.context } : {}) });
  if (r.is_valid === true) {
    falseVerified++;
    wrong.push(`${e.family}: ${e.expression}`);
  } else {
    refuted++;
    if (r.is_valid === false && r.status === undefined) disproved++;
  }
}
const proven = [...byFamily.values()].reduce((a, t) => a + t.proven, 0);
console.log(
  `identities from SymPy ${data.sympy} (seed ${data.seed}): ${data.true.length} true, ${data.false.length} false`,
);
for (const [f, t] of [...byFamily].sort()) console.log(`  ${f.padEnd(22)} ${t.proven}/${t.total}`);
console.log(
  `true identities proven: ${proven}/${data.true.length} (${((100 * proven) / data.true.length).toFixed(1)} %)`,
);
console.log(
  `false identities VERIFIED: ${falseVerified}/${data.false.length} (must be 0); not verified: ${refuted} (disproved: ${disproved}, BLOCKED: ${refuted - disproved})`,
);
if (missed.length) console.log(`first unproven: \n  ${missed.slice(0, 15).join('\n  ')}`);
if (wrong.length) console.log(`FALSE IDENTITIES VERIFIED:\n  ${wrong.join('\n  ')}`);
process.exitCode = falseVerified === 0 ? 0 : 1;
