// Session 15 (issue 22): an audit append's budget counts from its first attempt when its caller
// gives its own deadline (a batch unit's activity deadline), not from when it was queued. Under
// load a batch unit's appends waited their whole 8 s in the process's own group-commit queue
// behind other jobs' commits; their first attempt then met one conflict (another process had
// appended) and they failed "after 1 attempts". Here an in-memory store (the insert command with
// the entries' unique indexes, point lookups by `_id`) and a clock that a slow commit moves 9 s on
// reproduce it without waiting: the queued append lands with a caller deadline, fails after one
// attempt without one (the previous rule, kept for a single verification), and a failed append
// leaves a valid chain.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { Store } from '../../core/store.js';
import { AUDIT_RESERVE_MS, batchAuditNotAfter } from '../../activities/verify-batch.js';
import { verifyChain, type AuditEntry, type AuditEntryFields } from '../../core/audit-chain.js';
import { AuditAppendConflictError, AuditLog, type AuditLogDoc } from '../../persistence/audit.js';

const SECRET = 'unit-audit-secret-0123456789abcdef';
const ORG = 'org_budget';

type Doc = Record<string, unknown> & { _id: string };

/** Collections by name; `audit_logs` also unique by (organization_id, seq), as the store's index. */
function memoryStore(hooks: { beforeInsert?: (name: string, docs: Doc[]) => Promise<void> } = {}) {
  const colls = new Map<string, Map<string, Doc>>();
  const coll = (name: string) => {
    let c = colls.get(name);
    if (!c) colls.set(name, (c = new Map()));
    return c;
  };
  const dup = (name: string, d: Doc) =>
    coll(name).has(d._id) ||
    (name === 'audit_logs' &&
      [...coll(name).values()].some((x) => x.organization_id === d.organization_id && x.seq === d.seq));
  const idOf = (filter: Record<string, unknown>) => {
    if (Object.keys(filter).length !== 1 || typeof filter._id !== 'string') throw new Error('not a point lookup');
    return filter._id;
  };
  const store = {
    db: {
      command: async (cmd: { insert: string; documents: Doc[]; ordered: boolean }) => {
        await hooks.beforeInsert?.(cmd.insert, cmd.documents);
        const writeErrors: Array<{ index: number; code: number; errmsg: string }> = [];
        for (const [index, d] of cmd.documents.entries()) {
          if (dup(cmd.insert, d)) {
            writeErrors.push({ index, code: 11000, errmsg: 'E11000 duplicate key' });
            if (cmd.ordered) break;
          } else coll(cmd.insert).set(d._id, structuredClone(d));
        }
        return { n: cmd.documents.length - writeErrors.length, ...(writeErrors.length ? { writeErrors } : {}) };
      },
    },
    collection: (name: string) => ({
      findOne: async (filter: Record<string, unknown>) => structuredClone(coll(name).get(idOf(filter)) ?? null),
      insertOne: async (d: Doc) => {
        if (coll(name).has(d._id)) throw Object.assign(new Error('E11000'), { code: 11000 });
        coll(name).set(d._id, structuredClone(d));
      },
      updateOne: async (filter: Record<string, unknown>, u: { $set: Record<string, unknown> }) => {
        const id = idOf(filter);
        const cur = coll(name).get(id);
        if (cur) coll(name).set(id, { ...cur, ...u.$set });
      },
      replaceOne: async (filter: Record<string, unknown>, d: Doc) => {
        coll(name).set(idOf(filter), structuredClone({ ...d, _id: idOf(filter) }));
      },
      deleteOne: async (filter: Record<string, unknown>) => {
        coll(name).delete(idOf(filter));
      },
    }),
  };
  return {
    store: store as unknown as Store,
    entries: () => [...coll('audit_logs').values()] as unknown as AuditLogDoc[],
    coll,
  };
}

const fields = (i: number): AuditEntryFields => ({
  organization_id: ORG,
  user_id: null,
  query: `claim ${i}`,
  result: {
    status: 'VERIFIED',
    admission: null,
    proof_ref: null,
    attestation_id: null,
    key_id: null,
    workflow_id: `wf-${i}`,
  },
  verified: true,
  domain: 'math',
  timestamp: new Date(Date.UTC(2026, 10, 27, 9, 0, i)),
  raw_llm_output: null,
});

afterEach(() => vi.restoreAllMocks());

/**
 * Process A commits a first batch (8 entries) whose insert takes "9 s" (the clock moves on);
 * meanwhile append X is queued behind it. Before X's own commit, process B appends one entry
 * (the position A's cached head points past is taken): X's first attempt conflicts. Returns X's
 * outcome, the entries stored and X's queueing time.
 */
