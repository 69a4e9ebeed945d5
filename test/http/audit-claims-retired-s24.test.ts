// Session 24 (issue 22; docs/store-access.md §19): `audit_claims` kept every group commit's claim
// for good (one per commit; 2,058 documents in 819 pages on data-scale's seed), though a claim is
// read only to heal its own commit's positions, seconds after it was written. Its writer now
// deletes it by `_id` once it has indexed the commit's positions and CLAIM_RETIRE_AFTER_MS have
// passed (persistence/audit.ts retireClaims, a background delete command per minute). A commit whose
// positions were not indexed keeps its claim, and the next writer heals it by that claim, as before.
// Against the real store (the stack's FerretDB), each AuditLog on a client of its own (a "process").
import { describe, expect, it, vi } from 'vitest';
import { Store } from '../../core/store.js';
import { verifyChain, type AuditEntryFields } from '../../core/audit-chain.js';
import {
  CLAIM_HEAL_MS,
  CLAIM_RETIRE_AFTER_MS,
  sweepOldAuditClaims,
  type AuditLogDoc,
} from '../../persistence/audit.js';
import { db, newTenant, stackEnv } from './helpers.js';
import { auditProcesses, verifiedClaimFields } from './audit-fixtures.js';

const secret = () => stackEnv().SVC_AUDIT_SECRET_KEY as string;

/** An AuditLog on a store client of its own (another "process"; closed after the file). */
const otherProcess = auditProcesses();

const fields = (orgId: string, i: number): AuditEntryFields =>
  verifiedClaimFields(orgId, i, 'claims-retired', new Date('2026-11-28T00:00:00.000Z'));

/** The organization's claims, by first position (audit_claims by `_id`: org#1 … org#n). */
async function claimsOf(orgId: string, upTo: number): Promise<number[]> {
  const c = (await db()).collection<{ _id: string }>('audit_claims');
  const found = await Promise.all(
    Array.from({ length: upTo }, (_, i) => c.findOne({ _id: `${orgId}#${i + 1}` }).then((d) => (d ? i + 1 : 0))),
  );
  return found.filter((s) => s > 0);
}

async function chain(orgId: string): Promise<AuditLogDoc[]> {
  return (await (await db()).collection<AuditLogDoc>('audit_logs').find({ organization_id: orgId }).toArray()).sort(
    (a, b) => a.seq - b.seq,
  );
}

