// The audit chain's leftovers of session 13 (issue 22), against the stack's real store:
//  - an entry whose writer died between its two inserts (the entry landed, its position did not,
//    and no activity retried it) used to wedge its organization's chain for good: every later
//    append conflicted at that seq until its budget ran out (AuditAppendConflictError, a 503 for
//    every audited verification). The next writer now indexes the stalled position itself
//    (healStalledPosition, after STALL_HEAL_MS) and appends after it; over HTTP too, where the
//    tenant's verifications fail closed (503) until the stall has lasted STALL_HEAL_MS.
//  - a re-run of a 101-entry batch job's entries in another process (the entries exist) found
//    them one per pass (an insert, a lookup, a position insert and head reads per entry) and
//    outlasted its append deadline; it now finds them in one pass: one insert command.
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { buildEntry, verifyChain, type AuditEntryFields } from '../../core/audit-chain.js';
import { AuditAppendConflictError, AuditLog, type AuditLogDoc } from '../../persistence/audit.js';
import { db, get, newTenant, post, stackEnv } from './helpers.js';
import { storeWithCommandHook, verifiedClaimFields } from './audit-fixtures.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});

const secret = () => stackEnv().SVC_AUDIT_SECRET_KEY as string;

/** An AuditLog on a store client of its own (another "process"), counting the insert commands it sends per collection. */
function process_(stallHealMs?: number): { log: AuditLog; inserts: Map<string, number> } {
  const real = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(real);
  const inserts = new Map<string, number>();
  const store = storeWithCommandHook(real, (cmd) => {
    if (typeof cmd.insert === 'string') inserts.set(cmd.insert, (inserts.get(cmd.insert) ?? 0) + 1);
  });
  return { log: new AuditLog(store, stallHealMs), inserts };
}

const fields = (orgId: string, i: number): AuditEntryFields =>
  verifiedClaimFields(orgId, i, 'heal', new Date('2026-01-02T00:00:00.000Z'));

async function chain(orgId: string): Promise<AuditLogDoc[]> {
  return (await (await db()).collection<AuditLogDoc>('audit_logs').find({ organization_id: orgId }).toArray()).sort(
    (a, b) => a.seq - b.seq,
  );
}

/** What a writer that died between its two inserts leaves: the entry at `seq`, linked to `previous`, and no position. */
async function orphanEntry(orgId: string, seq: number, previous: string, i: number): Promise<AuditLogDoc> {
  const doc: AuditLogDoc = {
    _id: `log_orphan_${orgId}_${i}`,
    seq,
    ...buildEntry(fields(orgId, i), previous, secret()),
  };
  await (await db()).collection<AuditLogDoc>('audit_logs').insertOne(doc);
  return doc;
}

const positionOf = async (orgId: string, seq: number) =>
  (await db()).collection<{ _id: string; log_id: string }>('audit_seq').findOne({ _id: `${orgId}#${seq}` });