async function queuedBehindSlowCommit(
  xOpts: { notAfter?: number; budgetMs?: number } | ((t0: number) => { notAfter?: number }),
) {
  const realNow = Date.now.bind(Date);
  let skew = 0;
  vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
  let slowDone = false;
  let bAppended = false;
  let b: AuditLog | null = null;
  const mem = memoryStore({
    beforeInsert: async (name, docs) => {
      if (name !== 'audit_logs') return;
      if (!slowDone && docs.some((d) => d._id === 'log_a_0')) {
        skew += 9_000; // the queue ahead of X takes longer than the 8 s budget
        slowDone = true;
      } else if (!bAppended && docs.some((d) => d._id === 'log_x')) {
        bAppended = true;
        await (b as AuditLog).append(fields(100), { logId: 'log_b', secret: SECRET });
      }
    },
  });
  mem.coll('audit_heads').set(ORG, { _id: ORG, seq: 0, head_hash: null, updated_at: new Date() });
  const a = new AuditLog(mem.store);
  b = new AuditLog(mem.store);
  const first = Array.from({ length: 8 }, (_, i) => a.append(fields(i), { logId: `log_a_${i}`, secret: SECRET }));
  await Promise.resolve(); // the flusher took the first batch
  await Promise.resolve();
  const t0 = Date.now();
  const opts = typeof xOpts === 'function' ? xOpts(t0) : xOpts;
  const x = a.append(fields(50), { logId: 'log_x', secret: SECRET, ...opts }).then(
    (r) => ({ ok: true as const, r }),
    (err: unknown) => ({ ok: false as const, err }),
  );
  await Promise.all(first);
  const out = await x;
  expect(bAppended).toBe(true); // X's first attempt met the other process's entry
  const stored = mem.entries().sort((p, q) => p.seq - q.seq);
  return { out, stored };
}

describe('audit append budget of a batch unit (session 15)', () => {
  it('with the caller deadline (a batch unit): an append queued 9 s behind other commits still lands, on its 2nd attempt', async () => {
    const { out, stored } = await queuedBehindSlowCommit((t0) => ({ notAfter: t0 + 120_000 }));
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.r.attempts).toBe(2);
    expect(out.r.existing).toBe(false);
    expect(out.r.doc.seq).toBe(10); // 8 of A, then B's, then X
    expect(stored.map((d) => d._id)).toEqual([...Array.from({ length: 8 }, (_, i) => `log_a_${i}`), 'log_b', 'log_x']);
    expect(verifyChain(stored as unknown as AuditEntry[], SECRET).valid).toBe(true);
  });

  it('without one (a single verification): 8 s from queueing, as before: it fails after 1 attempt and the chain stays valid', async () => {
    const { out, stored } = await queuedBehindSlowCommit({});
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.err).toBeInstanceOf(AuditAppendConflictError);
    expect((out.err as Error).message).toBe('audit append did not win a chain position after 1 attempts');
    expect(stored.map((d) => d._id)).not.toContain('log_x');
    expect(stored.map((d) => d.seq)).toEqual(Array.from({ length: 9 }, (_, i) => i + 1));
    expect(verifyChain(stored as unknown as AuditEntry[], SECRET).valid).toBe(true);
  });

  it("the caller's deadline bounds it: past it at the first conflict, it fails after 1 attempt, chain valid", async () => {
    // Deadline 5 s after queueing: the queue ahead took 9 s.
    const { out, stored } = await queuedBehindSlowCommit((t0) => ({ notAfter: t0 + 5_000, budgetMs: 60_000 }));
    expect(out.ok).toBe(false);
    if (out.ok) return;
    expect(out.err).toBeInstanceOf(AuditAppendConflictError);
    expect((out.err as Error).message).toContain('after 1 attempts');
    expect(stored.map((d) => d._id)).not.toContain('log_x');
    expect(verifyChain(stored as unknown as AuditEntry[], SECRET).valid).toBe(true);
  });

  it('the budget counts from the first attempt: 1 s of budget after a 9 s queue still gets its retry', async () => {
    const { out } = await queuedBehindSlowCommit((t0) => ({ notAfter: t0 + 120_000, budgetMs: 1_000 }));
    expect(out.ok).toBe(true);
    if (out.ok) expect(out.r.attempts).toBe(2);
  });
});

describe('the batch activity deadline its appends get (batchAuditNotAfter)', () => {
  it("inside an activity: its attempt's scheduled time + start-to-close - the reserve; outside one: none", async () => {
    const scheduled = Date.UTC(2026, 10, 27, 9, 0, 0);
    const env = new MockActivityEnvironment({
      startToCloseTimeoutMs: 25 * 60_000 + 2_000,
      currentAttemptScheduledTimestampMs: scheduled,
      isLocal: true,
    });
    expect(await env.run(async () => batchAuditNotAfter())).toBe(scheduled + 25 * 60_000 + 2_000 - AUDIT_RESERVE_MS);
    expect(batchAuditNotAfter()).toBeUndefined();
  });
});
