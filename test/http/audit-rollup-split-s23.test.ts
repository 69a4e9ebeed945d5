// Session 23 (docs/store-access.md §16): an organization's roll-up is stored as a complete document
// `{_id: org}` (a week of hour buckets, ~10 KB for a tenant busy every hour) and a recent one
// `{_id: org#recent}` (its `all` and the hours changed since the complete one's seq). Against the
// stack's real store (FerretDB): once a week of history is stored, the cadence's writes go to the
// small recent document and the complete one is left alone; every reader (another process, the
// HTTP route) still gets exactly the chain's roll-up, also when an older complete roll-up landed
// last (two processes folding at once), and with two processes appending.
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { addEntries, emptyRollup, rowsSince, summarize } from '../../core/audit-rollup.js';
import type { AuditEntryFields } from '../../core/audit-chain.js';
import {
  AuditLog,
  recentRollupDoc,
  recentRollupId,
  rollupDoc,
  rollupOfDoc,
  type AuditLogDoc,
  type AuditRollupDoc,
} from '../../persistence/audit.js';
import { db, get, newTenant, stackEnv } from './helpers.js';
import { key } from './audit-fixtures.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});

/** An AuditLog with its own store client: another process's view. */
function process_(): AuditLog {
  const s = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(s);
  return new AuditLog(s);
}

const H = 3600_000;
const STATUSES = ['VERIFIED', 'UNVERIFIABLE', 'BLOCKED'] as const;

function fields(orgId: string, i: number, at: Date): AuditEntryFields {
  const status = STATUSES[i % 3] as string;
  return {
    organization_id: orgId,
    user_id: null,
    query: `claim ${i}`,
    result: {
      status,
      admission: null,
      proof_ref: null,
      attestation_id: status === 'VERIFIED' ? `att_split_${i}` : null,
      key_id: null,
      workflow_id: `wf-split-${i}`,
      request_digest: null,
    },
    verified: status === 'VERIFIED',
    domain: i % 2 ? 'math' : 'logic',
    timestamp: at,
    raw_llm_output: null,
  };
}

const rollups = async () => (await db()).collection<AuditRollupDoc>('audit_rollups');

async function chain(orgId: string): Promise<AuditLogDoc[]> {
  return (await (await db()).collection<AuditLogDoc>('audit_logs').find({ organization_id: orgId }).toArray()).sort(
    (a, b) => a.seq - b.seq,
  );
}

/** Appends entries i = from..to-1, one at a time (each its own group commit and store tick), at `at(i)`. */
async function appendEach(log: AuditLog, orgId: string, from: number, to: number, at: (i: number) => Date) {
  const secret = stackEnv().SVC_AUDIT_SECRET_KEY as string;
  for (let i = from; i < to; i++)
    await log.append(fields(orgId, i, at(i)), { logId: `log_split_${orgId}_${i}`, secret, budgetMs: 60_000 });
}

/** A reader's roll-up once the writer's cache writes have landed (a roll-up is a cache; poll, do not sleep). */
async function settledRollup(orgId: string, seq: number) {
  const reader = process_();
  let r = await reader.rollup(orgId);
  for (let i = 0; i < 100 && r.rollup?.seq !== seq; i++) {
    await new Promise((res) => setTimeout(res, 100));
    r = await reader.rollup(orgId);
  }
  return r;
}

