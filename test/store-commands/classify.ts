// Classifies the store commands recorded by test/store-commands/capture.mjs (issue 22): for each
// collection, how many commands were point lookups by `_id`, `_id` ranges, scans, counts, sorts,
// upserts, inserts; which code site issued each kind; and which of them read a collection that
// grows with use without a key (the future contract test fails on those).
//
//   npx tsx test/store-commands/classify.ts <capture dir> [--sites] [--json]
//
// The classes say what FerretDB 1.24's SQLite backend does with the command (measured, see
// docs/store-access.md "What the store can answer by key"): only a filter that is exactly
// `{_id: <scalar>}` is pushed down to SQLite; `_id` together with any other field, `_id: {$in}`,
// `_id` ranges, every other filter, every sort, and both count commands read the whole table
// and decode every document in Go. The pushed-down `_id` must be a string or an ObjectId
// (session 17): `{_id: <number>}` reads the whole table too (`id_number`), whatever the
// collection's bound, so it counts as a violation everywhere (a numeric key is never needed:
// persistence/number-keyed.ts stores it as its decimal string). On MongoDB (and FerretDB's PostgreSQL backend) `id_point_plus`
// and `id_range` are index lookups; on FerretDB/SQLite they are scans.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Captured {
  t: number;
  site: string;
  /** The site's next callers (`file:line < file:line …`), when the stack had them. */
  callers?: string;
  cmd: string;
  coll: string | null;
  ms?: number;
  error?: string;
  filter?: unknown;
  sort?: Record<string, number>;
  projection?: string[];
  limit?: number;
  n?: number;
  ops?: Array<{ filter: unknown; update?: unknown; upsert?: boolean; multi?: boolean }>;
  update?: unknown;
  upsert?: boolean;
  pipeline?: unknown[];
  /** Session 18: the POST /verify/batch (its job id) that issued it, when its API traces POSTs (api/batch-post-trace.ts). */
  tag?: string;
  /** Set by readCapture: the file's process role (api-process, verification-worker, …). */
  role?: string;
}

export type FilterClass = 'id_point' | 'id_number' | 'id_point_plus' | 'id_in' | 'id_range' | 'field_filter' | 'all';
export type CommandClass = FilterClass | 'insert' | 'count' | 'aggregate' | 'getMore' | 'admin';

/**
 * Collections and what bounds them: the persistence layer's registry (persistence/registry.ts).
 * `growing`: never scanned, counted or sorted on a request path; `bounded`: a scan costs its bound.
 */
export { COLLECTIONS, OFF_PATH_SITES } from '../../persistence/registry.js';
import { COLLECTIONS, OFF_PATH_SITES } from '../../persistence/registry.js';

const RANGE_OPS = new Set(['$gt', '$gte', '$lt', '$lte']);

/** A shape FerretDB/SQLite answers `{_id: x}` for by key: a string or an ObjectId (collection.go). */
function isKeyShape(v: unknown): boolean {
  return v === 'string' || v === 'objectid';
}

/** Any other scalar leaf: a number, a date, a boolean, … (FerretDB/SQLite reads the whole table for it). */
function isScalarShape(v: unknown): boolean {
  return typeof v === 'string' && !['null', 'undefined', 'binary'].includes(v) && !v.startsWith('…');
}

/** What the store must do to answer `filter` (a shape from capture.mjs). */
export function classifyFilter(filter: unknown): FilterClass {
  if (!filter || typeof filter !== 'object' || Object.keys(filter).length === 0) return 'all';
  const f = filter as Record<string, unknown>;
  const keys = Object.keys(f);
  if (!('_id' in f)) return 'field_filter';
  const id = f._id;
  const eq =
    id && typeof id === 'object' && Object.keys(id).length === 1 && '$eq' in id
      ? (id as Record<string, unknown>).$eq
      : id;
  if (isKeyShape(eq)) return keys.length === 1 ? 'id_point' : 'id_point_plus';
  if (isScalarShape(eq)) return keys.length === 1 ? 'id_number' : 'id_point_plus';
  if (id && typeof id === 'object' && !Array.isArray(id)) {
    const ops = Object.keys(id);
    if (ops.length === 1 && ops[0] === '$in') return 'id_in';
    if (ops.every((o) => RANGE_OPS.has(o))) return keys.length === 1 ? 'id_range' : 'field_filter';
  }
  return 'field_filter';
}

