// Verdict roll-ups of an organization's audit chain (pure: no store). A roll-up is a function of
// the chain: the counts of entries 1..seq by engine × status × admission × verified, with the
// number of attestations the entries name, in total and per hour of the entry's timestamp (the
// last ROLLUP_HOURS hours before the newest entry). It is stored per organization by whoever
// moves the chain's head (persistence/audit.ts), and can always be recomputed from the entries
// (rebuild == incremental: the same function of the same entries).
import type { AuditLogDoc } from './audit-log.js';

/** One count (an object, not a tuple: FerretDB 1.x stores no nested arrays). */
export interface RollupRow {
  /** engine (the entry's domain) */
  e: string;
  /** status */
  s: string;
  /** admission */
  a: string | null;
  /** verified (0/1) */
  v: 0 | 1;
  /** entries */
  n: number;
  /** attestations the entries name */
  t: number;
}

export interface RollupHour {
  /** The hour of the entries' timestamps, `YYYY-MM-DDTHH` (UTC). */
  h: string;
  rows: RollupRow[];
}

export interface AuditRollup {
  /** The last position counted: valid only while it equals the head's seq. */
  seq: number;
  all: RollupRow[];
  /** Oldest first; hours without entries are absent. */
  hours: RollupHour[];
}

/** Hours kept: 7 days and the hour in progress (the threat summary's last_7d). */
export const ROLLUP_HOURS = 7 * 24 + 1;

export const emptyRollup = (): AuditRollup => ({ seq: 0, all: [], hours: [] });

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

export const hourOf = (timestamp: string | Date): string => new Date(timestamp).toISOString().slice(0, 13);
const hourMs = (h: string): number => Date.parse(`${h}:00:00.000Z`);

function rowOf(doc: Pick<AuditLogDoc, 'domain' | 'result' | 'verified'>): RollupRow {
  const r = (doc.result ?? {}) as Record<string, unknown>;
  const attested = typeof r.attestation_id === 'string' && r.attestation_id.length > 0 ? 1 : 0;
  return {
    e: typeof doc.domain === 'string' ? doc.domain : 'unknown',
    s: str(r.status) ?? 'UNKNOWN',
    a: str(r.admission),
    v: doc.verified === true ? 1 : 0,
    n: 1,
    t: attested,
  };
}

function addRow(rows: RollupRow[], row: RollupRow): RollupRow[] {
  const i = rows.findIndex((x) => x.e === row.e && x.s === row.s && x.a === row.a && x.v === row.v);
  if (i < 0) return [...rows, { ...row }];
  const cur = rows[i] as RollupRow;
  const next = rows.slice();
  next[i] = { ...cur, n: cur.n + row.n, t: cur.t + row.t };
  return next;
}

/**
 * The roll-up after `docs`, the entries at positions rollup.seq+1.. in order. Throws when they
 * do not continue the roll-up (a caller bug: counts must never be applied twice or skipped).
 */