describe('audit claims are retired once their commit is indexed (session 24)', () => {
  it('three commits: their claims stay until CLAIM_RETIRE_AFTER_MS, then go by `_id`; the chain is whole', async () => {
    expect(CLAIM_RETIRE_AFTER_MS).toBeGreaterThan(10 * CLAIM_HEAL_MS);
    const t = await newTenant();
    const w = otherProcess();
    for (const i of [1, 2, 3])
      await w.append(fields(t.orgId, i), { logId: `log_ret_${t.orgId}_${i}`, secret: secret() });
    // Base ee02593: the claims stay for good (and there is no retirement).
    expect(await claimsOf(t.orgId, 3)).toEqual([1, 2, 3]);
    expect(await w.retireClaims(Date.now())).toBe(0); // within the window: nothing sent
    expect(await claimsOf(t.orgId, 3)).toEqual([1, 2, 3]);
    expect(await w.retireClaims(Date.now() + CLAIM_RETIRE_AFTER_MS)).toBe(3);
    expect(await claimsOf(t.orgId, 3)).toEqual([]);
    expect(await w.retireClaims(Date.now() + CLAIM_RETIRE_AFTER_MS)).toBe(0); // each sent once
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
  }, 60_000);

  it("a commit whose positions were not indexed keeps its claim: the next writer heals it by that claim, never the scan, then only the healer's own claim is retired", async () => {
    const t = await newTenant();
    const dying = otherProcess();
    await dying.append(fields(t.orgId, 1), { logId: `log_rh_${t.orgId}_1`, secret: secret() });
    // Its next commit (2..3): entries and claim written, positions refused (then the process died).
    const positions = vi
      .spyOn(dying as unknown as { indexPositions: (d: AuditLogDoc[]) => Promise<void> }, 'indexPositions')
      .mockRejectedValueOnce(new Error('positions insert refused'));
    const lost = await Promise.allSettled(
      [2, 3].map((i) => dying.append(fields(t.orgId, i), { logId: `log_rh_${t.orgId}_${i}`, secret: secret() })),
    );
    positions.mockRestore();
    expect(lost.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // Its retirement runs: only the indexed commit's claim (1) goes.
    expect(await dying.retireClaims(Date.now() + CLAIM_RETIRE_AFTER_MS)).toBe(1);
    expect(await claimsOf(t.orgId, 4)).toEqual([2]);
    const next = otherProcess();
    const scan = vi.spyOn(next, 'healStalledPosition');
    const r = await next.append(fields(t.orgId, 4), {
      logId: `log_rh_${t.orgId}_4`,
      secret: secret(),
      budgetMs: 8_000,
    });
    expect(r.doc.seq).toBe(4);
    expect(scan).not.toHaveBeenCalled();
    expect(await claimsOf(t.orgId, 4)).toEqual([2, 4]);
    expect(await next.retireClaims(Date.now() + CLAIM_RETIRE_AFTER_MS)).toBe(1);
    expect(await claimsOf(t.orgId, 4)).toEqual([2]); // the healed commit's claim: its writer is gone (left, as every claim was before)
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
  }, 60_000);
  it('review s24 B2: the pass by computed ids deletes the claims no writer retired at or below head − 128, never the stalled commit’s; the heal still goes by its claim', async () => {
    const t = await newTenant();
    const w = otherProcess();
    vi.spyOn(w, 'retireClaims').mockResolvedValue(0); // its retirement never runs (a writer that exited, or session 23's)
    for (let i = 1; i <= 130; i++)
      await w.append(fields(t.orgId, i), { logId: `log_pass_${t.orgId}_${i}`, secret: secret() });
    // The next writer's commit 131..132: entries and claim written, positions refused (then it died).
    const dying = otherProcess();
    const positions = vi
      .spyOn(dying as unknown as { indexPositions: (d: AuditLogDoc[]) => Promise<void> }, 'indexPositions')
      .mockRejectedValueOnce(new Error('positions insert refused'));
    const lost = await Promise.allSettled(
      [131, 132].map((i) => dying.append(fields(t.orgId, i), { logId: `log_pass_${t.orgId}_${i}`, secret: secret() })),
    );
    positions.mockRestore();
    expect(lost.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    // The head document: written every 8 entries, and once appends pause (the sweep reads only it).
    const heads = (await db()).collection<{ _id: string; seq: number }>('audit_heads');
    await vi.waitFor(async () => expect((await heads.findOne({ _id: t.orgId }))?.seq).toBe(130), {
      timeout: 20_000,
      interval: 100,
    });
    expect(await claimsOf(t.orgId, 132)).toEqual([...Array.from({ length: 130 }, (_, i) => i + 1), 131]);
    const api = Store.lazy(stackEnv().MONGODB_URI as string); // the API process that runs the pass
    try {
      await sweepOldAuditClaims(api, { pauseMaxMs: 0, maxPositions: 1_000_000 });
    } finally {
      await api.close().catch(() => undefined);
    }
    // Head 130: positions 1 … 2 are more than 128 below it; 3 … 130 and the stalled commit's 131 stay.
    expect(await claimsOf(t.orgId, 132)).toEqual([...Array.from({ length: 128 }, (_, i) => i + 3), 131]);
    const next = otherProcess();
    const scan = vi.spyOn(next, 'healStalledPosition');
    const r = await next.append(fields(t.orgId, 133), {
      logId: `log_pass_${t.orgId}_133`,
      secret: secret(),
      budgetMs: 8_000,
    });
    expect(r.doc.seq).toBe(133);
    expect(scan).not.toHaveBeenCalled();
    const entries = await chain(t.orgId);
    expect(entries.map((e) => e.seq)).toEqual(Array.from({ length: 133 }, (_, i) => i + 1));
    expect(verifyChain(entries as never, secret()).valid).toBe(true);
  }, 120_000);
});