export interface Classified {
  coll: string;
  cmd: string;
  cls: CommandClass;
  sorted: boolean;
  upsert: boolean;
  multi: boolean;
  site: string;
  role: string;
  ms: number;
  /** Reads every document of the collection on FerretDB 1.24/SQLite. */
  scansOnSqlite: boolean;
}

/** One entry per operation (an `update` command with several statements counts each). */
export function classify(c: Captured): Classified[] {
  const base = { coll: c.coll ?? '(db)', cmd: c.cmd, site: c.site, role: c.role ?? '', ms: c.ms ?? 0 };
  const mk = (cls: CommandClass, extra: Partial<Classified> = {}): Classified => {
    const sorted = extra.sorted ?? false;
    const scansOnSqlite =
      (
        [
          'id_number',
          'id_point_plus',
          'id_in',
          'id_range',
          'field_filter',
          'all',
          'count',
          'aggregate',
        ] as CommandClass[]
      ).includes(cls) || sorted;
    return { ...base, cls, sorted, upsert: false, multi: false, scansOnSqlite, ...extra };
  };
  switch (c.cmd) {
    case 'find': {
      const cls = classifyFilter(c.filter);
      const sorted = Boolean(c.sort && Object.keys(c.sort).length > 0);
      // An unsorted read of everything with a limit stops early; with no limit it reads all.
      return [mk(cls, { sorted })];
    }
    case 'findAndModify':
      return [
        mk(classifyFilter(c.filter), {
          upsert: Boolean(c.upsert),
          sorted: Boolean(c.sort && Object.keys(c.sort).length),
        }),
      ];
    case 'update':
    case 'delete':
      return (c.ops ?? []).map((o) =>
        mk(classifyFilter(o.filter), { upsert: Boolean(o.upsert), multi: Boolean(o.multi) }),
      );
    case 'insert':
      return [mk('insert', { scansOnSqlite: false })];
    case 'count':
      return [mk('count')];
    case 'aggregate': {
      const stages = (c.pipeline ?? []) as Array<Record<string, unknown>>;
      // countDocuments: [{$match}, {$group: {_id: 1, n: {$sum: 1}}}] (the driver's own pipeline).
      const isCount =
        stages.length >= 2 &&
        JSON.stringify(stages[stages.length - 1]) === '{"$group":{"_id":"number","n":{"$sum":"number"}}}';
      const matchStage = stages[0] && '$match' in stages[0] ? classifyFilter(stages[0].$match) : 'all';
      return [mk(isCount ? 'count' : 'aggregate', { scansOnSqlite: matchStage !== 'id_point' })];
    }
    case 'getMore':
      return [mk('getMore', { scansOnSqlite: false })];
    default:
      return [mk('admin', { scansOnSqlite: false })];
  }
}