export function addEntries(
  rollup: AuditRollup,
  docs: ReadonlyArray<Pick<AuditLogDoc, 'seq' | 'domain' | 'result' | 'verified' | 'timestamp'>>,
): AuditRollup {
  let all = rollup.all;
  const hours = new Map(rollup.hours.map((x) => [x.h, x.rows] as const));
  let seq = rollup.seq;
  for (const d of docs) {
    if (d.seq !== seq + 1) throw new Error(`roll-up at ${seq} cannot take the entry at ${d.seq}`);
    seq = d.seq;
    const row = rowOf(d);
    all = addRow(all, row);
    const h = hourOf(d.timestamp);
    hours.set(h, addRow(hours.get(h) ?? [], row));
  }
  const sorted = [...hours.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // Keep the hours within ROLLUP_HOURS of the newest one (a function of the entries, not the clock).
  const newest = sorted.length ? hourMs((sorted[sorted.length - 1] as [string, RollupRow[]])[0]) : 0;
  const kept = sorted.filter(([h]) => hourMs(h) > newest - ROLLUP_HOURS * 3600_000);
  return { seq, all, hours: kept.map(([h, rows]) => ({ h, rows })) };
}

/**
 * Session 23 (docs/store-access.md §16): the hours of `rollup` whose counts differ from `base`'s,
 * `base` being a roll-up of an earlier prefix of the same chain (entries 1..base.seq). Counts
 * only grow along a chain, so these are exactly the hours the entries base.seq+1..rollup.seq
 * fell in (an hour both hold with equal rows got no entry in between). Oldest first.
 */
export function hoursSince(rollup: AuditRollup, base: AuditRollup): RollupHour[] {
  const before = new Map(base.hours.map((x) => [x.h, x.rows] as const));
  return rollup.hours.filter((x) => !sameRows(x.rows, before.get(x.h)));
}

// Linear in an hour's rows (a set of their keys): it runs every ROLLUP_STORE_EVERY entries in the
// organization's commit loop, and a busy hour holds dozens of rows (review A4: 3.3 ms at 72 rows quadratic).
const rowKey = (r: RollupRow) => JSON.stringify([r.e, r.s, r.a, r.v, r.n, r.t]);

function sameRows(a: readonly RollupRow[], b: readonly RollupRow[] | undefined): boolean {
  if (!b || a.length !== b.length) return false;
  const keys = new Set(b.map(rowKey));
  return a.every((r) => keys.has(rowKey(r)));
}

/**
 * The roll-up of entries 1..recent.seq from a complete roll-up `cold` (entries 1..cold.seq) and the
 * recent part of a later one: its `all` and `hours`, the hours the entries after `base` fell in,
 * with their counts of 1..recent.seq. Exact when base <= cold.seq <= recent.seq: an hour the
 * recent part does not hold got no entry after `base`, so cold's count of it is its count at
 * recent.seq. Null otherwise (the caller falls back to `cold`, caught up by position). The hours
 * are kept as addEntries keeps them (ROLLUP_HOURS from the newest).
 */
export function overlayRollup(cold: AuditRollup, recent: AuditRollup, base: number): AuditRollup | null {
  if (!(base <= cold.seq && cold.seq <= recent.seq)) return null;
  const hours = new Map(cold.hours.map((x) => [x.h, x.rows] as const));
  for (const x of recent.hours) hours.set(x.h, x.rows);
  const sorted = [...hours.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const newest = sorted.length ? hourMs((sorted[sorted.length - 1] as [string, RollupRow[]])[0]) : 0;
  const kept = sorted.filter(([h]) => hourMs(h) > newest - ROLLUP_HOURS * 3600_000);
  return { seq: recent.seq, all: recent.all, hours: kept.map(([h, rows]) => ({ h, rows })) };
}

/** Rows of the hours that overlap [since, ∞): the window is widened to whole hours (≤ 1 h more). */
export function rowsSince(rollup: AuditRollup, sinceMs: number): RollupRow[] {
  let rows: RollupRow[] = [];
  for (const x of rollup.hours) if (hourMs(x.h) + 3600_000 > sinceMs) for (const r of x.rows) rows = addRow(rows, r);
  return rows;
}

export interface VerdictCounts {
  total: number;
  verified: number;
  /** status BLOCKED, or a proven result whose admission is BLOCKED (counted once). */
  blocked: number;
  /** VERIFIED results whose admission is BLOCKED: proven-unsafe code, proven-malicious SQL. */
  unsafe_findings: number;
  by_status: Record<string, number>;
}

export interface VerificationSummary extends VerdictCounts {
  by_engine: Record<string, VerdictCounts>;
}

const emptyCounts = (): VerdictCounts => ({ total: 0, verified: 0, blocked: 0, unsafe_findings: 0, by_status: {} });

function add(c: VerdictCounts, { s: status, a: admission, v: verified, n }: RollupRow): void {
  c.total += n;
  if (verified === 1) c.verified += n;
  if (status === 'BLOCKED' || admission === 'BLOCKED') c.blocked += n;
  if (status === 'VERIFIED' && admission === 'BLOCKED') c.unsafe_findings += n;
  c.by_status[status] = (c.by_status[status] ?? 0) + n;
}

/** The verdict summary of roll-up rows (the shape the reports and /metrics return). */
export function summarize(rows: readonly RollupRow[]): VerificationSummary {
  const s: VerificationSummary = { ...emptyCounts(), by_engine: {} };
  for (const row of rows) {
    add(s, row);
    add((s.by_engine[row.e] ??= emptyCounts()), row);
  }
  return s;
}

/** Attestations named by the entries of `rows`. */
export const attestationsOf = (rows: readonly RollupRow[]): number => rows.reduce((t, r) => t + r.t, 0);
