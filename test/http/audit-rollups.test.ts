// The audit chain's verdict roll-ups against the stack's real store (FerretDB): appenders in
// several "processes" (separate store clients, as the API's in-process worker, the worker and
// the leak-revocation path are) never lose or double a count, the roll-up always equals a rebuild
// from the chain, and a chain without a roll-up (written before roll-ups existed) is rebuilt off
// the request path while /metrics/{org_id} answers from what it has.
import { afterAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { addEntries, emptyRollup, overlayRollup, summarize } from '../../core/audit-rollup.js';
import type { AuditEntryFields } from '../../core/audit-chain.js';
import {
  AuditLog,
  recentRollupId,
  rollupOfDoc,
  type AuditHeadDoc,
  type AuditLogDoc,
  type AuditRollupDoc,
} from '../../persistence/audit.js';
import type { AuditRollup } from '../../core/audit-rollup.js';
import { db, get, newTenant, stackEnv } from './helpers.js';
import { key } from './audit-fixtures.js';

const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});

function process_(): AuditLog {
  const s = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(s);
  return new AuditLog(s);
}

const STATUSES = ['VERIFIED', 'BLOCKED', 'UNVERIFIABLE'] as const;

function fields(orgId: string, i: number): AuditEntryFields {
  const status = STATUSES[i % 3] as string;
  return {
    organization_id: orgId,
    user_id: null,
    query: `claim ${i}`,
    result: {
      status,
      admission: null,
      proof_ref: null,
      attestation_id: status === 'VERIFIED' ? `att_rollup_${i}` : null,
      key_id: null,
      workflow_id: `wf-rollup-${i}`,
      request_digest: null,
    },
    verified: status === 'VERIFIED',
    domain: i % 2 ? 'math' : 'logic',
    timestamp: new Date(),
    raw_llm_output: null,
  };
}

/** The head as a reader sees it: the head document plus the moves that follow it (persistence/audit.ts). */
async function head(orgId: string): Promise<AuditHeadDoc> {
  return (await process_().currentHead(orgId)) as AuditHeadDoc;
}

/** The stored roll-up: the complete document, with the recent one laid over it when it extends it (session 23). */
async function storedRollup(orgId: string): Promise<AuditRollup | null> {
  const col = (await db()).collection<AuditRollupDoc>('audit_rollups');
  const [doc, recent] = await Promise.all([col.findOne({ _id: orgId }), col.findOne({ _id: recentRollupId(orgId) })]);
  const complete = doc ? rollupOfDoc(doc) : null;
  const part = recent && typeof recent.base === 'number' ? rollupOfDoc(recent) : null;
  return complete && part ? (overlayRollup(complete, part, recent!.base as number) ?? complete) : complete;
}

const dropRollup = async (orgId: string) =>
  (await db()).collection<AuditRollupDoc>('audit_rollups').deleteOne({ _id: orgId });

async function chain(orgId: string): Promise<AuditLogDoc[]> {
  return (await (await db()).collection<AuditLogDoc>('audit_logs').find({ organization_id: orgId }).toArray()).sort(
    (a, b) => a.seq - b.seq,
  );
}

describe('audit roll-ups on the store', () => {
  it('three appenders at once: every entry counted once, and the roll-up equals a rebuild from the chain', async () => {
    const t = await newTenant();
    const logs = [process_(), process_(), process_()];
    const secret = stackEnv().SVC_AUDIT_SECRET_KEY as string;
    const per = 30;
    await Promise.all(
      logs.map((log, p) =>
        Promise.all(
          Array.from({ length: per }, (_, i) =>
            log.append(fields(t.orgId, p * per + i), {
              logId: `log_rollup_${t.orgId}_${p}_${i}`,
              secret,
              budgetMs: 60_000,
            }),
          ),
        ),
      ),
    );
    const n = logs.length * per;
    expect((await head(t.orgId)).seq).toBe(n);
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
    // What a reader gets (the stored roll-up, caught up by position if a slower writer's landed last)
    // is exactly the function of the stored chain.
    const incremental = (await logs[1]!.rollup(t.orgId)).rollup;
    expect(incremental).toEqual(addEntries(emptyRollup(), entries));
    expect((await storedRollup(t.orgId))!.seq).toBeGreaterThan(n - 30);
    expect(summarize(incremental!.all)).toMatchObject({
      total: n,
      verified: n / 3,
      blocked: n / 3,
      by_status: { VERIFIED: n / 3, BLOCKED: n / 3, UNVERIFIABLE: n / 3 },
    });
    // Rebuilt from the chain (point lookups by position): the same roll-up, stored.
    await dropRollup(t.orgId);
    expect(await logs[0]!.rebuildRollup(t.orgId)).toEqual(incremental);
    expect(await storedRollup(t.orgId)).toEqual(incremental);
  }, 120_000);

  it("a rebuild racing with appends ends at the chain's roll-up", async () => {
    const t = await newTenant();
    const [a, b] = [process_(), process_()];
    const secret = stackEnv().SVC_AUDIT_SECRET_KEY as string;
    for (let i = 0; i < 10; i++) await a.append(fields(t.orgId, i), { logId: `log_race_${t.orgId}_${i}`, secret });
    await dropRollup(t.orgId);
    await Promise.all([
      b.rebuildRollup(t.orgId),
      ...Array.from({ length: 20 }, (_, i) =>
        a.append(fields(t.orgId, 10 + i), { logId: `log_race_${t.orgId}_${10 + i}`, secret, budgetMs: 60_000 }),
      ),
    ]);
    // Appends that moved the head while the roll-up was missing wrote none (or one the rebuild may
    // have overwritten with an older, still exact one); a reader gets the chain's roll-up, rebuilding
    // in the background when it is too far behind.
    let rollup = (await b.rollup(t.orgId)).rollup;
    for (let i = 0; i < 200 && rollup?.seq !== 30; i++) {
      await new Promise((r) => setTimeout(r, 100));
      rollup = (await b.rollup(t.orgId)).rollup;
    }
    expect(rollup).toEqual(addEntries(emptyRollup(), await chain(t.orgId)));
    expect(rollup!.seq).toBe(30);
  }, 120_000);

  it('/metrics/{org_id} reads the roll-up; a head without one is rebuilt in the background', async () => {
    const t = await newTenant();
    const log = process_();
    const secret = stackEnv().SVC_AUDIT_SECRET_KEY as string;
    for (let i = 0; i < 6; i++) await log.append(fields(t.orgId, i), { logId: `log_metrics_${t.orgId}_${i}`, secret });
    const first = await get(`/metrics/${t.orgId}`, key(t.key));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      audit_entries: 6,
      attestations_issued: 2,
      verifications: { total: 6, verified: 2, blocked: 2 },
      last_24h: { total: 6 },
    });
    // A chain as written before roll-ups existed.
    await dropRollup(t.orgId);
    let res = await get(`/metrics/${t.orgId}`, key(t.key));
    for (let i = 0; i < 200 && res.body.verifications?.total !== 6; i++) {
      await new Promise((r) => setTimeout(r, 100));
      res = await get(`/metrics/${t.orgId}`, key(t.key));
    }
    expect(res.body).toEqual(
      first.body.generated_at ? { ...first.body, generated_at: res.body.generated_at } : first.body,
    );
  }, 60_000);
});