export function readCapture(dir: string): Captured[] {
  const out: Captured[] = [];
  for (const f of readdirSync(dir).filter((x) => x.endsWith('.jsonl'))) {
    const role = f.replace(/-\d+\.jsonl$/, '');
    for (const line of readFileSync(path.join(dir, f), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      out.push({ ...(JSON.parse(line) as Captured), role });
    }
  }
  return out.sort((a, b) => a.t - b.t);
}

/** Whether an operation was issued by a declared off-path site (persistence/registry.ts OFF_PATH_SITES: start-up migrations). */
export function isOffPath(o: Classified): boolean {
  return OFF_PATH_SITES.some((s) => o.site === s.file || o.site.startsWith(`${s.file}:`));
}

/**
 * Operations that read a growing collection without a key: what the issue-22 contract forbids
 * on request paths. A collection missing from the registry counts as growing.
 */
export function violations(ops: Classified[]): Classified[] {
  return ops.filter(
    (o) =>
      o.scansOnSqlite &&
      (o.cls === 'id_number' || COLLECTIONS[o.coll]?.growth !== 'bounded') &&
      o.cls !== 'admin' &&
      !isOffPath(o),
  );
}

/** Label of a class with its flags, e.g. `id_point+upsert`, `field_filter+sort`. */
export function label(o: Classified): string {
  return `${o.cls}${o.sorted ? '+sort' : ''}${o.upsert ? '+upsert' : ''}${o.multi ? '+multi' : ''}`;
}

export interface Summary {
  byCollection: Array<Record<string, string | number>>;
  bySite: Array<{
    coll: string;
    site: string;
    proc: string;
    kind: string;
    n: number;
    ms_total: number;
    scans_on_sqlite: boolean;
  }>;
}

export function summarize(ops: Classified[]): Summary {
  const colls = [...new Set(ops.map((o) => o.coll))].sort();
  const kinds: Array<[string, (o: Classified) => boolean]> = [
    ['id_point', (o) => o.cls === 'id_point' && !o.upsert],
    ['id_number', (o) => o.cls === 'id_number' && !o.upsert],
    ['id_point_plus', (o) => o.cls === 'id_point_plus' && !o.upsert],
    ['id_range/in', (o) => o.cls === 'id_range' || o.cls === 'id_in'],
    ['scan', (o) => (o.cls === 'field_filter' || o.cls === 'all') && !o.sorted],
    ['sort', (o) => o.sorted],
    ['count', (o) => o.cls === 'count'],
    ['aggregate', (o) => o.cls === 'aggregate'],
    ['upsert', (o) => o.upsert],
    ['insert', (o) => o.cls === 'insert'],
  ];
  const byCollection = colls.map((coll) => {
    const mine = ops.filter((o) => o.coll === coll && o.cls !== 'admin' && o.cls !== 'getMore');
    const row: Record<string, string | number> = { collection: coll, growth: COLLECTIONS[coll]?.growth ?? '?' };
    for (const [k, pred] of kinds) row[k] = mine.filter(pred).length;
    row.scans_sqlite = mine.filter((o) => o.scansOnSqlite).length;
    row.ms = Math.round(mine.reduce((s, o) => s + o.ms, 0));
    return row;
  });
  const sites = new Map<string, Summary['bySite'][number]>();
  for (const o of ops) {
    if (o.cls === 'admin' || o.cls === 'getMore') continue;
    const kind = `${o.cmd} ${label(o)}`;
    const proc = o.role.replace(/^verification-worker$/, 'worker').replace(/^api-process$/, 'api');
    const k = `${o.coll}|${o.site}|${proc}|${kind}`;
    const cur = sites.get(k) ?? {
      coll: o.coll,
      site: o.site,
      proc,
      kind,
      n: 0,
      ms_total: 0,
      scans_on_sqlite: o.scansOnSqlite,
    };
    cur.n++;
    cur.ms_total = Math.round((cur.ms_total + o.ms) * 10) / 10;
    sites.set(k, cur);
  }
  const bySite = [...sites.values()].sort((a, b) => a.coll.localeCompare(b.coll) || b.n - a.n);
  return {
    byCollection: byCollection.filter((r) =>
      Object.entries(r).some(([k, v]) => k !== 'collection' && k !== 'growth' && v !== 0),
    ),
    bySite,
  };
}

// CLI
if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: tsx test/store-commands/classify.ts <capture dir> [--sites] [--json]');
    process.exit(2);
  }
  const ops = readCapture(dir).flatMap(classify);
  const s = summarize(ops);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(s, null, 1));
  } else {
    console.log(`${ops.length} operations`);
    console.table(s.byCollection);
    if (process.argv.includes('--sites')) console.table(s.bySite);
    const v = violations(ops);
    console.log(`reads of growing collections without a key (scans on FerretDB/SQLite): ${v.length}`);
  }
}