describe('the roll-up split (session 23)', () => {
  it('a week of history: the cadence writes the small recent document, not the complete one, and readers get the chain', async () => {
    const t = await newTenant();
    const log = process_();
    const now = Date.now();
    // 100 entries, one per hour over the last ~4 days, then 9 now: a store at the cadence (every 8
    // entries or second) among the first 8 takes the history into the complete document, and the
    // 9th waits for the 8th's store (one organization's commits and stores run in turn).
    await appendEach(log, t.orgId, 0, 100, (i) => new Date(now - (100 - i) * H));
    await appendEach(log, t.orgId, 100, 109, () => new Date());
    const col = await rollups();
    const before = (await col.findOne({ _id: t.orgId }))!;
    expect(Buffer.byteLength(before.counts as string)).toBeGreaterThan(3000);
    // 39 more now: four stores or more at the cadence.
    await appendEach(log, t.orgId, 109, 148, () => new Date());
    const after = (await col.findOne({ _id: t.orgId }))!;
    // The complete document was not rewritten (before session 23 every store replaced it).
    expect(after.seq).toBe(before.seq);
    expect(after.counts).toBe(before.counts);
    const recent = await col.findOne({ _id: recentRollupId(t.orgId) });
    expect(recent!.seq).toBeGreaterThan(before.seq + 24);
    expect(recent!.base).toBe(before.seq);
    expect(rollupOfDoc(recent!)!.hours.length).toBeLessThanOrEqual(2);
    expect(Buffer.byteLength(recent!.counts as string)).toBeLessThan(Buffer.byteLength(before.counts as string) / 5);
    // Another process reads both documents: exactly the chain's roll-up, hours and all.
    const entries = await chain(t.orgId);
    expect(entries).toHaveLength(148);
    const expected = addEntries(emptyRollup(), entries);
    expect((await settledRollup(t.orgId, 148)).rollup).toEqual(expected);
    // Over HTTP: the totals and the last 24 h (hour buckets) as the chain gives them.
    const res = await get(`/metrics/${t.orgId}`, key(t.key));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      audit_entries: 148,
      verifications: summarize(expected.all),
      last_24h: summarize(rowsSince(expected, Date.now() - 24 * H)),
    });
    expect(res.body.last_24h.total).toBeLessThan(148);
    expect(res.body.last_24h.total).toBeGreaterThanOrEqual(48 + 23);
  }, 180_000);

  it('an older complete roll-up landing last (two processes folding at once) still reads exactly', async () => {
    const t = await newTenant();
    const log = process_();
    const now = Date.now();
    await appendEach(log, t.orgId, 0, 60, (i) => new Date(now - (60 - i) * H));
    await appendEach(log, t.orgId, 60, 90, () => new Date());
    const col = await rollups();
    const recent = await col.findOne({ _id: recentRollupId(t.orgId) });
    const base = recent!.base as number;
    expect(base).toBeGreaterThan(10);
    const entries = await chain(t.orgId);
    // A slower process's fold of an older position replaces the complete document after the recent one was based on a newer.
    await col.replaceOne({ _id: t.orgId }, rollupDoc(t.orgId, addEntries(emptyRollup(), entries.slice(0, base - 7))));
    expect((await process_().rollup(t.orgId)).rollup).toEqual(addEntries(emptyRollup(), entries));
    // A complete roll-up of a later position (another process's fold): combined or alone, the chain's.
    await col.replaceOne({ _id: t.orgId }, rollupDoc(t.orgId, addEntries(emptyRollup(), entries.slice(0, 88))));
    expect((await process_().rollup(t.orgId)).rollup).toEqual(addEntries(emptyRollup(), entries));
  }, 180_000);

  it('a recent roll-up stored past the position asked for (another process appended meanwhile) starts no rebuild of the chain', async () => {
    const t = await newTenant();
    const log = process_();
    const now = Date.now();
    // A complete roll-up more than 200 entries (ROLLUP_CATCH_UP) behind the head, and a recent one past it.
    await appendEach(log, t.orgId, 0, 10, (i) => new Date(now - (10 - i) * H));
    await appendEach(log, t.orgId, 10, 230, () => new Date());
    const col = await rollups();
    const complete = (await col.findOne({ _id: t.orgId }))!;
    expect(complete.seq).toBeLessThan(20);
    const recent = (await col.findOne({ _id: recentRollupId(t.orgId) }))!;
    await col.replaceOne({ _id: recentRollupId(t.orgId) }, { ...recent, seq: 240 });
    // The head is at 230: the stored roll-up cannot serve it, and is not rebuilt from the chain
    // (before this, the complete one was caught up or rebuilt in the background: 230 positions read).
    expect((await process_().rollup(t.orgId)).rollup).toBeNull();
    await new Promise((r) => setTimeout(r, 1500));
    expect((await col.findOne({ _id: t.orgId }))!.seq).toBe(complete.seq);
  }, 180_000);

  it('a rebuild mends a wrong recent roll-up: the recent document goes, readers get the chain (review A1)', async () => {
    const t = await newTenant();
    const log = process_();
    const now = Date.now();
    await appendEach(log, t.orgId, 0, 60, (i) => new Date(now - (60 - i) * H));
    await appendEach(log, t.orgId, 60, 90, () => new Date());
    const col = await rollups();
    const recent = (await col.findOne({ _id: recentRollupId(t.orgId) }))!;
    const entries = await chain(t.orgId);
    const truth = addEntries(emptyRollup(), entries);
    // The recent document's counts made wrong (what the rebuild tool is for), at the head's seq.
    const wrong = addEntries(
      emptyRollup(),
      entries.map((e) => ({ ...e, verified: false, result: { ...e.result, status: 'BLOCKED' } })),
    );
    await col.replaceOne(
      { _id: recentRollupId(t.orgId) },
      recentRollupDoc(t.orgId, { ...wrong, seq: 90 }, recent.base as number, wrong.hours),
    );
    expect(await log.rebuildRollup(t.orgId)).toEqual(truth);
    expect(await col.findOne({ _id: recentRollupId(t.orgId) })).toBeNull();
    expect((await process_().rollup(t.orgId)).rollup).toEqual(truth);
  }, 180_000);

  it('two processes appending over many hours: every count once, the stored roll-up equals the chain', async () => {
    const t = await newTenant();
    const [a, b] = [process_(), process_()];
    const now = Date.now();
    await appendEach(a, t.orgId, 0, 30, (i) => new Date(now - (30 - i) * H));
    await Promise.all([
      appendEach(a, t.orgId, 30, 70, (i) => new Date(now - (i % 3) * H)),
      appendEach(b, t.orgId, 70, 110, (i) => new Date(now - (i % 4) * H)),
    ]);
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 110 }, (_, i) => i + 1));
    expect((await settledRollup(t.orgId, 110)).rollup).toEqual(addEntries(emptyRollup(), entries));
    // The all-organizations read (GET /metrics) combines the two documents the same way.
    const all = await process_().allRollups();
    expect(all.find((r) => r.orgId === t.orgId)?.rollup).toEqual(addEntries(emptyRollup(), entries));
  }, 180_000);
});
