// Session 16 (issue 22, data-scale): the claim race. Two writers of one organization send their
// group commits at the same seq; each sends its entries and its claim (`audit_claims {_id:
// org#firstSeq}`) at the same moment. When the loser's claim lands first, the winner's entries
// had no claim: before session 16 the loser deleted its claim and the winner wrote none, so a
// stall of the winner's positions could only be healed by the scan of `audit_logs` after
// STALL_HEAL_MS (15 s; 12.5 s of store time on a 10,000-entry data-scale seed, a seeded burst of
// 32 s). Now the winner overwrites the claim beside its positions, the loser leaves its claim
// alone, and a claim heals only when its first entry is the organization's entry at its seq
// (a loser's is passed over, and the claim of the commit that covers the position is used).
// Also the pause write of the head document (publishHead): a process whose head another
// process's document is already past returns without reading positions or writing.
import { afterAll, describe, expect, it, vi } from 'vitest';
import { Store } from '../../core/store.js';
import { buildEntry, verifyChain, type AuditEntryFields } from '../../core/audit-chain.js';
import { AuditLog, CLAIM_HEAL_MS, STALL_HEAL_MS, type AuditLogDoc } from '../../persistence/audit.js';
import { db, newTenant, stackEnv } from './helpers.js';
import { verifiedClaimFields } from './audit-fixtures.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});

const secret = () => stackEnv().SVC_AUDIT_SECRET_KEY as string;

/** An AuditLog on a store client of its own (another "process"). */
function otherProcess(): AuditLog {
  const store = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(store);
  return new AuditLog(store);
}

const fields = (orgId: string, i: number): AuditEntryFields =>
  verifiedClaimFields(orgId, i, 'claim-race', new Date('2026-01-03T00:00:00.000Z'));

const claims = async () => (await db()).collection<{ _id: string; log_ids: string[] }>('audit_claims');

async function chain(orgId: string): Promise<AuditLogDoc[]> {
  return (await (await db()).collection<AuditLogDoc>('audit_logs').find({ organization_id: orgId }).toArray()).sort(
    (a, b) => a.seq - b.seq,
  );
}

const positionOf = async (orgId: string, seq: number) =>
  (await db()).collection<{ _id: string; log_id: string }>('audit_seq').findOne({ _id: `${orgId}#${seq}` });

