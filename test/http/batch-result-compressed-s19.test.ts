// Session 19 (issue 22, the batch job's result documents): a unit's result document is stored in
// version 2 (persistence/batch-result-doc.ts): the attestation tokens split into their decoded
// parts and the items compressed into one Binary, instead of ~117 KB of JSON for 100 items that
// FerretDB decodes on every insert, read and delete. Against the stack's real Temporal and store:
// a finished 100-item job's document is version 2 and at least 4× smaller than the session 12-18
// form of the same items; GET answers exactly the stored items, and every VERIFIED item's token
// still verifies (the token answered is the one signed); a document of the form before (`packed`,
// no version) reads as the same JSON through the job store the GET uses (one without the API's
// cache, as a second API process has it); a damaged or unknown-version document makes that read
// throw, never answer an empty item list (fail closed).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BSON, type Collection } from 'mongodb';
import { Store } from '../../core/store.js';
import {
  BatchJobStore,
  packResultDocV1,
  resultId,
  resultOfDoc,
  type BatchJobDoc,
  type StoredResultDoc,
} from '../../persistence/batch.js';
import { call, waitCompleted } from './batch-fixtures.js';
import { apiUrl, db, newTenant, post, stackEnv, type Member } from './helpers.js';

let t: Member;
const stores: Store[] = [];

beforeAll(async () => {
  t = await newTenant();
});
afterAll(async () => {
  for (const s of stores) await s.close().catch(() => undefined);
});

const results = async () => (await db()).collection<StoredResultDoc>('batch_results');

/** 100 math items: two of three identities (VERIFIED, each with an attestation token), the rest bare expressions. */
const ITEMS = Array.from({ length: 100 }, (_, i) => ({
  query: i % 3 === 1 ? `${i} + ${i}*2` : `(r+${i})^2 = r^2 + ${2 * i}*r + ${i * i}`,
  type: 'math',
}));

/** Submits the 100-item job and returns its completed answer (a POST that finishes in its wait answers 200). */
async function finishedJob(): Promise<any> {
  const res = await call(apiUrl(), 'POST', '/verify/batch', t.key, { items: ITEMS });
  expect([200, 202]).toContain(res.status);
  return res.status === 200 && res.body.status === 'completed'
    ? res.body
    : await waitCompleted(apiUrl(), t.key, res.body.job_id);
}

/** A job store as a second API process has it (no cache of result documents): every read goes to the store. */
function uncachedJobs(): BatchJobStore {
  const store = Store.lazy(stackEnv().MONGODB_URI as string);
  stores.push(store);
  return new BatchJobStore(store);
}

/** Puts `raw` in place of the job's unit 0 document, as if it had been written so. */
async function replaceUnit(coll: Collection<StoredResultDoc>, raw: StoredResultDoc): Promise<void> {
  const res = await coll.replaceOne({ _id: raw._id }, raw);
  expect(res.matchedCount).toBe(1);
}

describe('batch result documents: version 2 (session 19)', () => {
  let job: any;
  let raw: StoredResultDoc;

  it('a finished 100-item job’s document is version 2, ≥ 4× smaller than the packed form; GET answers exactly its items', async () => {
    job = await finishedJob();
    expect(job).toMatchObject({ status: 'completed', total_items: 100, completed_items: 100, failed_items: 0 });
    const got = await (await results()).findOne({ _id: resultId(job.job_id, 0) });
    expect(got).not.toBeNull();
    raw = got!;
    expect(Object.keys(raw).sort()).toEqual(['_id', 'audited', 'job_id', 'org_id', 'unit', 'v', 'zpacked']);
    expect(raw).toMatchObject({ v: 2, job_id: job.job_id, org_id: t.orgId, unit: 0, audited: true });
    expect(raw.zpacked?._bsontype).toBe('Binary');

    const unit = resultOfDoc(raw);
    const before = BSON.calculateObjectSize(packResultDocV1(unit));
    const now = BSON.calculateObjectSize(raw);
    expect(before, `packed ${before} B, version 2 ${now} B`).toBeGreaterThan(50_000);
    expect(now * 4, `packed ${before} B, version 2 ${now} B`).toBeLessThan(before);

    // GET: the stored items, member for member (the JSON text of each item is the stored view's).
    const res = await call(apiUrl(), 'GET', `/verify/batch/${job.job_id}`, t.key);
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body.items)).toBe(JSON.stringify(unit.items.map((s) => s.view)));
    expect(JSON.stringify(res.body)).toBe(JSON.stringify(job));
    const statuses = res.body.items.map((v: any) => v.result.status);
    expect(statuses.filter((s: string) => s === 'VERIFIED')).toHaveLength(67);
    expect(statuses.filter((s: string) => s === 'UNVERIFIABLE')).toHaveLength(33);
  });

  it('every VERIFIED item’s token, read back from version 2, verifies as the token signed for its proof', async () => {
    expect(job).toBeDefined();
    const verified = (job.items as any[]).filter((v) => v.result.status === 'VERIFIED');
    // Every token is a three-part JWS that names its own attestation and proof.
    for (const v of verified) {
      const [, payload, sig] = (v.result.attestation.token as string).split('.');
      const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
      expect(claims).toMatchObject({ jti: v.result.attestation.id, svc: { proof_hash: v.result.proof_ref } });
      expect(Buffer.from(sig!, 'base64url')).toHaveLength(64);
    }
    // The service's own check, on a spread of them (signature included).
    for (const v of [verified[0], verified[33], verified[66]]) {
      const res = await post('/attestation/verify', { token: v.result.attestation.token }, { 'x-api-key': t.key });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ valid: true, claims: { jti: v.result.attestation.id } });
    }
  });

  it('a document of the form before (packed, no version) reads as the same JSON through the job store the GET uses', async () => {
    expect(raw).toBeDefined();
    const jobs = uncachedJobs();
    const doc = (await (await db()).collection<BatchJobDoc>('batch_jobs').findOne({ _id: job.job_id }))!;
    const fromV2 = JSON.stringify(await jobs.view(doc));
    expect(fromV2).toBe(JSON.stringify(job));
    const coll = await results();
    await replaceUnit(coll, packResultDocV1(resultOfDoc(raw)));
    try {
      const back = (await coll.findOne({ _id: raw._id }))!;
      expect(back.v).toBeUndefined();
      expect(typeof back.packed).toBe('string');
      expect(JSON.stringify(await jobs.view(doc))).toBe(fromV2);
      // The API answers the same job the same (from the store or from its cache of final documents).
      const res = await call(apiUrl(), 'GET', `/verify/batch/${job.job_id}`, t.key);
      expect(res.status).toBe(200);
      expect(JSON.stringify(res.body)).toBe(fromV2);
    } finally {
      await replaceUnit(coll, raw);
    }
  });

  it('an unknown version or a damaged version-2 document is unreadable: the store read throws, never an empty item list', async () => {
    expect(raw).toBeDefined();
    const jobs = uncachedJobs();
    const doc = (await (await db()).collection<BatchJobDoc>('batch_jobs').findOne({ _id: job.job_id }))!;
    const coll = await results();
    try {
      for (const damaged of [
        { ...raw, v: 3 },
        { ...raw, zpacked: new BSON.Binary(Buffer.from(raw.zpacked!.buffer.subarray(0, 40))) },
      ]) {
        await replaceUnit(coll, damaged);
        await expect(jobs.view(doc)).rejects.toThrow(`batch result document ${raw._id} is unreadable`);
      }
    } finally {
      await replaceUnit(coll, raw);
    }
    expect(JSON.stringify(await jobs.view(doc))).toBe(JSON.stringify(job));
  });
});