describe('audit chain heal: an entry left without its position', () => {
  it('the next writer (another process) indexes it after the stall and appends after it; one valid chain', async () => {
    const t = await newTenant();
    const first = process_().log;
    const a = await first.append(fields(t.orgId, 1), { logId: `log_heal_${t.orgId}_1`, secret: secret() });
    const b = await first.append(fields(t.orgId, 2), { logId: `log_heal_${t.orgId}_2`, secret: secret() });
    expect([a.doc.seq, b.doc.seq]).toEqual([1, 2]);
    const orphan = await orphanEntry(t.orgId, 3, b.doc.entry_hash, 3);
    expect(await positionOf(t.orgId, 3)).toBeNull();

    // Before the fix: AuditAppendConflictError after the budget (the position never appeared).
    // A stall of 1 s instead of STALL_HEAL_MS, so the heal falls inside the budget.
    const next = process_(1_000).log;
    const r = await next.append(fields(t.orgId, 4), {
      logId: `log_heal_${t.orgId}_4`,
      secret: secret(),
      budgetMs: 6_000,
    });
    expect(r.doc.seq).toBe(4);
    expect(r.doc.previous_hash).toBe(orphan.entry_hash);
    expect(await positionOf(t.orgId, 3)).toMatchObject({ log_id: orphan._id });
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
    expect(await process_().log.currentHead(t.orgId)).toMatchObject({ seq: 4, head_hash: r.doc.entry_hash });
    // The first process (its cached head at 2) appends at 5 too.
    expect((await first.append(fields(t.orgId, 5), { logId: `log_heal_${t.orgId}_5`, secret: secret() })).doc.seq).toBe(
      5,
    );
  }, 60_000);

  it('a position taken by a live writer is not healed before the stall: the waiting writer gives up within its budget', async () => {
    const t = await newTenant();
    const w = process_().log;
    const a = await w.append(fields(t.orgId, 1), { logId: `log_live_${t.orgId}_1`, secret: secret() });
    await orphanEntry(t.orgId, 2, a.doc.entry_hash, 2);
    // A budget shorter than the stall (STALL_HEAL_MS): the waiting writer neither heals nor forks.
    await expect(
      process_().log.append(fields(t.orgId, 3), { logId: `log_live_${t.orgId}_3`, secret: secret(), budgetMs: 300 }),
    ).rejects.toBeInstanceOf(AuditAppendConflictError);
    expect(await positionOf(t.orgId, 2)).toBeNull();
    expect((await chain(t.orgId)).map((e) => e.seq)).toEqual([1, 2]);
  }, 60_000);

  it('over HTTP: after an entry left without its position, /verify/math fails closed (503) until the stall, then answers 200 with its entry after it; the chain verifies', async () => {
    const t = await newTenant();
    const math = (e: string) => post('/verify/math', { expression: e }, { 'x-api-key': t.key });
    const r1 = await math('(a+1)^2 = a^2 + 2*a + 1');
    expect(r1.status).toBe(200);
    const [e1] = await chain(t.orgId);
    expect(e1?.seq).toBe(1);
    const orphan = await orphanEntry(t.orgId, 2, e1!.entry_hash, 2);
    // The stack's worker heals after STALL_HEAL_MS (15 s); until then each verification of this
    // tenant fails closed after its append budget: 503 with a detail, never a verdict.
    const started = Date.now();
    let r2 = await math('(a+2)^2 = a^2 + 4*a + 4');
    while (r2.status !== 200 && Date.now() - started < 90_000) {
      expect(r2.status).toBe(503);
      expect(typeof r2.body.detail).toBe('string');
      r2 = await math('(a+2)^2 = a^2 + 4*a + 4');
    }
    expect(r2.status).toBe(200);
    expect(r2.body.status).toBe('VERIFIED');
    const entries = await chain(t.orgId);
    expect(entries.slice(0, 2).map((e) => [e.seq, e._id === orphan._id])).toEqual([
      [1, false],
      [2, true],
    ]);
    const mine = entries.find((e) => e.result.attestation_id === r2.body.attestation.id);
    expect(mine?.seq).toBeGreaterThan(2);
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
    const logs = await get('/audit/logs?limit=50', { authorization: `Bearer ${t.token}` });
    expect(logs.status).toBe(200);
    expect(logs.body.logs.map((l: { seq: number }) => l.seq).slice(-2)).toEqual([2, 1]);
    const v = await get(`/admin/compliance/verify/${mine!._id}`, { 'x-api-key': t.key });
    expect(v.status).toBe(200);
    expect(v.body).toMatchObject({ valid: true });
  }, 150_000);
});

describe('audit re-run of a batch job in another process', () => {
  it('101 entries that exist are found in one pass: one insert command, every entry answered as existing', async () => {
    const t = await newTenant();
    const ids = Array.from({ length: 101 }, (_, i) => `log_rerun_${t.orgId}_${i}`);
    const firstRun = process_().log;
    const written = await Promise.all(
      ids.map((logId, i) => firstRun.append(fields(t.orgId, i), { logId, secret: secret() })),
    );
    expect(written.map((w) => w.doc.seq)).toEqual(ids.map((_, i) => i + 1));

    // The re-run (another process, no cached head): the same ids, the same fields, one tick.
    const rerun = process_();
    const t0 = Date.now();
    const again = await Promise.all(
      ids.map((logId, i) => rerun.log.append(fields(t.orgId, i), { logId, secret: secret(), budgetMs: 8_000 })),
    );
    const ms = Date.now() - t0;
    expect(again.every((r) => r.existing)).toBe(true);
    expect(again.map((r) => r.doc._id)).toEqual(ids);
    // Before: one pass per entry (101 inserts of audit_logs, each followed by lookups and a position insert).
    expect(rerun.inserts.get('audit_logs')).toBe(1);
    expect(rerun.inserts.get('audit_seq') ?? 0).toBeLessThanOrEqual(1);
    expect((await chain(t.orgId)).map((e) => e.seq)).toEqual(ids.map((_, i) => i + 1));
    console.log(`[audit re-run] 101 existing entries answered in ${ms} ms`);
  }, 120_000);
});
