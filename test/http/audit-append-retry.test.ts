// An audit append whose entry landed but whose position did not (a store error between the two
// inserts of one group commit, persistence/audit.ts) is retried by its activity: the retry finds
// its entry by id, writes the missing position and moves the head over it, so the organization's
// next appends go on. Before (session 13), the retry answered the stored entry without its
// position: no roll-forward could find the entry, the head stayed before it, and every later
// append of the organization conflicted at that seq until its budget ran out (a 503 for every
// audited verification of the tenant, for good). Against the stack's real store.
import { afterAll, describe, expect, it } from 'vitest';
import { MongoNetworkError } from 'mongodb';
import { Store } from '../../core/store.js';
import { verifyChain, type AuditEntryFields } from '../../core/audit-chain.js';
import { AuditLog, type AuditLogDoc } from '../../persistence/audit.js';
import { db, newTenant, stackEnv } from './helpers.js';
import { storeWithCommandHook, verifiedClaimFields } from './audit-fixtures.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});

const secret = () => stackEnv().SVC_AUDIT_SECRET_KEY as string;

/** A store whose next `insert` into `audit_seq` (the positions) fails as a lost connection would. */
function storeFailingNextPositions(): { store: Store; failNext: () => void; failed: () => number } {
  const real = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(real);
  let armed = false;
  let failures = 0;
  const store = storeWithCommandHook(real, (cmd) => {
    if (armed && cmd.insert === 'audit_seq') {
      armed = false;
      failures++;
      throw new MongoNetworkError('connection closed (injected)');
    }
  });
  return { store, failNext: () => (armed = true), failed: () => failures };
}

const fields = (orgId: string, i: number): AuditEntryFields => verifiedClaimFields(orgId, i, 'retry');

describe('audit append retried after its position was lost', () => {
  it('the retry writes the position and moves the head; the next appends go on; one linear chain', async () => {
    const t = await newTenant();
    const f = storeFailingNextPositions();
    const log = new AuditLog(f.store);
    // Budget: the organization's next append must not wait out a conflict (it did, for good).
    const append = (i: number) =>
      log.append(fields(t.orgId, i), { logId: `log_retry_${t.orgId}_${i}`, secret: secret(), budgetMs: 5_000 });

    f.failNext();
    await expect(append(1)).rejects.toBeInstanceOf(MongoNetworkError);
    expect(f.failed()).toBe(1);
    const logs = (await db()).collection<AuditLogDoc>('audit_logs');
    const seq = (await db()).collection<{ _id: string; log_id: string }>('audit_seq');
    // The entry landed, its position did not: the state a crash between the two inserts leaves.
    const first = await logs.findOne({ _id: `log_retry_${t.orgId}_1` });
    expect(first?.seq).toBe(1);
    expect(await seq.findOne({ _id: `${t.orgId}#1` })).toBeNull();

    // The activity's retry: the same entry id finds the stored entry.
    const retried = await append(1);
    expect(retried).toMatchObject({ existing: true, doc: { _id: `log_retry_${t.orgId}_1`, seq: 1 } });
    expect(await seq.findOne({ _id: `${t.orgId}#1` })).toMatchObject({ log_id: `log_retry_${t.orgId}_1` });

    // The organization's next appends take the following positions (before the fix: conflict at seq 1 until the budget ended).
    const next = await Promise.all([append(2), append(3)]);
    expect(next.map((r) => r.doc.seq).sort()).toEqual([2, 3]);
    const entries = (await logs.find({ organization_id: t.orgId }).toArray()).sort((a, b) => a.seq - b.seq);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
    expect((await log.currentHead(t.orgId))?.seq).toBe(3);
  });
});
