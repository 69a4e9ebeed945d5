// Lists what api/ imports, directly and transitively from its entry points, so the layering
// rule can be measured: api/ may import contract/, core/, workflow *types*, itself and npm
// packages, never activities/ or engines/ (which load better-sqlite3, dockerode, mathjs, ...),
// and never persistence/ directly: the API reaches the store through core/'s facades
// (core/accounts.ts re-exports persistence/accounts.ts, ...; persistence/README.md).
// Run: npx tsx infra/api-imports.ts  (test/unit/api-imports.test.ts asserts the rule).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export interface ImportEdge {
  from: string;
  /** Repository-relative path of a local file, or the package name. */
  to: string;
  typeOnly: boolean;
}

const ROOT = path.resolve(import.meta.dirname, '..');
const IMPORT_RE =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith('.ts') ? [p] : [];
  });
}

function resolveLocal(fromFile: string, spec: string): string {
  const abs = path.resolve(path.dirname(fromFile), spec.replace(/\.js$/, '.ts'));
  if (existsSync(abs)) return abs;
  if (existsSync(path.join(abs.replace(/\.ts$/, ''), 'index.ts')))
    return path.join(abs.replace(/\.ts$/, ''), 'index.ts');
  return abs;
}

export function importsOf(file: string): ImportEdge[] {
  const src = readFileSync(file, 'utf8');
  const edges: ImportEdge[] = [];
  for (const m of src.matchAll(IMPORT_RE)) {
    const spec = m[3] ?? m[4];
    if (!spec) continue;
    const typeOnly = Boolean(m[2]);
    const to = spec.startsWith('.')
      ? path.relative(ROOT, resolveLocal(file, spec))
      : spec
          .split('/')
          .slice(0, spec.startsWith('@') ? 2 : 1)
          .join('/');
    edges.push({ from: path.relative(ROOT, file), to, typeOnly });
  }
  return edges;
}

/** Every import written in a file under api/. */
export function apiImports(): ImportEdge[] {
  return tsFiles(path.join(ROOT, 'api')).flatMap(importsOf);
}

/** Local files the API process loads at run time (type-only imports are erased), from api/server.ts. */
export function apiRuntimeClosure(entry = 'api/server.ts'): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const f = queue.pop() as string;
    if (seen.has(f)) continue;
    seen.add(f);
    for (const e of importsOf(path.join(ROOT, f))) {
      if (!e.typeOnly && e.to.endsWith('.ts') && !seen.has(e.to)) queue.push(e.to);
    }
  }
  return seen;
}

/** A route file importing another route file: shared helpers belong in api/ (or core/), not in a route group. */
export function isRouteToRoute(e: ImportEdge): boolean {
  return e.from.startsWith('api/routes/') && e.to.startsWith('api/routes/');
}

/** An import of api/ that breaks the layering rule. */
export function isForbidden(e: ImportEdge): boolean {
  if (!e.to.endsWith('.ts')) return false; // npm package
  // persistence/ (the store's queries) only through core/'s facades (core/accounts.ts, core/audit-store.ts, …).
  if (/^(api|contract|core)\//.test(e.to)) return false;
  if (e.to.startsWith('workflows/')) return !e.typeOnly; // workflow types only
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const all = apiImports();
  const local = all.filter((e) => e.to.endsWith('.ts'));
  const byLayer = new Map<string, number>();
  for (const e of local) byLayer.set(e.to.split('/')[0], (byLayer.get(e.to.split('/')[0]) ?? 0) + 1);
  console.log(
    `api/ imports: ${all.length} (${local.length} local) — by layer: ${[...byLayer].map(([k, v]) => `${k} ${v}`).join(', ')}`,
  );
  const bad = all.filter(isForbidden);
  for (const e of bad) console.log(`FORBIDDEN ${e.from} → ${e.to}${e.typeOnly ? ' (type)' : ''}`);
  for (const e of all.filter(isRouteToRoute)) console.log(`ROUTE→ROUTE ${e.from} → ${e.to}`);
  const closure = [...apiRuntimeClosure()].filter((f) => !/^(api|contract|core|persistence)\//.test(f));
  console.log(`files outside api/contract/core/persistence loaded by the API process: ${closure.length}`);
  for (const f of closure) console.log(`  ${f}`);
}
