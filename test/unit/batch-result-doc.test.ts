// The stored form of a batch unit's result document (persistence/batch.ts packResultDoc /
// resultOfDoc, issue 22, session 12): its items packed into one string, so FerretDB decodes one
// value instead of a type schema per nested object; what is read back is exactly what was
// written, documents of the older nested form still read (and replaced packed at their next
// write), and an unreadable one is an error, never an empty or partial unit (fail closed).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { itemViews, type BatchItemOutcome } from '../../core/batch.js';
import {
  BatchJobStore,
  packResultDoc,
  resultId,
  resultOfDoc,
  type BatchResultDoc,
  type StoredResultDoc,
} from '../../persistence/batch.js';

const QUERIES = Array.from({ length: 25 }, (_, i) => ({
  query: `(x+${i})^2 = x^2 + ${2 * i}*x + ${i * i}`,
  type: 'math' as const,
}));

function unit(jobId: string, audited: boolean | null = true): BatchResultDoc {
  const outcomes: BatchItemOutcome[] = QUERIES.map((_, index) =>
    index === 3
      ? { index, status: 'failed', error: 'Item exceeded the batch item time-out (60000 ms).', latency_ms: 60_000 }
      : {
          index,
          status: 'completed',
          result: {
            status: index % 2 ? 'UNVERIFIABLE' : 'VERIFIED',
            proof_ref: index % 2 ? null : `sha256:${String(index).padStart(64, '0')}`,
            attestation: index % 2 ? undefined : { id: `att_${index}`, token: `eyJ.${'a'.repeat(400)}.sig` },
            diagnostic: { steps: [{ rule: 'expand', from: 'x', to: 'y' }], notes: ['ü → "quoted" \\ back'] },
          },
          latency_ms: index,
        },
  );
  const views = itemViews(jobId, QUERIES, outcomes);
  const doc: BatchResultDoc = {
    _id: resultId(jobId, 0),
    job_id: jobId,
    org_id: 'org_a',
    unit: 0,
    items: views.map((view, index) => ({ index, view })),
  };
  if (audited !== null) doc.audited = audited;
  return doc;
}

/** One collection in memory with the update operators the module sends to `batch_results` ($set, $unset). */
function memStore() {
  const docs = new Map<string, StoredResultDoc>();
  const results = {
    findOne: async (f: { _id: string }) => structuredClone(docs.get(f._id) ?? null),
    insertOne: async (d: StoredResultDoc) => void docs.set(d._id, structuredClone(d)),
    updateOne: async (f: { _id: string }, u: { $set?: Record<string, unknown>; $unset?: Record<string, unknown> }) => {
      const d = docs.get(f._id) as Record<string, unknown> | undefined;
      if (!d) return { matchedCount: 0 };
      Object.assign(d, structuredClone(u.$set ?? {}));
      for (const k of Object.keys(u.$unset ?? {})) delete d[k];
      return { matchedCount: 1 };
    },
  };
  const store = { collection: () => results } as unknown as Store;
  return { store, docs };
}

describe('batch result document: packed stored form', () => {
  it('a 25-item unit round-trips exactly; as stored its items are one string and no nested items', () => {
    const doc = unit('bj_pack');
    const stored = packResultDoc(doc);
    expect(typeof stored.packed).toBe('string');
    expect(stored.items).toBeUndefined();
    expect(Object.keys(stored).sort()).toEqual(['_id', 'audited', 'job_id', 'org_id', 'packed', 'unit']);
    // JSON drops undefined members, as the API's JSON answer does.
    expect(resultOfDoc(structuredClone(stored))).toEqual(JSON.parse(JSON.stringify(doc)));
    // A unit with no audited mark keeps none (documents of the order before session 11).
    const unmarked = packResultDoc(unit('bj_pack', null));
    expect('audited' in unmarked).toBe(false);
    expect('audited' in resultOfDoc(unmarked)).toBe(false);
  });

  it('a document of the older nested form is read as it is', () => {
    const doc = unit('bj_old', false);
    const old: StoredResultDoc = { ...doc };
    expect(resultOfDoc(old)).toEqual(doc);
  });

  it('an unreadable document throws (never an empty or partial unit)', () => {
    const base = packResultDoc(unit('bj_bad'));
    const bad: Array<Partial<StoredResultDoc>> = [
      { packed: 'not json' },
      { packed: '{"0":[0,{"status":"completed"}]}' },
      { packed: '[[0,{"status":"completed"}],[1]]' },
      { packed: '[["0",{"status":"completed"}]]' },
      { packed: '[[0,{"query":"no status"}]]' },
      { packed: '[[0,null]]' },
      { packed: undefined, items: undefined },
    ];
    for (const b of bad) {
      const d = { ...base, ...b } as StoredResultDoc;
      if (b.packed === undefined) delete d.packed;
      expect(() => resultOfDoc(d), JSON.stringify(b)).toThrow(/batch result document bj_bad#0 is unreadable/);
    }
  });

  it('the job store writes packed, reads both forms, and replaces an older document packed', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    const doc = unit('bj_store');
    expect(await jobs.storeUnit(doc)).toEqual(doc);
    expect(typeof m.docs.get(doc._id)!.packed).toBe('string');
    expect(await jobs.unitResult('bj_store', 0)).toEqual(JSON.parse(JSON.stringify(doc)));
    // An older nested document (written before session 12), not yet audited: read, then replaced packed.
    const old = unit('bj_older', false);
    m.docs.set(old._id, structuredClone(old));
    expect(await jobs.unitResult('bj_older', 0)).toEqual(old);
    const withheld = old.items.map((s) => ({ index: s.index, view: { ...s.view, status: 'failed' as const } }));
    await jobs.replaceUnitItems('bj_older', 0, withheld);
    const raw = m.docs.get(old._id)!;
    expect(raw.items).toBeUndefined();
    expect(typeof raw.packed).toBe('string');
    expect(await jobs.unitResult('bj_older', 0)).toEqual(
      JSON.parse(JSON.stringify({ ...old, items: withheld, audited: true })),
    );
  });
});
