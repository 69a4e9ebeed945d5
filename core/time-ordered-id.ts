// Time-ordered public ids (session 23, docs/store-access.md §17). An audit entry's `_id` (and the
// attestation id an entry is found by) is 32 hex digits derived from (organization, workflow id),
// so that every attempt of an activity writes the same entry and the unique `_id` refuses a
// second one. As a plain hash each new entry lands on its own random leaf of the `_id` index,
// which on a large store is a page read from disk and one more dirty page per insert. The
// time-ordered form keeps the length and the alphabet but puts a time first: 12 hex digits of a
// time in epoch milliseconds, then the first 20 hex digits of the same digest. New ids then sort
// after the stored ones and a group of inserts lands on the index's right edge. The time must be
// deterministic (the workflow's `workflowInfo().startTime`, the execution chain's start, from its
// history; identical to the run's start here: no continue-as-new, no workflow retry;
// workflows/verify.ts, batch.ts), or a retry would compute another id. The id thus tells its
// run's start time to the millisecond (docs/attestations.md). Ids of the old form stay valid: every read is by `_id`.

/** Hex digits of the time prefix: 48 bits of milliseconds, enough until the year 10889. */
export const ID_TIME_DIGITS = 12;
/** Hex digits of an id's body, either form (old: the digest's first 32; new: time + 20 of the digest). */
export const ID_HEX_DIGITS = 32;

const MAX_ID_TIME_MS = 16 ** ID_TIME_DIGITS;

/**
 * The 32-hex body of an id derived from `digestHex` (a SHA-256 in hex): with `timeMs`, its time
 * prefix then the digest's first 20 digits; without, the digest's first 32 digits (the old form).
 * Throws on a time that is not a whole number of milliseconds in [0, 16^12): an id must never
 * depend on a value that a retry could compute differently.
 */
export function derivedIdHex(digestHex: string, timeMs?: number): string {
  if (!/^[0-9a-f]{64}$/.test(digestHex))
    throw new TypeError('derivedIdHex: expects a SHA-256 digest in lower-case hex');
  if (timeMs === undefined) return digestHex.slice(0, ID_HEX_DIGITS);
  if (!Number.isSafeInteger(timeMs) || timeMs < 0 || timeMs >= MAX_ID_TIME_MS)
    throw new RangeError(`derivedIdHex: time ${String(timeMs)} is not whole milliseconds in [0, 16^12)`);
  return timeMs.toString(16).padStart(ID_TIME_DIGITS, '0') + digestHex.slice(0, ID_HEX_DIGITS - ID_TIME_DIGITS);
}

/**
 * The time an id's body starts with, read as a time-ordered id (epoch ms). Any 32-hex body reads
 * as some time: an old-form id gives a meaningless one, so this is for diagnostics and tests,
 * never for deciding anything about an entry.
 */
export function idTimeMs(idHex: string): number | null {
  return /^[0-9a-f]{32}$/.test(idHex) ? Number.parseInt(idHex.slice(0, ID_TIME_DIGITS), 16) : null;
}
