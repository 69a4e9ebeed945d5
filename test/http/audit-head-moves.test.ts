// The audit head (issue 22): since session 14 the positions move it (`audit_seq {_id: org#seq,
// log_id, entry_hash}`, inserted by the writer that owns the entries by their unique index), no
// longer a third insert `audit_head_moves {_id: org@from}` per group commit; the head document is
// a copy written by `_id` that may lag. Against the stack's real store, with appenders in several
// "processes" (separate store clients): one linear chain, no fork, no lost entry; a lagging or
// regressed head document is followed to the true head and repaired; a move left over from an
// older chain is never followed.
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import type { AuditEntryFields } from '../../core/audit-chain.js';
import { verifyChain } from '../../core/audit-chain.js';
import { AuditLog, type AuditHeadDoc, type AuditLogDoc } from '../../persistence/audit.js';
import { db, newTenant, stackEnv } from './helpers.js';
import { verifiedClaimFields } from './audit-fixtures.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});

function process_(): AuditLog {
  const s = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(s);
  return new AuditLog(s);
}

const secret = () => stackEnv().SVC_AUDIT_SECRET_KEY as string;

const fields = (orgId: string, i: number): AuditEntryFields => verifiedClaimFields(orgId, i, 'moves');

const append = (log: AuditLog, orgId: string, i: number) =>
  log.append(fields(orgId, i), { logId: `log_moves_${orgId}_${i}`, secret: secret(), budgetMs: 60_000 });

async function chain(orgId: string): Promise<AuditLogDoc[]> {
  return (await (await db()).collection<AuditLogDoc>('audit_logs').find({ organization_id: orgId }).toArray()).sort(
    (a, b) => a.seq - b.seq,
  );
}

const headDoc = async (orgId: string) => (await db()).collection<AuditHeadDoc>('audit_heads').findOne({ _id: orgId });
const moves = async (orgId: string) =>
  (await db())
    .collection<{ _id: string; from_hash: string | null; seq: number; head_hash: string }>('audit_head_moves')
    .find({ _id: { $regex: `^${orgId}@` } })
    .toArray();

describe('audit head moves by insert-once', () => {
  it('three appenders at once: one linear chain, one position per entry and no move, the head document exact once appends pause', async () => {
    const t = await newTenant();
    const logs = [process_(), process_(), process_()];
    const per = 25;
    await Promise.all(
      logs.map((log, p) => Promise.all(Array.from({ length: per }, (_, i) => append(log, t.orgId, p * per + i)))),
    );
    const n = logs.length * per;
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
    // The positions move the head (session 14): one per entry, naming it with its hash; no move is written.
    const positions = await (
      await db()
    )
      .collection<{ _id: string; log_id: string; entry_hash?: string }>('audit_seq')
      .find({ _id: { $in: entries.map((e) => `${t.orgId}#${e.seq}`) } })
      .toArray();
    expect(new Map(positions.map((p) => [p.log_id, p.entry_hash]))).toEqual(
      new Map(entries.map((e) => [e._id, e.entry_hash])),
    );
    expect(await moves(t.orgId)).toEqual([]);
    expect(await logs[2]!.currentHead(t.orgId)).toMatchObject({ seq: n, head_hash: entries[n - 1]!.entry_hash });
    // The document itself, once the appenders' pause timers have written it.
    await new Promise((r) => setTimeout(r, 2000));
    expect(await headDoc(t.orgId)).toMatchObject({ seq: n, head_hash: entries[n - 1]!.entry_hash });
  }, 120_000);

  it('a head document set back (a late write) is followed to the true head; the next append lands after it and repairs it', async () => {
    const t = await newTenant();
    const writer = process_();
    for (let i = 0; i < 6; i++) await append(writer, t.orgId, i);
    const before = await chain(t.orgId);
    expect(before).toHaveLength(6);
    // What a slower writer's `$set` landing after a faster one's leaves behind.
    await (
      await db()
    )
      .collection<AuditHeadDoc>('audit_heads')
      .updateOne({ _id: t.orgId }, { $set: { seq: 2, head_hash: before[1]!.entry_hash } });
    const reader = process_();
    expect(await reader.currentHead(t.orgId)).toMatchObject({ seq: 6, head_hash: before[5]!.entry_hash });
    const page = await reader.page(t.orgId, { limit: 3 });
    expect(page.docs.map((d) => d.seq)).toEqual([6, 5, 4]);
    expect((await reader.integrity(t.orgId, 10, secret())).valid).toBe(true);
    // A fresh appender (no cached head) appends at 7, linked to 6: no fork.
    const r = await append(process_(), t.orgId, 6);
    expect(r.doc.seq).toBe(7);
    expect(r.doc.previous_hash).toBe(before[5]!.entry_hash);
    await new Promise((res) => setTimeout(res, 2000));
    expect(await headDoc(t.orgId)).toMatchObject({ seq: 7, head_hash: r.doc.entry_hash });
  }, 120_000);

  it('a move left over from an older chain (audit_head_moves, before session 14) is neither followed nor in the way', async () => {
    const t = await newTenant();
    const writer = process_();
    for (let i = 0; i < 3; i++) await append(writer, t.orgId, i);
    const entries = await chain(t.orgId);
    // A move from position 3 of another chain state (a head at 3 with another hash).
    await (await db()).collection('audit_head_moves').insertOne({
      _id: `${t.orgId}@3@${'f'.repeat(64)}` as never,
      from_hash: 'f'.repeat(64),
      seq: 9,
      head_hash: 'e'.repeat(64),
      at: new Date(),
    });
    expect(await process_().currentHead(t.orgId)).toMatchObject({ seq: 3, head_hash: entries[2]!.entry_hash });
    const r = await append(process_(), t.orgId, 3);
    expect(r.doc.seq).toBe(4);
    expect(await process_().currentHead(t.orgId)).toMatchObject({ seq: 4, head_hash: r.doc.entry_hash });
  }, 60_000);
});
