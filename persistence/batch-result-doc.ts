// The stored form of a batch unit's result document (`batch_results`, persistence/batch.ts).
//
// Session 12 packed a unit's items into one JSON string (`packed`): FerretDB 1.x then handles one
// value instead of a type schema per nested object. A finished 100-item math job's document was
// still ~117 KB of that string (session 19, bench/result-doc-size.ts): 45 % of it the VERIFIED
// items' attestation tokens (base64url JWTs, whose payloads repeat the proof hash and the
// attestation id in a form no compressor can match), the rest the items' views with the same
// verdict texts and field names 100 times. FerretDB decodes and re-encodes every byte of it on
// each insert, read and delete (an eviction's deletion of a 100-item job cost ~5 ms of its CPU,
// session 18), so session 19 stores version 2:
//   - each attestation token split into its decoded header, decoded payload and signature (kept
//     only when joining them again gives back the very same token; otherwise the token stays);
//   - the items' JSON then compressed (brotli, fastest quality) into one BSON Binary (`zpacked`);
//   - `v: 2` says so. Documents without `v` are read as before (`packed` string, or `items`
//     nested as before session 12); an unknown version is unreadable (fail closed).
// The items read back are exactly the items written (the same members in the same order), so a
// GET answers the same JSON for the same job from either form.
import { brotliCompressSync, brotliDecompressSync, constants as zlibConstants } from 'node:zlib';
import { Binary } from 'mongodb';
import type { BatchItemView } from '../core/batch.js';

/** One item of a unit as stored: its index and its view exactly as the API answers it. */
export interface StoredBatchItem {
  index: number;
  view: BatchItemView;
}

export interface BatchResultDoc {
  _id: string; // `<job>#<unit>`
  job_id: string;
  org_id: string;
  unit: number;
  items: StoredBatchItem[];
  /**
   * Set once the unit's items have their audit entries (or were withheld): only then may a
   * running job's progress show them (api/batch-jobs.ts). Absent on documents written before
   * the mark existed (read only once their job is final).
   */
  audited?: boolean;
}

/** The stored form written since session 19 (above). */
export const RESULT_DOC_VERSION = 2;

/**
 * A result document as stored. Version 2 (session 19): `v: 2` and the items compressed in
 * `zpacked`. Without `v`: `packed`, the items' JSON as one string (session 12), or `items`
 * nested (before; replaced at the next write of their items).
 */
export interface StoredResultDoc {
  _id: string;
  job_id: string;
  org_id: string;
  unit: number;
  /** The stored form's version: 2, or absent (the forms before session 19). */
  v?: number;
  /** Version 2: brotli of the JSON of `[index, view]` or `[index, view, token parts]` per item, in the unit's order. */
  zpacked?: Binary;
  /** Before session 19: JSON of `[index, view][]`, in the unit's order. */
  packed?: string;
  /** Before session 12: read, replaced at the next write of its items. */
  items?: StoredBatchItem[];
  audited?: boolean;
}

/** Brotli's fastest quality: a 100-item unit in ~0.1–0.3 ms of the writer's CPU, ~7× smaller (bench/result-doc-size.ts). */
const BROTLI_FAST = { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 1 } };
/** The decompressed items of one unit (~110 KB for 100 items) or a request (at most the POST's body) are never near this: a larger one is unreadable. */
const MAX_UNPACKED_BYTES = 64 * 1024 * 1024;

/** The stored form of a result document (version 2: items compressed into one Binary). */
export function packResultDoc(doc: BatchResultDoc): StoredResultDoc {
  const stored: StoredResultDoc = {
    _id: doc._id,
    job_id: doc.job_id,
    org_id: doc.org_id,
    unit: doc.unit,
    v: RESULT_DOC_VERSION,
    zpacked: packItems(doc.items),
  };
  if (doc.audited !== undefined) stored.audited = doc.audited;
  return stored;
}

/** The items as version 2 stores them (`zpacked`). */
export function packItems(items: readonly StoredBatchItem[]): Binary {
  return packJsonBinary(JSON.stringify(items.map(packedEntry)));
}

/** JSON compressed into one BSON Binary (brotli, fastest quality): the result units' and, since session 23, the requests' stored form. */
export function packJsonBinary(json: string): Binary {
  return new Binary(brotliCompressSync(json, BROTLI_FAST));
}

/** The JSON a Binary of packJsonBinary holds; null when it is not one or does not decompress within the bound. */
export function unpackJsonBinary(z: unknown): string | null {
  const bytes = binaryBytes(z);
  if (!bytes) return null;
  try {
    return brotliDecompressSync(bytes, { maxOutputLength: MAX_UNPACKED_BYTES }).toString('utf8');
  } catch {
    return null;
  }
}

type TokenParts = [header: string, payload: string, signature: string];
type PackedEntry = [number, BatchItemView] | [number, BatchItemView, TokenParts];

