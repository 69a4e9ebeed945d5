// Analytical workloads through the SQL verifier, dialect postgresql, each with its schema as
// schema_ddl. Prints admitted / blocked / malicious / schema_violation per workload, the
// constraint of every query that is not admitted, and the latency of a verification.
//   npx tsx bench/sql-workloads.ts [--verbose] [--only NAME]
// Workloads: every folder `<name>/{schema.sql,queries/*.sql}` under test/fixtures/sql
// (`analytics`, our own retail-warehouse queries; `tpc-h` and `tpc-ds`, the input queries of
// sqlglot's current optimizer fixtures, MIT licence, written by bench/sql-tpc-fixtures.py, see
// test/fixtures/sql/MANIFEST.md) and, when present, under SVC_SQL_WORKLOADS_DIR (default
// .tools/corpora/sql, e.g. the pinned sdist from `bash bench/sql-corpus.sh`; a folder of the
// same name there replaces the committed one).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { verifySqlChecked, PgCheck } from '../engines/sql/index.js';

const pgCheck = new PgCheck();

const OWN = new URL('../test/fixtures/sql/', import.meta.url).pathname;
const EXTERNAL = process.env.SVC_SQL_WORKLOADS_DIR ?? new URL('../.tools/corpora/sql/', import.meta.url).pathname;
const verbose = process.argv.includes('--verbose');
const onlyIdx = process.argv.indexOf('--only');
const only = onlyIdx >= 0 ? process.argv[onlyIdx + 1] : null;

interface Row {
  name: string;
  constraint: string;
  status: string;
  detail: string;
  ms: number;
  pg: string;
  analysis: string;
  /** proven, is_valid false, not malicious: a VERIFIED-invalid verdict. */
  verifiedInvalid: boolean;
  /** PostgreSQL's own verdict (accepted | rejected | not_run). */
  postgres: string;
  resolverDefects: number;
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

async function runBenchmark(dir: string): Promise<Row[]> {
  const ddl = readFileSync(join(dir, 'schema.sql'), 'utf8');
  const files = readdirSync(join(dir, 'queries'))
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const rows: Row[] = [];
  for (const f of files) {
    const query = readFileSync(join(dir, 'queries', f), 'utf8');
    const t0 = performance.now();
    const out = await verifySqlChecked({ query, schema_ddl: ddl, dialect: 'postgresql' }, pgCheck);
    const ms = performance.now() - t0;
    const df = out.developerFields as Record<string, unknown>;
    const proof = (out.kind === 'proven' ? out.proof : null) as Record<string, any> | null;
    const pg = proof
      ? proof.postgres_prepare.ran
        ? proof.postgres_prepare.ok
          ? 'pg_ok'
          : 'pg_error'
        : 'pg_not_run'
      : 'blocked';
    rows.push({
      name: f.replace(/\.sql$/, ''),
      constraint: String(df.constraint_id),
      status: out.kind,
      detail: String(df.error ?? (Array.isArray(df.violations) ? df.violations[0] : '') ?? ''),
      ms,
      pg,
      analysis: proof ? String(proof.analysis) : '-',
      verifiedInvalid: out.kind === 'proven' && df.is_valid === false && df.malicious_classification === false,
      postgres: String(df.postgres_check),
      resolverDefects: typeof df.resolver_defects === 'number' ? df.resolver_defects : 0,
    });
  }
  return rows;
}

const workloads = (root: string) =>
  existsSync(root)
    ? readdirSync(root).filter((d) => existsSync(join(root, d, 'schema.sql')) && existsSync(join(root, d, 'queries')))
    : [];
const dirs = new Map<string, string>();
for (const d of workloads(OWN)) dirs.set(d, join(OWN, d));
for (const d of workloads(EXTERNAL)) dirs.set(d, join(EXTERNAL, d));
const benches = [...dirs.keys()].sort().filter((b) => only === null || b === only);
// PGlite's start-up is paid once per process (the worker warms it at start), not per request.
const t0 = performance.now();
const booted = await pgCheck.start();
console.log(`PGlite worker start-up: ${(performance.now() - t0).toFixed(0)} ms (${booted ? 'ready' : 'FAILED'})`);
for (const b of benches) {
  const rows = await runBenchmark(dirs.get(b)!);
  const admitted = rows.filter((r) => r.constraint === 'sql_verifier.sql_valid').length;
  const malicious = rows.filter((r) => r.constraint === 'sql_verifier.malicious').length;
  const violation = rows.filter((r) => r.constraint === 'sql_verifier.schema_violation').length;
  const blocked = rows.filter((r) => r.status === 'blocked').length;
  const ms = rows.map((r) => r.ms);
  console.log(
    `${b}: ${rows.length} queries — admitted ${admitted} (${((100 * admitted) / rows.length).toFixed(1)} %), blocked ${blocked}, ` +
      `malicious ${malicious}, schema_violation ${violation}; latency p50 ${pct(ms, 50).toFixed(1)} ms, p95 ${pct(ms, 95).toFixed(1)} ms, max ${Math.max(...ms).toFixed(1)} ms`,
  );
  const count = (f: (r: Row) => boolean) => rows.filter(f).length;
  console.log(
    `  PostgreSQL check: ran ${count((r) => r.pg === 'pg_ok' || r.pg === 'pg_error')} (accepted ${count((r) => r.pg === 'pg_ok')}); ` +
      `analysis: parser_ast ${count((r) => r.analysis === 'parser_ast')}, postgres_engine ${count((r) => r.analysis === 'postgres_engine')}`,
  );
  console.log(
    `  VERIFIED-invalid where PostgreSQL accepted: ${count((r) => r.verifiedInvalid && r.postgres === 'accepted')}; UNVERIFIABLE: ${count((r) => r.status === 'unverifiable')}; ` +
      `resolver findings overruled by PostgreSQL (resolver defects): ${rows.reduce((n, r) => n + r.resolverDefects, 0)} in ${count((r) => r.resolverDefects > 0)} queries`,
  );
  const byConstraint = new Map<string, number>();
  for (const r of rows)
    if (r.constraint !== 'sql_verifier.sql_valid')
      byConstraint.set(r.constraint, (byConstraint.get(r.constraint) ?? 0) + 1);
  for (const [c, n] of byConstraint) console.log(`  ${c}: ${n}`);
  for (const r of rows) {
    if (r.constraint !== 'sql_verifier.sql_valid' || verbose)
      console.log(`  ${r.name}  ${r.constraint}  ${r.detail.slice(0, 160)}`);
  }
}
await pgCheck.shutdown();