describe('audit claim race (session 16)', () => {
  it("a loser's claim landed first at the winner's seq: the winner's commit overwrites it with its own entries", async () => {
    const t = await newTenant();
    const w = otherProcess();
    const a = await w.append(fields(t.orgId, 1), { logId: `log_r_${t.orgId}_1`, secret: secret() });
    expect(a.doc.seq).toBe(1);
    // The loser's claim of seq 2 (its entries never landed there).
    await (await claims()).insertOne({ _id: `${t.orgId}#2`, log_ids: [`log_loser_${t.orgId}_2`] });
    const two = await Promise.all(
      [2, 3].map((i) => w.append(fields(t.orgId, i), { logId: `log_r_${t.orgId}_${i}`, secret: secret() })),
    );
    expect(two.map((r) => r.doc.seq)).toEqual([2, 3]);
    // Before session 16 the claim still named the loser's entry.
    expect((await (await claims()).findOne({ _id: `${t.orgId}#2` }))?.log_ids).toEqual(two.map((r) => r.doc._id));
  }, 60_000);

  it('the winner (its claim lost the race) stopped between its entries and its positions: the next writer heals them by the overwritten claim, by point lookups, never the scan', async () => {
    expect(CLAIM_HEAL_MS).toBeLessThan(STALL_HEAL_MS);
    const t = await newTenant();
    const winner = otherProcess();
    const a = await winner.append(fields(t.orgId, 1), { logId: `log_s_${t.orgId}_1`, secret: secret() });
    await (await claims()).insertOne({ _id: `${t.orgId}#2`, log_ids: [`log_loser_${t.orgId}_2`] });
    // The winner's positions insert fails (the store refused it; the process then died): its
    // entries and its claim are written, its positions not.
    const positions = vi
      .spyOn(winner as unknown as { indexPositions: (d: AuditLogDoc[]) => Promise<void> }, 'indexPositions')
      .mockRejectedValueOnce(new Error('positions insert refused'));
    const lost = await Promise.allSettled(
      [2, 3].map((i) => winner.append(fields(t.orgId, i), { logId: `log_s_${t.orgId}_${i}`, secret: secret() })),
    );
    positions.mockRestore();
    expect(lost.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const stalled = (await chain(t.orgId)).map((e) => [e.seq, e._id]);
    expect(stalled).toEqual([
      [1, a.doc._id],
      [2, `log_s_${t.orgId}_2`],
      [3, `log_s_${t.orgId}_3`],
    ]);
    expect(await positionOf(t.orgId, 2)).toBeNull();
    const next = otherProcess();
    const scan = vi.spyOn(next, 'healStalledPosition');
    const started = Date.now();
    // A budget shorter than STALL_HEAL_MS: before session 16 (no claim of the winner's) this rejected.
    const r = await next.append(fields(t.orgId, 4), { logId: `log_s_${t.orgId}_4`, secret: secret(), budgetMs: 8_000 });
    const ms = Date.now() - started;
    expect(r.doc.seq).toBe(4);
    expect(scan).not.toHaveBeenCalled();
    expect(ms).toBeLessThan(STALL_HEAL_MS);
    for (const s of [2, 3]) expect(await positionOf(t.orgId, s)).toMatchObject({ log_id: `log_s_${t.orgId}_${s}` });
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
    console.log(`[audit-s16] claim race: the winner's stalled commit healed by its claim in ${ms} ms`);
  }, 60_000);

  it("a loser's claim left inside another commit does not shadow that commit's claim: a part-way positions insert is still healed by the covering claim", async () => {
    const t = await newTenant();
    const first = otherProcess();
    const a = await first.append(fields(t.orgId, 1), { logId: `log_c_${t.orgId}_1`, secret: secret() });
    // A dead writer's commit of 3 entries at 2..4 with its claim at 2; only position 2 indexed.
    const docs: AuditLogDoc[] = [];
    let prev = a.doc.entry_hash;
    for (const s of [2, 3, 4]) {
      const e = buildEntry(fields(t.orgId, s), prev, secret());
      docs.push({ _id: `log_c_${t.orgId}_${s}`, seq: s, ...e });
      prev = e.entry_hash;
    }
    const d = await db();
    await d.collection<AuditLogDoc>('audit_logs').insertMany(docs);
    await (await claims()).insertOne({ _id: `${t.orgId}#2`, log_ids: docs.map((x) => x._id) });
    await d.collection('audit_seq').insertOne({
      _id: `${t.orgId}#2`,
      log_id: docs[0]!._id,
      entry_hash: docs[0]!.entry_hash,
      verified: true,
      blocked: false,
    } as never);
    // A loser with a stale head tried seq 3 (inside that commit): its claim landed and stays.
    await (await claims()).insertOne({ _id: `${t.orgId}#3`, log_ids: [`log_loser_${t.orgId}_3`, `log_loser_x`] });
    const next = otherProcess();
    const scan = vi.spyOn(next, 'healStalledPosition');
    const r = await next.append(fields(t.orgId, 5), { logId: `log_c_${t.orgId}_5`, secret: secret(), budgetMs: 8_000 });
    expect(r.doc.seq).toBe(5);
    expect(r.doc.previous_hash).toBe(docs[2]?.entry_hash);
    expect(scan).not.toHaveBeenCalled();
    for (const o of docs) expect(await positionOf(t.orgId, o.seq)).toMatchObject({ log_id: o._id });
    expect(verifyChain((await chain(t.orgId)) as never, secret()).valid).toBe(true);
  }, 60_000);

  it("a process's pause write of the head, with another process's head document already past it: no position read and no write (before: every position in between read, the document set back and written again)", async () => {
    const t = await newTenant();
    const storeA = Store.lazy(stackEnv().MONGODB_URI as string);
    stores.push(storeA);
    const a = new AuditLog(storeA);
    const b = otherProcess();
    await a.append(fields(t.orgId, 1), { logId: `log_p_${t.orgId}_1`, secret: secret() });
    await a.append(fields(t.orgId, 2), { logId: `log_p_${t.orgId}_2`, secret: secret() });
    // A's pause timer is taken over by the test (its write is called below, once B is done).
    const pending = (a as unknown as { unpublished: Map<string, { timer: NodeJS.Timeout }> }).unpublished;
    clearTimeout(pending.get(t.orgId)?.timer);
    pending.delete(t.orgId);
    // B appends 40 entries (3..42) in one commit and writes the head document (its first write).
    const forty = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        b.append(fields(t.orgId, 3 + i), { logId: `log_p_${t.orgId}_${3 + i}`, secret: secret() }),
      ),
    );
    expect(forty.map((r) => r.doc.seq)).toEqual(Array.from({ length: 40 }, (_, i) => 3 + i));
    const heads = (await db()).collection<{ _id: string; seq: number; head_hash: string | null }>('audit_heads');
    // B's document write follows its verdicts (not awaited by the appends).
    await vi.waitFor(async () => expect((await heads.findOne({ _id: t.orgId }))?.seq).toBe(42), { timeout: 10_000 });
    const reads = vi.spyOn(storeA.collection('audit_seq'), 'findOne');
    const writes = vi.spyOn(storeA.collection('audit_heads'), 'updateOne');
    const own = (a as unknown as { knownHeads: Map<string, { seq: number; hash: string }> }).knownHeads.get(t.orgId);
    expect(own?.seq).toBe(2);
    await (a as unknown as { publishHead: (org: string, h: unknown) => Promise<void> }).publishHead(t.orgId, {
      ...own,
      rollup: null,
      exists: true,
    });
    // Before session 16: positions 3..42 read (41 reads and more), the document written twice
    // (set back to 2, then 42); while B went on appending, A chased B's commits.
    expect(reads.mock.calls.length).toBe(0);
    expect(writes.mock.calls.length).toBe(0);
    const doc = await heads.findOne({ _id: t.orgId });
    expect(doc?.seq).toBe(42);
    expect(doc?.head_hash).toBe(forty[39]?.doc.entry_hash);
  }, 60_000);

  it("the pause write's walk ends once its own process has appended past it (before: it walked every position of its own new commits)", async () => {
    const t = await newTenant();
    const storeA = Store.lazy(stackEnv().MONGODB_URI as string);
    stores.push(storeA);
    const a = new AuditLog(storeA);
    const forty = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        a.append(fields(t.orgId, 1 + i), { logId: `log_w_${t.orgId}_${1 + i}`, secret: secret() }),
      ),
    );
    expect(forty.at(-1)?.doc.seq).toBe(40);
    const reads = vi.spyOn(storeA.collection('audit_seq'), 'findOne');
    const follow = (
      a as unknown as { followPositions: (o: string, h: unknown, u?: () => boolean) => Promise<{ seq: number }> }
    ).followPositions.bind(a);
    const start = { seq: 1, hash: forty[0]?.doc.entry_hash, rollup: null, exists: true };
    // Told that its process has appended past it: one probe, then it stops at a valid head.
    const stopped = await follow(t.orgId, start, () => true);
    expect(reads.mock.calls.length).toBe(1);
    expect(stopped.seq).toBe(2);
    // Without the stop it follows every position (the readers' walk is unchanged).
    const all = await follow(t.orgId, start);
    expect(all.seq).toBe(40);
  }, 60_000);
});
