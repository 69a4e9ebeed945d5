// Session 23 (issue 22; docs/batch.md "Session 23: the request packed"): through the stack's real
// API, Temporal and store, a submitted job's request is stored packed (`v: 1`, its [query, type]
// pairs as one Binary; no nested document per item for FerretDB to decode at the admission's
// insert and the eviction's delete), and a failed job (whose items are answered from its request)
// answers exactly its items from a packed request and from a request stored nested by session
// 22's code.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packRequestDoc, requestOfDoc, type BatchJobDoc, type StoredRequestDoc } from '../../persistence/batch.js';
import { call, waitCompleted } from './batch-fixtures.js';
import { sharedExtraApi } from './extra-api.js';
import { apiUrl, db, newTenant, type Member } from './helpers.js';

let t: Member;
// The POST's status fixed: an API that answers at once (SVC_BATCH_WAIT_SECONDS=0: 202, then polled), shared.
let waitless: Awaited<ReturnType<typeof sharedExtraApi>>;
beforeAll(async () => {
  t = await newTenant();
  waitless = await sharedExtraApi('api-batch-wait-0', { SVC_BATCH_WAIT_SECONDS: '0' });
}, 120_000);
afterAll(async () => {
  await waitless?.release();
});

const ITEMS = [
  { query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' as const },
  { query: 'Paris is the capital of France.', type: 'natural_language' as const },
  { query: '2 + 3*4', type: 'math' as const },
];
const FAILURE = 'Job failed: its workflow was terminated before the job completed; no result was released.';

/** A failed job as the store holds it (its slot number names no slot document: it still holds its slot), with `request`. */
async function storeFailedJob(request: (jobId: string) => StoredRequestDoc): Promise<string> {
  const jobId = `bj_${randomBytes(12).toString('hex')}`;
  const at = new Date('2026-11-01T00:00:00Z');
  const job: BatchJobDoc = {
    _id: jobId,
    org_id: t.orgId,
    slot: 990_000 + Math.floor(Math.random() * 9_000),
    status: 'failed',
    workflow_id: `batch-${t.orgId}-${jobId}`,
    total_items: ITEMS.length,
    completed_items: 0,
    failed_items: ITEMS.length,
    progress_percent: 100,
    units: 2,
    created_at: at,
    completed_at: at,
    started: false,
    submitted_by: { user_id: null, key_id: null },
    failure: FAILURE,
  };
  const d = await db();
  await d.collection<StoredRequestDoc>('batch_requests').insertOne(request(jobId));
  await d.collection<BatchJobDoc>('batch_jobs').insertOne(job);
  return jobId;
}

const failedAnswer = (jobId: string) => ({
  job_id: jobId,
  status: 'failed',
  progress_percent: 100,
  total_items: 3,
  completed_items: 0,
  failed_items: 3,
  items: ITEMS.map((it, i) => ({
    id: `${jobId}-${i}`,
    query: it.query,
    type: it.type,
    status: 'failed',
    latency_ms: 0,
    error: FAILURE,
  })),
  workflow_id: `batch-${t.orgId}-${jobId}`,
  created_at: '2026-11-01T00:00:00.000Z',
  completed_at: '2026-11-01T00:00:00.000Z',
});

describe('batch requests stored packed (session 23)', () => {
  it('POST /verify/batch stores its request as version 1: one Binary, no nested item; it reads back exactly', async () => {
    const res = await call(waitless.url, 'POST', '/verify/batch', t.key, { items: ITEMS });
    expect(res.status).toBe(202);
    const stored = await (
      await db()
    )
      .collection<StoredRequestDoc>('batch_requests')
      .findOne({ _id: res.body.job_id as string });
    expect(stored).not.toBeNull();
    expect(Object.keys(stored!).sort()).toEqual(['_id', 'v', 'zpacked']);
    expect(stored!.v).toBe(1);
    expect(stored!.zpacked?._bsontype).toBe('Binary');
    expect(requestOfDoc(stored!)).toEqual({ _id: res.body.job_id, items: ITEMS });
    // ...and the job runs to its end (polled: the POST answered at once).
    expect((await waitCompleted(waitless.url, t.key, res.body.job_id as string)).status).toBe('completed');
  });

  it('a failed job answers its items from a packed request', async () => {
    const jobId = await storeFailedJob((id) => packRequestDoc({ _id: id, items: ITEMS }));
    const res = await call(apiUrl(), 'GET', `/verify/batch/${jobId}`, t.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(failedAnswer(jobId));
  });

  it('a failed job whose request session 22 stored nested answers the same items', async () => {
    const jobId = await storeFailedJob((id) => ({ _id: id, items: ITEMS }));
    const res = await call(apiUrl(), 'GET', `/verify/batch/${jobId}`, t.key);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(failedAnswer(jobId));
  });
});
