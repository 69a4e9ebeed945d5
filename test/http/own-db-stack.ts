// An API and a worker of their own on a database of their own, on the test stack's Temporal and
// FerretDB (session 17, from batch-evict-async's setup): for files that bound or rewrite a job
// store (SVC_BATCH_MAX_JOBS, old document layouts) that no other file may share.
import { randomBytes, randomUUID } from 'node:crypto';
import { MongoClient, type Db } from 'mongodb';
import type { ManagedProcess } from '../../infra/stack.js';
import { stackEnv } from './helpers.js';
import { keyOnExtraApi, startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';

export interface OwnDbStack {
  api: ExtraApi;
  worker: ManagedProcess;
  /** The database, read directly (its name is random: dropped by close()). */
  db: Db;
  /** An API key of a new organization on the API. */
  key: string;
  close(): Promise<void>;
}

/** `tag` names the processes, the database and the task queue; `apiEnv` is added to the API's environment. */
export async function startOwnDbStack(tag: string, apiEnv: Record<string, string>): Promise<OwnDbStack> {
  const dbName = `svc_${tag}_${randomBytes(4).toString('hex')}`;
  const u = new URL(stackEnv().MONGODB_URI as string);
  u.pathname = `/${dbName}`;
  const env = { MONGODB_URI: u.toString(), SVC_TASK_QUEUE: `svc-${tag}-${randomUUID()}` };
  const [api, worker] = await Promise.all([
    startExtraApi(`api-${tag}`, { ...env, ...apiEnv }),
    startExtraWorker(`worker-${tag}`, env),
  ]);
  const mongo = new MongoClient(env.MONGODB_URI);
  await mongo.connect();
  const db = mongo.db(dbName);
  const key = await keyOnExtraApi(api.url, tag);
  return {
    api,
    worker,
    db,
    key,
    close: async () => {
      await Promise.allSettled([worker.stop(), api.proc.stop()]);
      await db.dropDatabase().catch(() => undefined);
      await mongo.close();
    },
  };
}
