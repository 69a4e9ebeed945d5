// Session 23 (issue 22; docs/batch.md "Session 23: the request packed"): a batch job's request
// is stored packed (`v: 1`, the [query, type] pairs as one brotli Binary) instead of one nested
// document per item, which FerretDB decoded on the admission's insert and on the eviction's
// delete. Requests stored before (no `v`, `items` nested) are still read and deleted with their
// job; a form that cannot be read throws (a failed job is never answered with made-up items).
import { describe, expect, it } from 'vitest';
import { BSON, Binary } from 'mongodb';
import { brotliCompressSync } from 'node:zlib';
import {
  BatchJobStore,
  newBatchJob,
  packRequestDoc,
  requestOfDoc,
  REQUEST_DOC_VERSION,
  type StoredRequestDoc,
} from '../../persistence/batch.js';
import { batchUnits } from '../../core/batch.js';
import { memStore } from './batch-mem-store.js';

const HUNDRED = Array.from({ length: 100 }, (_, i) => ({
  query: `(x+${i})^2 = x^2 + ${2 * i}*x + ${i * i}`,
  type: 'math' as const,
}));
const MIXED = [
  { query: '2 + 2 = 4', type: 'math' as const },
  { query: 'ünïcödé "quoted" \\ back\nline', type: 'natural_language' as const },
  { query: 'SELECT 1', type: 'sql' as const },
  { query: '', type: 'logic' as const },
];

function newJob(id: string, items: ReadonlyArray<{ type: 'math' | 'logic' | 'sql' | 'natural_language' }>) {
  return newBatchJob({
    jobId: id,
    orgId: 'org_a',
    workflowId: `batch-org_a-${id}`,
    totalItems: items.length,
    units: batchUnits([...items], 8).length,
    createdAt: new Date('2026-01-01T00:00:00Z'),
    submittedBy: { user_id: null, key_id: 'k1' },
    started: true,
  });
}

describe('session 23: the request packed', () => {
  it('a 100-item request is stored as version 1, one Binary and no nested item, ≥ 3× smaller, and reads back exactly', () => {
    const stored = packRequestDoc({ _id: 'bj_p', items: HUNDRED });
    expect(stored.v).toBe(REQUEST_DOC_VERSION);
    expect(stored.zpacked).toBeInstanceOf(Binary);
    expect(stored.items).toBeUndefined();
    expect(Object.keys(stored).sort()).toEqual(['_id', 'v', 'zpacked']);
    const nested = BSON.calculateObjectSize({ _id: 'bj_p', items: HUNDRED });
    expect(BSON.calculateObjectSize(stored) * 3).toBeLessThan(nested);
    // Through BSON as the store gives it back.
    const back = BSON.deserialize(BSON.serialize(stored), { promoteBuffers: false }) as StoredRequestDoc;
    expect(requestOfDoc(back)).toEqual({ _id: 'bj_p', items: HUNDRED });
    expect(requestOfDoc(packRequestDoc({ _id: 'bj_m', items: MIXED }))).toEqual({ _id: 'bj_m', items: MIXED });
  });

  it('a request stored before session 23 (no version, items nested) is read as it is', () => {
    expect(requestOfDoc({ _id: 'bj_old', items: MIXED })).toEqual({ _id: 'bj_old', items: MIXED });
  });

  it('an unknown version, a truncated or foreign Binary, or pairs that are not [query, type] are unreadable (throws)', () => {
    const z = (x: unknown) => new Binary(brotliCompressSync(JSON.stringify(x)));
    const good = packRequestDoc({ _id: 'bj_x', items: HUNDRED }).zpacked!;
    const bytes = good.buffer.subarray(0, good.position);
    const bad: StoredRequestDoc[] = [
      { _id: 'bj_x', v: 2, zpacked: good },
      { _id: 'bj_x', v: 1 },
      { _id: 'bj_x', v: 1, items: MIXED },
      { _id: 'bj_x', v: 1, zpacked: new Binary(Buffer.from(bytes.subarray(0, bytes.length - 8))) },
      { _id: 'bj_x', v: 1, zpacked: new Binary(Buffer.from('not brotli at all')) },
      { _id: 'bj_x', v: 1, zpacked: z({ items: [] }) },
      { _id: 'bj_x', v: 1, zpacked: z([['2 + 2', 'poetry']]) },
      { _id: 'bj_x', v: 1, zpacked: z([[4, 'math']]) },
      { _id: 'bj_x', v: 1, zpacked: z([['2 + 2']]) },
      { _id: 'bj_x', v: 1, zpacked: z([{ query: '2 + 2', type: 'math' }]) },
      { _id: 'bj_x' },
    ];
    for (const doc of bad) expect(() => requestOfDoc(doc), JSON.stringify(doc)).toThrow(/bj_x is unreadable/);
  });

  it('the job store writes version 1 at admission; a failed job answers its items from it, and from an old-form request', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    await jobs.admit(newJob('bj_new', MIXED), MIXED, 4);
    const stored = m.coll('batch_requests').docs.get(JSON.stringify('bj_new'));
    expect(stored).toMatchObject({ _id: 'bj_new', v: REQUEST_DOC_VERSION });
    expect(stored!.items).toBeUndefined();
    expect(await jobs.request('bj_new')).toEqual({ _id: 'bj_new', items: MIXED });

    // An old-form request (as session 22 wrote it), its job admitted beside it.
    await jobs.admit(newJob('bj_old', MIXED), MIXED, 4);
    await m.coll('batch_requests').deleteOne({ _id: 'bj_old' });
    await m.coll('batch_requests').insertOne({ _id: 'bj_old', items: MIXED });

    const at = new Date('2026-01-01T00:05:00Z');
    for (const id of ['bj_new', 'bj_old']) {
      const failed = await jobs.failUnfinished(id, 'Job failed: test.', at);
      const view = await jobs.view(failed!);
      expect(view.status).toBe('failed');
      expect(view.items.map((i) => [i.id, i.status, i.error])).toEqual(
        MIXED.map((_, k) => [`${id}-${k}`, 'failed', 'Job failed: test.']),
      );
      expect(view.items.map((i) => i.type)).toEqual(MIXED.map((x) => x.type));
    }
  });

  it('an evicted job is deleted with its request in either form', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    await jobs.admit(newJob('bj_a', MIXED), MIXED, 2);
    await jobs.admit(newJob('bj_b', MIXED), MIXED, 2);
    // bj_a's request as session 22 stored it.
    await m.coll('batch_requests').deleteOne({ _id: 'bj_a' });
    await m.coll('batch_requests').insertOne({ _id: 'bj_a', items: MIXED });
    await jobs.failUnfinished('bj_a', 'x', new Date('2026-01-01T00:01:00Z'));
    await jobs.failUnfinished('bj_b', 'x', new Date('2026-01-01T00:02:00Z'));
    const c = await jobs.admit(newJob('bj_c', MIXED), MIXED, 2);
    const d = await jobs.admit(newJob('bj_d', MIXED), MIXED, 2);
    expect([c.evicted, d.evicted]).toEqual(['bj_a', 'bj_b']);
    expect(await jobs.dropEvicted([...c.drop, ...d.drop])).toBe(2);
    expect([...m.coll('batch_requests').docs.keys()].sort()).toEqual(['"bj_c"', '"bj_d"']);
    expect(await jobs.request('bj_a')).toBeNull();
    expect(await jobs.request('bj_b')).toBeNull();
  });
});
