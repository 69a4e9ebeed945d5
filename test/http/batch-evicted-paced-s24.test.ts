// Session 24 (issue 22; docs/batch.md "Session 24: the deletion of evicted jobs"), black box: an
// API of its own on a database of its own (SVC_BATCH_MAX_JOBS=3) that records its store commands
// (test/store-commands/capture.mjs), and a worker of its own.
//   - The API is in `batch_evictors` from its start (the sweep of a dead process's evictions reads
//     the slots only when a process there is stale).
//   - Three jobs of 12 logic items (a result document per item: 12 each) evicted by a burst of three
//     admissions answer 404 from their slot write, and their documents are deleted afterwards in
//     small commands, one at a time: at most 8 result documents a `delete` command, the requests
//     after the results, the jobs last. Session 23 sent the 36 result documents in one command beside
//     the requests.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { BATCH_NOT_FOUND_DETAIL } from '../../contract/batch-limits.js';
import { stackEnv } from './helpers.js';
import { keyOnExtraApi, startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import { captureEnv } from '../store-commands/env.js';
import { readCapture, type Captured } from '../store-commands/classify.js';
import { call, sleep, waitCompleted } from './batch-fixtures.js';

/** 12 logic items: one unit (result document) each (core/batch.ts batchUnits). */
const LOGIC_ITEMS = Array.from({ length: 12 }, (_, i) => ({ query: `(AND (GT x ${i}))`, type: 'logic' }));

describe('session 24: evicted jobs deleted in small commands, one at a time (an API of its own, SVC_BATCH_MAX_JOBS=3)', () => {
  const dbName = `svc_evict24_${randomBytes(4).toString('hex')}`;
  const uri = (() => {
    const u = new URL(stackEnv().MONGODB_URI as string);
    u.pathname = `/${dbName}`;
    return u.toString();
  })();
  const queue = `svc-evict24-${randomUUID()}`;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-evict24-capture-'));
  const env = { MONGODB_URI: uri, SVC_TASK_QUEUE: queue };
  let api: ExtraApi;
  let worker: ManagedProcess | undefined;
  let mongo: MongoClient;
  let key: string;
  beforeAll(async () => {
    [api, worker] = await Promise.all([
      startExtraApi('api-evict24', {
        ...env,
        ...captureEnv(dir),
        SVC_BATCH_MAX_JOBS: '3',
        SVC_BATCH_WAIT_SECONDS: '0',
        SVC_BATCH_ORPHAN_SECONDS: '3600',
      }),
      startExtraWorker('worker-evict24', env),
    ]);
    mongo = new MongoClient(uri);
    await mongo.connect();
    key = await keyOnExtraApi(api.url, 'evict24');
    // Many polls: the enterprise plan (the free plan answers 429 past 60 requests a minute).
    await mongo
      .db(dbName)
      .collection('organizations')
      .updateMany({}, { $set: { plan: 'enterprise' } });
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled([worker?.stop(), api?.proc.stop()]);
    await mongo
      ?.db(dbName)
      .dropDatabase()
      .catch(() => undefined);
    await mongo?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const coll = (name: string) => mongo.db(dbName).collection<{ _id: string } & Record<string, unknown>>(name);
  const submit = () => call(api.url, 'POST', '/verify/batch', key, { items: LOGIC_ITEMS });

  it('the API is in batch_evictors from its start: one document, its id and when it last wrote it', async () => {
    let docs: Array<Record<string, unknown>> = [];
    for (let i = 0; i < 100 && docs.length === 0; i++) {
      docs = await coll('batch_evictors').find({}).toArray();
      if (docs.length === 0) await sleep(100);
    }
    expect(docs).toHaveLength(1);
    expect(Object.keys(docs[0]!).sort()).toEqual(['_id', 'seen']);
    expect(docs[0]!._id).toMatch(/^api_[0-9a-f]{16}$/);
    expect(docs[0]!.seen).toBeInstanceOf(Date);
    expect(Math.abs(Date.now() - (docs[0]!.seen as Date).getTime())).toBeLessThan(300_000);
  });

  it('a burst of three evictions (36 result documents): 404 from the slot write, then the documents deleted ≤ 8 result documents a command, one command at a time, the jobs last', async () => {
    const first = await Promise.all([submit(), submit(), submit()]);
    for (const r of first) expect([200, 202]).toContain(r.status);
    const done = await Promise.all(first.map((r) => waitCompleted(api.url, key, r.body.job_id, 180_000)));
    const evicted = done.map((d) => d.job_id as string);
    for (const d of done) expect(d.total_items).toBe(12);
    const units = await Promise.all(evicted.map(async (id) => (await coll('batch_jobs').findOne({ _id: id }))?.units));
    expect(units).toEqual([12, 12, 12]);
    const since = Date.now();
    const next = await Promise.all([submit(), submit(), submit()]);
    for (const r of next) expect([200, 202]).toContain(r.status);
    // Evicted from the slot write on (the POSTs answered after it): 404, whatever the deletion's progress.
    for (const id of evicted) {
      const g = await call(api.url, 'GET', `/verify/batch/${id}`, key);
      expect(g.status).toBe(404);
      expect(g.body).toEqual({
        detail: BATCH_NOT_FOUND_DETAIL,
        code: expect.any(String),
        request_id: expect.any(String),
      });
    }
    // The deletion runs once the admissions are quiet and the new jobs are done (≤ 15 s after the POSTs).
    await Promise.all(next.map((r) => waitCompleted(api.url, key, r.body.job_id, 180_000)));
    const left = async () =>
      (await coll('batch_jobs').countDocuments({ _id: { $in: evicted } })) +
      (await coll('batch_requests').countDocuments({ _id: { $in: evicted } })) +
      (await coll('batch_results').countDocuments({
        _id: { $in: evicted.flatMap((id) => Array.from({ length: 12 }, (_, u) => `${id}#${u}`)) },
      }));
    for (let i = 0; i < 300 && (await left()) > 0; i++) await sleep(100);
    expect(await left()).toBe(0);

    // What the API sent for it (the capture is flushed every 250 ms: wait for the jobs' delete, then one more flush).
    const deletes = (): Captured[] =>
      readCapture(dir)
        .filter(
          (c) =>
            c.t >= since &&
            c.cmd === 'delete' &&
            ['batch_results', 'batch_requests', 'batch_jobs'].includes(c.coll ?? ''),
        )
        .sort((a, b) => a.t - b.t);
    // Review C5: the three evictions may go out in one deletion batch or several (a loaded machine
    // can admit the third after the first deletion started): wait for all three jobs' deletes.
    const sum = (cs: Captured[], coll: string) => cs.filter((c) => c.coll === coll).reduce((a, c) => a + (c.n ?? 0), 0);
    for (let i = 0; i < 150 && sum(deletes(), 'batch_jobs') < 3; i++) await sleep(100);
    await sleep(300);
    const sent = deletes();
    const results = sent.filter((c) => c.coll === 'batch_results');
    expect(sum(sent, 'batch_results')).toBe(36);
    for (const c of results) expect(c.n).toBeLessThanOrEqual(8);
    expect(sum(sent, 'batch_requests')).toBe(3);
    expect(sum(sent, 'batch_jobs')).toBe(3);
    // One at a time: each starts after the one before it was answered (the capture's start is Date.now, whole ms); the jobs last.
    for (let i = 1; i < sent.length; i++)
      expect(sent[i]!.t).toBeGreaterThanOrEqual(sent[i - 1]!.t + (sent[i - 1]!.ms ?? 0) - 1);
    expect(sent.at(-1)!.coll).toBe('batch_jobs');
    for (const c of sent) for (const op of c.ops ?? []) expect(Object.keys(op.filter as object)).toEqual(['_id']);
    // Every job's delete comes after its request's and its 12 result documents' (the capture keeps
    // no ids: counted): up to each jobs delete, the requests and results deleted before it cover
    // every job deleted so far.
    sent.forEach((c, k) => {
      if (c.coll !== 'batch_jobs') return;
      const jobsSoFar = sum(sent.slice(0, k + 1), 'batch_jobs');
      expect(sum(sent.slice(0, k), 'batch_requests')).toBeGreaterThanOrEqual(jobsSoFar);
      expect(sum(sent.slice(0, k), 'batch_results')).toBeGreaterThanOrEqual(12 * jobsSoFar);
    });
  }, 480_000);
});
