// The stored form of a batch job's request (`batch_requests`, persistence/batch.ts): its queries
// and types, written once at admission, read only to answer a failed job, deleted with the job.
//
// Session 23 (docs/batch.md "Session 23: the request packed"): the request was stored as it came,
// `items: [{query, type}, …]`, one nested document per item. FerretDB 1.x decodes every document
// it inserts, reads or deletes, and a nested document costs it a type schema of its own (its
// SQLite backend stores each document's JSON beside a schema of every field), so a 100-item
// request was ~100 small documents to handle on the admission's insert and again on the
// eviction's delete. Version 1 keeps the same pairs as one brotli-compressed JSON Binary
// (`zpacked`), as the result documents do since session 19 (batch-result-doc.ts):
//   - `v: 1` says so; a document without `v` is read as before (`items` nested: every request
//     stored before session 23); an unknown version or a value that does not decode is
//     unreadable (the read throws: a failed job is never answered with made-up items);
//   - the items read back are exactly the items written (the same queries, types and order).
import type { Binary } from 'mongodb';
import { BATCH_ITEM_TYPES, type BatchItemType } from '../contract/batch-limits.js';
import { packJsonBinary, unpackJsonBinary } from './batch-result-doc.js';

export interface BatchRequestItem {
  query: string;
  type: BatchItemType;
}

/** A job's request as the service uses it. */
export interface BatchRequestDoc {
  _id: string; // job_id
  items: BatchRequestItem[];
}

/** The stored form written since session 23 (above). */
export const REQUEST_DOC_VERSION = 1;

/** A request as stored: version 1 (`v`, `zpacked`), or the form before session 23 (`items` nested). */
export interface StoredRequestDoc {
  _id: string;
  v?: number;
  /** Version 1: brotli of the JSON of `[query, type]` per item, in the request's order. */
  zpacked?: Binary;
  /** Before session 23. */
  items?: BatchRequestItem[];
}

const TYPES: ReadonlySet<string> = new Set(BATCH_ITEM_TYPES);

/** The stored form of a request (version 1: the pairs compressed into one Binary). */
export function packRequestDoc(doc: BatchRequestDoc): StoredRequestDoc {
  const json = JSON.stringify(doc.items.map((i) => [i.query, i.type]));
  return { _id: doc._id, v: REQUEST_DOC_VERSION, zpacked: packJsonBinary(json) };
}

function itemsOfZpacked(z: unknown): BatchRequestItem[] | null {
  const json = unpackJsonBinary(z);
  if (json === null) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const items: BatchRequestItem[] = [];
  for (const x of parsed) {
    if (!Array.isArray(x) || x.length !== 2) return null;
    const [query, type] = x as [unknown, unknown];
    if (typeof query !== 'string' || typeof type !== 'string' || !TYPES.has(type)) return null;
    items.push({ query, type: type as BatchItemType });
  }
  return items;
}

/** A stored request as the service reads it (either form); throws when unreadable (fail closed). */
export function requestOfDoc(stored: StoredRequestDoc): BatchRequestDoc {
  let items: BatchRequestItem[] | null;
  if (stored.v === REQUEST_DOC_VERSION) items = itemsOfZpacked(stored.zpacked);
  else if (stored.v !== undefined)
    items = null; // a form this code does not know
  else items = Array.isArray(stored.items) ? stored.items : null;
  if (!items) throw new Error(`batch request document ${stored._id} is unreadable`);
  return { _id: stored._id, items };
}