/** The attestation record of an item's result, when it carries a token (VERIFIED math items). */
function attestationOf(view: BatchItemView): { token: unknown } | null {
  const result = view.result;
  if (typeof result !== 'object' || result === null) return null;
  const att = (result as { attestation?: unknown }).attestation;
  return typeof att === 'object' && att !== null && 'token' in att ? (att as { token: unknown }) : null;
}

/**
 * `[index, view]`, or `[index, view with the token 0, its parts]` when the token is a JWS whose
 * header and payload decode to text that encodes back to the same token (always, for the
 * service's own tokens; anything else is kept as it is).
 */
function packedEntry(s: StoredBatchItem): PackedEntry {
  const att = attestationOf(s.view);
  const parts = att && typeof att.token === 'string' ? splitToken(att.token) : null;
  if (!parts) return [s.index, s.view];
  const result = s.view.result as Record<string, unknown>;
  // Spread copies keep every member where it was: the token's place is kept by the 0.
  const view = { ...s.view, result: { ...result, attestation: { ...(att as object), token: 0 } } };
  return [s.index, view, parts];
}

function splitToken(token: string): TokenParts | null {
  const seg = token.split('.');
  if (seg.length !== 3) return null;
  const header = Buffer.from(seg[0]!, 'base64url').toString('utf8');
  const payload = Buffer.from(seg[1]!, 'base64url').toString('utf8');
  const parts: TokenParts = [header, payload, seg[2]!];
  return joinToken(parts) === token ? parts : null;
}

const joinToken = ([header, payload, signature]: TokenParts) =>
  `${Buffer.from(header, 'utf8').toString('base64url')}.${Buffer.from(payload, 'utf8').toString('base64url')}.${signature}`;

const isView = (x: unknown): x is BatchItemView =>
  typeof x === 'object' && x !== null && typeof (x as { status?: unknown }).status === 'string';

const isTokenParts = (x: unknown): x is TokenParts =>
  Array.isArray(x) && x.length === 3 && x.every((p) => typeof p === 'string');

/** One packed entry as read back, or null when it is not one (the document is then unreadable). */
function unpackedEntry(x: unknown): StoredBatchItem | null {
  if (!Array.isArray(x) || (x.length !== 2 && x.length !== 3)) return null;
  const [index, view, parts] = x as [unknown, unknown, unknown];
  if (!Number.isInteger(index) || !isView(view)) return null;
  const att = attestationOf(view);
  if (x.length === 3) {
    if (!att || att.token !== 0 || !isTokenParts(parts)) return null;
    att.token = joinToken(parts); // the member keeps its place
  } else if (att?.token === 0) return null; // a split token without its parts
  return { index: index as number, view };
}

/** The items of a stored document's packed JSON (version 2 decompressed: `split`, or `packed`); null when unreadable. */
function itemsOfJson(json: string, split: boolean): StoredBatchItem[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const items: StoredBatchItem[] = [];
  for (const x of parsed) {
    const item = split || (Array.isArray(x) && x.length === 2) ? unpackedEntry(x) : null;
    if (!item) return null;
    items.push(item);
  }
  return items;
}

/** The bytes of a stored Binary (as the driver gives it back), or null. */
function binaryBytes(x: unknown): Uint8Array | null {
  if (x instanceof Binary) return x.buffer.subarray(0, x.position);
  if (x instanceof Uint8Array) return x;
  return null;
}

function itemsOfZpacked(z: unknown): StoredBatchItem[] | null {
  const json = unpackJsonBinary(z);
  return json === null ? null : itemsOfJson(json, true);
}

/** A stored result document as the service reads it (any stored form); throws when unreadable. */
export function resultOfDoc(stored: StoredResultDoc): BatchResultDoc {
  let items: StoredBatchItem[] | null;
  if (stored.v === RESULT_DOC_VERSION) items = itemsOfZpacked(stored.zpacked);
  else if (stored.v !== undefined)
    items = null; // a form this code does not know
  else if (typeof stored.packed === 'string') items = itemsOfJson(stored.packed, false);
  else items = Array.isArray(stored.items) ? stored.items : null;
  // Never answered as an empty or partial unit: a verdict list that cannot be read is an error (fail closed).
  if (!items) throw new Error(`batch result document ${stored._id} is unreadable`);
  const doc: BatchResultDoc = {
    _id: stored._id,
    job_id: stored.job_id,
    org_id: stored.org_id,
    unit: stored.unit,
    items,
  };
  if (stored.audited !== undefined) doc.audited = stored.audited;
  return doc;
}

/** The form before session 19 (`packed`, no version): still read; written only by tests and benches that compare the forms. */
export function packResultDocV1(doc: BatchResultDoc): StoredResultDoc {
  const stored: StoredResultDoc = {
    _id: doc._id,
    job_id: doc.job_id,
    org_id: doc.org_id,
    unit: doc.unit,
    packed: JSON.stringify(doc.items.map((s) => [s.index, s.view])),
  };
  if (doc.audited !== undefined) stored.audited = doc.audited;
  return stored;
}
