// An API and a worker of their own on a database of their own, at a small job limit
// (SVC_BATCH_MAX_JOBS), both recording their store commands (test/store-commands/capture.mjs):
// the fixture of the black-box rows about admission at the limit (batch-admission-burst,
// batch-admission-s15). A job store no other file shares, so the limit bounds only this file's jobs.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import { afterAll, beforeAll } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { stackEnv } from './helpers.js';
import { keyOnExtraApi, startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';
import { captureEnv } from '../store-commands/env.js';

export interface BatchApiAtLimit {
  /** The API's base URL, its tenant's key and its database (set once beforeAll ran). */
  readonly url: string;
  readonly key: string;
  readonly db: Db;
  /** The folder both processes record their commands into. */
  readonly dir: string;
}

/** Registers the describe block's beforeAll/afterAll that start and stop the pair; `tag` names processes and database. */
export function batchApiAtLimit(tag: string, limit: number): BatchApiAtLimit {
  const dbName = `svc_${tag}_${randomBytes(4).toString('hex')}`;
  const uri = (() => {
    const u = new URL(stackEnv().MONGODB_URI as string);
    u.pathname = `/${dbName}`;
    return u.toString();
  })();
  const dir = mkdtempSync(path.join(os.tmpdir(), `svc-batch-${tag}-`));
  const env = { MONGODB_URI: uri, SVC_TASK_QUEUE: `svc-${tag}-${randomUUID()}`, ...captureEnv(dir) };
  let api: ExtraApi | undefined;
  let worker: ManagedProcess | undefined;
  let mongo: MongoClient | undefined;
  let db: Db | undefined;
  let key: string | undefined;
  beforeAll(async () => {
    [api, worker] = await Promise.all([
      startExtraApi(`api-${tag}`, {
        ...env,
        SVC_BATCH_MAX_JOBS: String(limit),
        SVC_BATCH_WAIT_SECONDS: '0',
        // The background sweep of never-started jobs (session 16: a read of batch_slots every half
        // of it) stays out of the admissions' command windows these files measure.
        SVC_BATCH_ORPHAN_SECONDS: '3600',
      }),
      startExtraWorker(`worker-${tag}`, env),
    ]);
    mongo = new MongoClient(uri);
    await mongo.connect();
    db = mongo.db(dbName);
    key = await keyOnExtraApi(api.url, tag);
    // Its only organization on the enterprise plan, before its key is first used: a free plan's 60
    // requests a minute are used up by a file's polls of 10 running jobs every 300 ms within ~2 s
    // of slow jobs, and then a burst answers 429 (clean clone 62: 1 × 202, 9 × 429).
    await db.collection('organizations').updateMany({}, { $set: { plan: 'enterprise' } });
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled([worker?.stop(), api?.proc.stop()]);
    await db?.dropDatabase().catch(() => undefined);
    await mongo?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const started = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('batchApiAtLimit: used before its beforeAll ran');
    return v;
  };
  return {
    get url() {
      return started(api).url;
    },
    get key() {
      return started(key);
    },
    get db() {
      return started(db);
    },
    dir,
  };
}
