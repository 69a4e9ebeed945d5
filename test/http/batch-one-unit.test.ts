// Session 12 (issue 22, a batch job's fixed cost): a job's math items are ONE unit of up to 100
// (math_unit_max in the workflow input), so one audit group commit and one result document per
// job instead of four; and a job that is that one math unit has its own audit entry written in
// the unit's group commit, after its items' entries, so the finish step appends nothing. The
// guarantees stay: every completed item has its entry, the job exactly one entry, VERIFIED items
// their proof and attestation, and a re-run of the unit writes nothing twice.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Store } from '../../core/store.js';
import { EnginePool } from '../../activities/isolation/engine-pool.js';
import { BatchJobStore } from '../../persistence/batch.js';
import { batchActivitiesOn } from './batch-activities.js';
import { auditEntriesOf as entriesOf, hundredMathItems } from './batch-fixtures.js';
import { db, newTenant, post, stackEnv, proofPlaces, type Member } from './helpers.js';

let t: Member;
const stores: Store[] = [];
let pool: EnginePool;

beforeAll(async () => {
  t = await newTenant();
  // One verification first, so that the organization's chain has a head and every later commit is a recorded move.
  const first = await post('/verify/math', { expression: '(a+1)^2 = a^2 + 2*a + 1' }, { 'x-api-key': t.key });
  if (first.status !== 200) throw new Error(`verify/math: ${first.status} ${first.text}`);
  pool = new EnginePool({ size: 1, preload: ['math'] });
  await pool.warmUp();
});
afterAll(async () => {
  await pool?.shutdown();
  for (const s of stores) await s.close().catch(() => undefined);
});

function store(): Store {
  const s = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(s);
  return s;
}

const HUNDRED = hundredMathItems('x');

describe('batch: one math unit per job, the job entry in its group commit', () => {
  it('POST of 100 math items: one result document, 100 item entries, then exactly one job entry right after them', async () => {
    const res = await post('/verify/batch', { items: HUNDRED }, { 'x-api-key': t.key });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', total_items: 100, completed_items: 100, failed_items: 0 });
    const items = res.body.items as Array<{
      id: string;
      result: { status: string; proof_ref: string | null; attestation?: { id: string } };
    }>;
    expect(items.map((i) => i.id)).toEqual(HUNDRED.map((_, i) => `${res.body.job_id}-${i}`));
    expect(items.filter((i) => i.result.status === 'VERIFIED')).toHaveLength(25);
    const jobs = new BatchJobStore(store());
    const job = await jobs.find(res.body.job_id);
    expect(job).toMatchObject({ status: 'completed', units: 1 });
    const [unit0, unit1] = await jobs.unitResults(res.body.job_id, [0, 1]);
    expect(unit0?.items).toHaveLength(100);
    expect(unit0?.audited).toBe(true);
    expect(unit1).toBeNull();
    const entries = await entriesOf(res.body.workflow_id);
    expect(entries).toHaveLength(101);
    // The items' entries, then the job's: consecutive positions of one chain (one group commit, in order).
    expect(entries.map((e) => e.domain)).toEqual([...HUNDRED.map(() => 'math'), 'batch']);
    expect(entries[100]!.seq - entries[0]!.seq).toBe(100);
    expect(entries[100]!.result.status).toBe('completed');
    // One group commit: the positions that move the head over the 101 entries name each entry with its hash.
    const positions = await (
      await db()
    )
      .collection<{ _id: string; log_id: string; entry_hash?: string }>('audit_seq')
      .find({ _id: { $in: entries.map((e) => `${t.orgId}#${e.seq}`) } })
      .toArray();
    expect(new Map(positions.map((p) => [p.log_id, p.entry_hash]))).toEqual(
      new Map(entries.map((e) => [e._id, (e as typeof e & { entry_hash: string }).entry_hash])),
    );
    expect(entries.filter((e) => e.verified)).toHaveLength(25);
    // Every VERIFIED item's proof is retained exactly once (since session 24 in its own entry; review A3).
    for (const it of items.filter((i) => i.result.status === 'VERIFIED'))
      expect(await proofPlaces(it.result, t.orgId)).toEqual({ inEntry: true, inProofs: false });
  }, 180_000);

  it('a job with another item type keeps the finish step writing the job entry: still exactly one', async () => {
    const res = await post(
      '/verify/batch',
      {
        items: [
          { query: '(y+1)^2 = y^2 + 2*y + 1', type: 'math' },
          { query: '3 + 4', type: 'math' },
          { query: '(AND (GT x 5) (LT x 7))', type: 'logic' },
        ],
      },
      { 'x-api-key': t.key },
    );
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'completed', total_items: 3, completed_items: 3, failed_items: 0 });
    expect((await new BatchJobStore(store()).find(res.body.job_id))?.units).toBe(2);
    const entries = await entriesOf(res.body.workflow_id);
    expect(entries.map((e) => e.domain).sort()).toEqual(['batch', 'logic', 'math', 'math']);
  }, 180_000);

  it('a unit with the job entry run twice (a re-run after a crash) writes it once; a finish told job_audited appends none', async () => {
    const s = store();
    const acts = await batchActivitiesOn(s, pool);
    const jobId = `bj_one_unit_${Date.now()}`;
    const workflowId = `batch-${t.orgId}-${jobId}`;
    const audit = { user_id: t.userId, key_id: null, request_digest: `sha256:${'3'.repeat(64)}` };
    const unit = {
      job_id: jobId,
      unit: 0,
      items: ['(u+2)^2 = u^2 + 4*u + 4', '5 * 5'].map((query, index) => ({ index, query, params: {} })),
      org_id: t.orgId,
      workflow_id: workflowId,
      timeout_ms: 60_000,
      audit,
      job_entry: { total_items: 2 },
    };
    const first = await acts.mathBatchUnitActivity(unit);
    expect(first).toEqual([
      { index: 0, status: 'completed' },
      { index: 1, status: 'completed' },
    ]);
    expect((await entriesOf(workflowId)).map((e) => e.domain)).toEqual(['math', 'math', 'batch']);
    // Attempt 1 again (a worker crash before the marker): the stored document, nothing appended.
    expect(await acts.mathBatchUnitActivity(unit)).toEqual(first);
    // The finish step told the unit wrote the job entry appends none (the job document is gone: not stored).
    const finish = {
      job_id: jobId,
      org_id: t.orgId,
      workflow_id: workflowId,
      total_items: 2,
      units: 1,
      completed_items: 2,
      failed_items: 0,
      held: [],
      audit,
    };
    const done = await acts.finishBatchJobActivity({ ...finish, job_audited: true });
    expect(done).toMatchObject({ stored: false, audited: true });
    expect((await entriesOf(workflowId)).map((e) => e.domain)).toEqual(['math', 'math', 'batch']);
    // Without it (a job whose unit failed for good, or older workflows), the finish step writes it: found by its id.
    await acts.finishBatchJobActivity(finish);
    expect((await entriesOf(workflowId)).map((e) => e.domain)).toEqual(['math', 'math', 'batch']);
  }, 120_000);
});
