// Differential testing of the SQL verifier (SQLancer-style): random schemas and statements
// (test/unit/fixtures/sql-query-gen.ts) judged by PostgreSQL (PGlite) and SQLite and by us.
// Prints how many statements were generated, how the engines judged them, the resolver's
// defects and misses, and every disagreement (none expected: see sql-differential.ts).
//   npx tsx bench/sql-differential.ts [--seed N] [--count N] [--dialect postgresql|sqlite] [--show N] [--defects N]
import { performance } from 'node:perf_hooks';
import { PgCheck } from '../engines/sql/index.js';
import { runDifferential } from '../test/unit/fixtures/sql-differential.js';
import type { GenDialect } from '../test/unit/fixtures/sql-query-gen.js';

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
};
const seed = Number(arg('seed') ?? Date.now() % 1_000_000);
const count = Number(arg('count') ?? 1000);
const show = Number(arg('show') ?? 10);
const dialects = (arg('dialect') ? [arg('dialect')] : ['postgresql', 'sqlite']) as GenDialect[];

const pg = new PgCheck();
const t0 = performance.now();
console.log(`PGlite ${(await pg.start()) ? 'ready' : 'FAILED'} in ${(performance.now() - t0).toFixed(0)} ms`);
const t1 = performance.now();
const report = await runDifferential(pg, seed, count, dialects);
const secs = (performance.now() - t1) / 1000;
console.log(
  `seed ${seed}: ${report.statements} statements generated in ${secs.toFixed(1)} s, ${report.disagreements.length} disagreements`,
);
for (const d of dialects) {
  const s = report.byDialect[d];
  console.log(
    `  ${d}: ${s.statements} statements — engine accepted ${s.accepted}, refused for a schema reason ${s.schemaRefused}, refused otherwise ${s.otherRefused}, engine unavailable ${s.engineUnavailable}; ` +
      `JS resolver: objected to ${s.resolverDefects} accepted (defects, overruled), silent on ${s.resolverMisses} schema refusals (misses, caught by the engine)` +
      (d === 'postgresql'
        ? `; without the engine ${s.enginelessValidOnRefused} schema refusals would be admitted`
        : ''),
  );
}
const kinds = new Map<string, number>();
for (const d of report.disagreements) kinds.set(d.kind, (kinds.get(d.kind) ?? 0) + 1);
for (const [k, n] of kinds) console.log(`  disagreement ${k}: ${n}`);
for (const d of report.disagreements.slice(0, show)) {
  console.log(
    `--- ${d.dialect} ${d.kind}\n  engine: ${d.engine}\n  ours:   ${d.ours}\n  schema: ${d.ddl.replace(/\n/g, ' ')}\n  query:  ${d.query}`,
  );
}
const defects = Number(arg('defects') ?? 0);
for (const d of report.defectSamples.slice(0, defects))
  console.log(
    `--- ${d.dialect} resolver defect: ${d.findings.join(' | ')}\n  schema: ${d.ddl.replace(/\n/g, ' ')}\n  query:  ${d.query}`,
  );
await pg.shutdown();
process.exitCode = report.disagreements.length === 0 ? 0 : 1;
