// Session 11 (issue 22, batch CPU per item): a math unit's items run in one engine task and their
// store writes go out grouped (one insertMany of proofs, then the attestations signed and
// recorded, then the audit entries, then the result document, written once). The guarantees
// stay, against the stack's real store: every VERIFIED item has its proof retained, its
// attestation recorded and an audit entry naming both; a second run of the unit (a re-run after
// a worker crash) writes nothing twice and answers the same tokens; a unit whose engine task
// cannot finish within one item's budget runs again item by item, each item with its own verdict.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { batchItemAuditLogId } from '../../activities/verify-batch.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { resultId, resultOfDoc, type StoredResultDoc } from '../../persistence/batch.js';
import { batchActivitiesOn } from './batch-activities.js';
import { db, newTenant, stackEnv, type Member } from './helpers.js';

let t: Member;
const stores: Store[] = [];
let pool: EnginePool;

beforeAll(async () => {
  t = await newTenant();
  pool = new EnginePool({ size: 1, preload: ['math'] });
  await pool.warmUp(); // a cold thread loads mathjs first: not what these rows prove
});
afterAll(async () => {
  await pool?.shutdown();
  for (const s of stores) await s.close().catch(() => undefined);
});

const QUERIES = [
  '(u+1)^2 = u^2 + 2*u + 1',
  '2 + 2 = 5',
  '(v-3)*(v+3) = v^2 - 9',
  '7 * 6',
  '(u+1)^2 = u^2 + 2*u + 1', // the same artifact twice: one proof, two attestations
];

async function activities(enginePool: EnginePool) {
  const store = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(store);
  return batchActivitiesOn(store, enginePool);
}

function unitInput(jobId: string) {
  const workflowId = `batch-${t.orgId}-${jobId}`;
  return {
    job_id: jobId,
    unit: 0,
    items: QUERIES.map((query, index) => ({ index, query, params: {} })),
    org_id: t.orgId,
    workflow_id: workflowId,
    timeout_ms: 60_000,
    audit: { user_id: t.userId, key_id: null, request_digest: `sha256:${'2'.repeat(64)}` },
  };
}

type View = {
  status: string;
  result?: { status: string; proof_ref: string | null; attestation?: { id: string; token: string } };
};
type ResultDoc = { _id: string; audited: boolean; items: Array<{ index: number; view: View }> };
/** A unit's document as the service reads it (packed since session 12; since session 19 compressed into one Binary, version 2). */
async function storedUnit(jobId: string): Promise<ResultDoc> {
  const raw = (await (await db()).collection<StoredResultDoc>('batch_results').findOne({ _id: resultId(jobId, 0) }))!;
  expect(raw.v).toBe(2);
  expect(raw.packed).toBeUndefined();
  expect(raw.items).toBeUndefined();
  return resultOfDoc(raw) as unknown as ResultDoc;
}

describe('batch math unit: grouped engine run and store writes', () => {
  it('every VERIFIED item has its proof, attestation and audit entry; a second run writes nothing twice and answers the same tokens', async () => {
    const acts = await activities(pool);
    const jobId = `bj_grouped_${Date.now()}`;
    const req = unitInput(jobId);
    const first = await acts.mathBatchUnitActivity(req);
    expect(first).toEqual(QUERIES.map((_, index) => ({ index, status: 'completed' })));
    const d = await db();
    const doc = await storedUnit(jobId);
    expect(doc.audited).toBe(true);
    const statuses = doc.items.map((it) => it.view.result?.status);
    expect(statuses).toEqual(['VERIFIED', 'UNVERIFIABLE', 'VERIFIED', 'UNVERIFIABLE', 'VERIFIED']);
    for (const it of doc.items) {
      const entry = await d
        .collection<{ _id: string; result: Record<string, unknown> }>('audit_logs')
        .findOne({ _id: batchItemAuditLogId(t.orgId, req.workflow_id, it.index) });
      const r = it.view.result!;
      if (r.status !== 'VERIFIED') {
        expect(entry?.result).toMatchObject({ status: r.status, proof_ref: null, attestation_id: null });
        continue;
      }
      // Derived attestation id; the record and the proof are stored; the entry names both.
      expect(r.attestation!.id).toBe(attestationIdFor(t.orgId, `${req.workflow_id}#item-${it.index}`));
      expect(await d.collection<{ _id: string }>('proofs').countDocuments({ _id: r.proof_ref! })).toBe(1);
      const att = await d
        .collection<{ _id: string; token: string; proof_ref: string }>('attestations')
        .findOne({ _id: r.attestation!.id });
      expect(att).toMatchObject({ token: r.attestation!.token, proof_ref: r.proof_ref });
      expect(entry?.result).toMatchObject({
        status: 'VERIFIED',
        proof_ref: r.proof_ref,
        attestation_id: r.attestation!.id,
      });
    }
    // A re-run of the unit (attempt 1 again, as after a worker crash): the stored document, no second write.
    await new Promise((r) => setTimeout(r, 1100)); // a new second: a re-signed token would differ
    const second = await acts.mathBatchUnitActivity(req);
    expect(second).toEqual(first);
    const again = await storedUnit(jobId);
    expect(again.items).toEqual(doc.items);
    expect(await d.collection('audit_logs').countDocuments({ 'result.workflow_id': req.workflow_id })).toBe(
      QUERIES.length,
    );
  }, 120_000);

  it('a re-run that finds no result document (crash before it was written) answers the attestations the first run recorded', async () => {
    const acts = await activities(pool);
    const jobId = `bj_grouped_rerun_${Date.now()}`;
    const req = unitInput(jobId);
    await acts.mathBatchUnitActivity(req);
    const d = await db();
    const doc = await storedUnit(jobId);
    await d.collection<StoredResultDoc>('batch_results').deleteOne({ _id: resultId(jobId, 0) });
    await new Promise((r) => setTimeout(r, 1100));
    await acts.mathBatchUnitActivity(req);
    const rewritten = await storedUnit(jobId);
    expect(rewritten.items.map((it) => it.view.result?.attestation?.token)).toEqual(
      doc.items.map((it) => it.view.result?.attestation?.token),
    );
    expect(await d.collection('audit_logs').countDocuments({ 'result.workflow_id': req.workflow_id })).toBe(
      QUERIES.length,
    );
  }, 120_000);

  it('a unit whose engine task runs past one item budget runs again item by item: each item its own verdict', async () => {
    let groupRuns = 0;
    // The grouped task times out (as a unit with a slow item would); single items run for real.
    const slowGroup = new Proxy(pool, {
      get(target, prop, receiver) {
        if (prop !== 'run') return Reflect.get(target, prop, receiver) as unknown;
        return (task: { engine: string }, opts: { orgId: string | null; timeoutMs: number }) => {
          if (task.engine === 'math_batch_group') {
            groupRuns++;
            return Promise.resolve({ kind: 'timeout', phase: 'run' });
          }
          return target.run(task as Parameters<EnginePool['run']>[0], opts);
        };
      },
    });
    const acts = await activities(slowGroup);
    const jobId = `bj_grouped_fallback_${Date.now()}`;
    const summaries = await acts.mathBatchUnitActivity(unitInput(jobId));
    expect(groupRuns).toBe(1);
    expect(summaries).toEqual(QUERIES.map((_, index) => ({ index, status: 'completed' })));
    const doc = await storedUnit(jobId);
    expect(doc.items.map((it) => it.view.result?.status)).toEqual([
      'VERIFIED',
      'UNVERIFIABLE',
      'VERIFIED',
      'UNVERIFIABLE',
      'VERIFIED',
    ]);
  }, 120_000);
});
