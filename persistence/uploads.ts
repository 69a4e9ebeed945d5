// Uploaded datasets (the CSV of /verify/stats) on their way from the API to the worker.
//
// API and worker may run on different hosts, and Temporal payloads are capped at 2 MB, so the
// file travels through the store: the API writes it in chunks (documents stay far below the
// 16 MiB document limit of MongoDB and FerretDB; GridFS is not supported by FerretDB), the
// activity reads it back and checks its SHA-256, and the API deletes it when the request is
// done, chunk by chunk by `_id`. Uploads left behind by a crash are purged by age in a
// background sweep (at most one per UPLOAD_SWEEP_MS per process): the collection holds only
// uploads in flight and such leftovers, so it is bounded (persistence/registry.ts).
import { createHash, randomUUID } from 'node:crypto';
import { Binary } from 'mongodb';
import { Store } from '../core/store.js';

export const UPLOADS_COLLECTION = 'uploads';
/** Bytes per chunk document (base64 in FerretDB's SQLite backend: ~5.6 MB per document). */
export const UPLOAD_CHUNK_BYTES = 4 * 1024 * 1024;
/** Uploads older than this are garbage (a request never lives this long). */
export const UPLOAD_MAX_AGE_MS = 60 * 60 * 1000;

export interface UploadChunkRecord {
  _id: string; // <upload id>:<index>
  upload_id: string;
  org_id: string | null;
  index: number;
  count: number;
  size: number;
  sha256: string;
  data: Binary;
  created_at: Date;
}

export class UploadIntegrityError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UploadIntegrityError';
  }
}

/** The stale-upload sweep runs at most this often per process. */
export const UPLOAD_SWEEP_MS = 10 * 60 * 1000;

Store.registerIndexes(async (store) => {
  await store.collection<UploadChunkRecord>(UPLOADS_COLLECTION).createIndex({ created_at: 1 });
});

const collection = (store: Store) => store.collection<UploadChunkRecord>(UPLOADS_COLLECTION);

/** Inserts of `{_id: upload:index}`. Stores `content` and returns the upload id; sha256 is the hex digest of `content`. */
export async function saveUpload(store: Store, orgId: string | null, content: Buffer, sha256: string): Promise<string> {
  const uploadId = `upl_${randomUUID().replace(/-/g, '')}`;
  const count = Math.max(1, Math.ceil(content.length / UPLOAD_CHUNK_BYTES));
  const createdAt = new Date();
  for (let index = 0; index < count; index++) {
    const part = content.subarray(index * UPLOAD_CHUNK_BYTES, (index + 1) * UPLOAD_CHUNK_BYTES);
    // One document per insert: a batch of several 4 MiB documents could pass the 48 MB message limit.
    await collection(store).insertOne({
      _id: `${uploadId}:${index}`,
      upload_id: uploadId,
      org_id: orgId,
      index,
      count,
      size: content.length,
      sha256,
      data: new Binary(part),
      created_at: createdAt,
    });
  }
  return uploadId;
}

/** `{_id: upload:index}` for index 0, 1, … Reads an upload back; throws UploadIntegrityError when it is missing, incomplete or altered. */
export async function loadUpload(store: Store, uploadId: string, orgId: string | null): Promise<Buffer> {
  const parts: Buffer[] = [];
  let expected: { count: number; size: number; sha256: string } | null = null;
  for (let index = 0; ; index++) {
    const doc = await collection(store).findOne({ _id: `${uploadId}:${index}` });
    if (!doc) break;
    if (doc.org_id !== orgId) throw new UploadIntegrityError(`upload ${uploadId} belongs to another organization`);
    expected ??= { count: doc.count, size: doc.size, sha256: doc.sha256 };
    parts.push(Buffer.from(doc.data.buffer));
    if (index + 1 >= expected.count) break;
  }
  if (!expected || parts.length !== expected.count)
    throw new UploadIntegrityError(`upload ${uploadId} is missing or incomplete`);
  const content = Buffer.concat(parts);
  const digest = createHash('sha256').update(content).digest('hex');
  if (content.length !== expected.size || digest !== expected.sha256) {
    throw new UploadIntegrityError(`upload ${uploadId} does not match its digest`);
  }
  return content;
}

/** `{_id: upload:0}` (its chunk count), then one delete by `{_id}` per chunk, in one bulk write. */
export async function deleteUpload(store: Store, uploadId: string): Promise<void> {
  const first = await collection(store).findOne({ _id: `${uploadId}:0` }, { projection: { count: 1 } });
  const count = first ? Math.max(1, first.count) : 1;
  await collection(store).bulkWrite(
    Array.from({ length: count }, (_, index) => ({ deleteOne: { filter: { _id: `${uploadId}:${index}` } } })),
    { ordered: false },
  );
}

/** Sweep of `created_at < now - UPLOAD_MAX_AGE_MS` (a bounded collection): leftovers of crashed requests. */
export async function sweepStaleUploads(store: Store, now = Date.now()): Promise<number> {
  const r = await collection(store).deleteMany({ created_at: { $lt: new Date(now - UPLOAD_MAX_AGE_MS) } });
  return r.deletedCount ?? 0;
}

let lastSweep = 0;

/**
 * Starts the stale-upload sweep in the background when the last one is older than
 * UPLOAD_SWEEP_MS (called on each upload; the request never waits for it). Resolves to the
 * number removed (0 when no sweep was due).
 */
export function purgeStaleUploads(store: Store, now = Date.now()): Promise<number> {
  if (now - lastSweep < UPLOAD_SWEEP_MS) return Promise.resolve(0);
  lastSweep = now;
  return sweepStaleUploads(store, now);
}
