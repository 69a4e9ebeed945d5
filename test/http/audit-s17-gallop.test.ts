// Session 17 (issue 22, data-scale): following the positions past a lagging head. After a
// conflict with another process's group commit (a 100-item batch job's 101 entries), a writer
// read the positions past its head 8 at a time (105 point reads in 14 round trips, and again for
// the retry): data-scale counted ~305 `audit_seq` reads per burst of 10 jobs. Now it gallops
// (2, 4, … 256 past the last position found, at once) and then closes the gap in ninths, and
// the head read after a conflict is reused for the retry. Real store; the head document is kept
// from moving (as when a reader comes before the other writer's `$set` lands, or that writer died).
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Store } from '../../core/store.js';
import { verifyChain, type AuditEntryFields } from '../../core/audit-chain.js';
import { AuditLog, type AuditLogDoc } from '../../persistence/audit.js';
import { db, newTenant, stackEnv } from './helpers.js';
import { verifiedClaimFields } from './audit-fixtures.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});
const secret = () => stackEnv().SVC_AUDIT_SECRET_KEY as string;

/** An AuditLog on a store client of its own (another "process"), and its store. */
function otherProcess(): { log: AuditLog; store: Store } {
  const store = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(store);
  return { log: new AuditLog(store), store };
}
/** Keeps `log`'s head document where it is (its `$set`s resolve without writing). */
const freezeHeadDoc = (log: AuditLog) =>
  vi
    .spyOn(log as unknown as { writeHeadDoc: () => Promise<void> }, 'writeHeadDoc')
    .mockResolvedValue(undefined as never);
/** Counts `store`'s `audit_seq` point reads from now on. */
function countPositionReads(store: Store): () => number {
  const spy = vi.spyOn(store.collection('audit_seq'), 'findOne');
  return () => spy.mock.calls.length;
}
const fields = (orgId: string, i: number): AuditEntryFields =>
  verifiedClaimFields(orgId, i, 'gallop', new Date('2026-01-04T00:00:00.000Z'));
async function chain(orgId: string): Promise<AuditLogDoc[]> {
  return (await (await db()).collection<AuditLogDoc>('audit_logs').find({ organization_id: orgId }).toArray()).sort(
    (a, b) => a.seq - b.seq,
  );
}
/** `n` entries appended together by `log` (one group commit per 128). */
const appendMany = (log: AuditLog, orgId: string, from: number, n: number) =>
  Promise.all(
    Array.from({ length: n }, (_, k) =>
      log.append(fields(orgId, from + k), { logId: `log_g_${orgId}_${from + k}`, secret: secret() }),
    ),
  );

describe('audit positions past a lagging head (session 17)', () => {
  it("a conflict with another process's 101-entry commit: the retry lands after it with ~30 position reads, not ~210", async () => {
    const t = await newTenant();
    const a = otherProcess();
    const b = otherProcess();
    freezeHeadDoc(a.log);
    freezeHeadDoc(b.log);
    const first = await a.log.append(fields(t.orgId, 1), { logId: `log_g_${t.orgId}_1`, secret: secret() });
    const base = first.doc.seq;
    // A's pause write of its head (600 ms after its appends pause) is done before B commits: it is not what is counted.
    await new Promise((r) => setTimeout(r, 1_000));
    // B's one group commit of 101 entries, after A's (A's head in memory is now 101 behind).
    const many = await appendMany(b.log, t.orgId, 2, 101);
    expect(many.map((r) => r.doc.seq)).toEqual(Array.from({ length: 101 }, (_, k) => base + 1 + k));
    const reads = countPositionReads(a.store);
    const next = await a.log.append(fields(t.orgId, 103), { logId: `log_g_${t.orgId}_103`, secret: secret() });
    expect(next.doc.seq).toBe(base + 102);
    expect(next.attempts).toBe(2);
    // Before session 17: 2 × (1 + 8 × 13) = 210 reads (the walk, then the same walk for the retry).
    expect(reads()).toBeGreaterThan(3);
    expect(reads()).toBeLessThanOrEqual(40);
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: entries.length }, (_, k) => k + 1));
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
  }, 120_000);

  it('the head found from a head document k positions behind, for k from 0 to 300: always the last position and its hash', async () => {
    const t = await newTenant();
    const w = otherProcess();
    freezeHeadDoc(w.log);
    const start = (await w.log.append(fields(t.orgId, 1), { logId: `log_g_${t.orgId}_1`, secret: secret() })).doc.seq;
    for (let from = 2; from <= 301; from += 100) await appendMany(w.log, t.orgId, from, 100);
    const entries = await chain(t.orgId);
    const last = entries[entries.length - 1] as AuditLogDoc;
    expect(last.seq).toBe(start + 300);
    const heads = (await db()).collection<{ _id: string; seq: number; head_hash: string | null }>('audit_heads');
    const reader = otherProcess();
    for (const k of [0, 1, 2, 7, 8, 9, 10, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257, 300]) {
      const at = entries[entries.length - 1 - k] as AuditLogDoc;
      await heads.updateOne({ _id: t.orgId }, { $set: { seq: at.seq, head_hash: at.entry_hash } });
      const reads = countPositionReads(reader.store);
      const head = await reader.log.currentHead(t.orgId);
      expect([k, head?.seq, head?.head_hash]).toEqual([k, last.seq, last.entry_hash]);
      // One read when current; else at most 8 per round, rounds logarithmic in k.
      expect(reads()).toBeLessThanOrEqual(k === 0 ? 1 : 1 + 8 * (3 + Math.ceil(Math.log2(k + 1))));
      vi.restoreAllMocks();
      freezeHeadDoc(w.log);
    }
  }, 180_000);
});
