// The stored form of a batch unit's result document (persistence/batch-result-doc.ts packResultDoc /
// resultOfDoc, issue 22): session 12 packed its items into one string, so FerretDB decodes one
// value instead of a type schema per nested object; session 19 (version 2) splits each
// attestation token into its decoded parts and compresses the items into one Binary. What is
// read back is exactly what was written (members in the same order), documents of the older
// forms still read (and are replaced in the new form at their next write), and an unreadable one
// is an error, never an empty or partial unit (fail closed).
import { describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { brotliCompressSync } from 'node:zlib';
import { BSON, Binary } from 'mongodb';
import type { Store } from '../../core/store.js';
import { itemViews, type BatchItemOutcome } from '../../core/batch.js';
import {
  BatchJobStore,
  packResultDoc,
  packResultDocV1,
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

/** A document as it comes back over the wire (BSON both ways: a Binary stays a Binary). */
const wire = <T>(d: T): T => BSON.deserialize(BSON.serialize(d as BSON.Document)) as T;

/** One collection in memory with the update operators the module sends to `batch_results` ($set, $unset). */
function memStore() {
  const docs = new Map<string, StoredResultDoc>();
  const results = {
    findOne: async (f: { _id: string }) => (docs.has(f._id) ? wire(docs.get(f._id)) : null),
    insertOne: async (d: StoredResultDoc) => void docs.set(d._id, wire(d)),
    updateOne: async (f: { _id: string }, u: { $set?: Record<string, unknown>; $unset?: Record<string, unknown> }) => {
      const d = docs.get(f._id) as Record<string, unknown> | undefined;
      if (!d) return { matchedCount: 0 };
      Object.assign(d, wire(u.$set ?? {}));
      for (const k of Object.keys(u.$unset ?? {})) delete d[k];
      return { matchedCount: 1 };
    },
  };
  const store = { collection: () => results } as unknown as Store;
  return { store, docs };
}

describe('batch result document: the packed form (session 12, still read)', () => {
  it('a 25-item unit round-trips exactly; as stored its items are one string and no nested items', () => {
    const doc = unit('bj_pack');
    const stored = packResultDocV1(doc);
    expect(typeof stored.packed).toBe('string');
    expect(stored.items).toBeUndefined();
    expect(Object.keys(stored).sort()).toEqual(['_id', 'audited', 'job_id', 'org_id', 'packed', 'unit']);
    // JSON drops undefined members, as the API's JSON answer does.
    expect(resultOfDoc(structuredClone(stored))).toEqual(JSON.parse(JSON.stringify(doc)));
    // A unit with no audited mark keeps none (documents of the order before session 11).
    const unmarked = packResultDocV1(unit('bj_pack', null));
    expect('audited' in unmarked).toBe(false);
    expect('audited' in resultOfDoc(unmarked)).toBe(false);
  });

  it('a document of the older nested form is read as it is', () => {
    const doc = unit('bj_old', false);
    const old: StoredResultDoc = { ...doc };
    expect(resultOfDoc(old)).toEqual(doc);
  });

  it('an unreadable document throws (never an empty or partial unit)', () => {
    const base = packResultDocV1(unit('bj_bad'));
    const bad: Array<Partial<StoredResultDoc>> = [
      { packed: 'not json' },
      { packed: '[[0,{"status":"completed","result":{"attestation":{"token":0}}},["h","p","s"]]]' }, // version 2's entry, unversioned
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

  it('the job store writes version 2, reads every form, and replaces an older document in version 2', async () => {
    const m = memStore();
    const jobs = new BatchJobStore(m.store);
    const doc = unit('bj_store');
    expect(await jobs.storeUnit(doc)).toEqual(doc);
    expect(m.docs.get(doc._id)!.v).toBe(2);
    expect(m.docs.get(doc._id)!.packed).toBeUndefined();
    expect(await jobs.unitResult('bj_store', 0)).toEqual(JSON.parse(JSON.stringify(doc)));
    // An older nested document (written before session 12), not yet audited: read, then replaced packed.
    const old = unit('bj_older', false);
    m.docs.set(old._id, structuredClone(old));
    expect(await jobs.unitResult('bj_older', 0)).toEqual(old);
    const withheld = old.items.map((s) => ({ index: s.index, view: { ...s.view, status: 'failed' as const } }));
    await jobs.replaceUnitItems('bj_older', 0, withheld);
    const raw = m.docs.get(old._id)!;
    expect(raw.items).toBeUndefined();
    expect(raw.v).toBe(2);
    expect(await jobs.unitResult('bj_older', 0)).toEqual(
      JSON.parse(JSON.stringify({ ...old, items: withheld, audited: true })),
    );
    // A packed document (session 12 to 18), replaced: no `packed` left beside the new form.
    const v1 = unit('bj_v1', false);
    m.docs.set(v1._id, wire(packResultDocV1(v1)));
    expect(await jobs.unitResult('bj_v1', 0)).toEqual(JSON.parse(JSON.stringify(v1)));
    await jobs.replaceUnitItems('bj_v1', 0, v1.items);
    expect(Object.keys(m.docs.get(v1._id)!).sort()).toEqual([
      '_id',
      'audited',
      'job_id',
      'org_id',
      'unit',
      'v',
      'zpacked',
    ]);
    expect(await jobs.unitResult('bj_v1', 0)).toEqual(JSON.parse(JSON.stringify({ ...v1, audited: true })));
  });
});

/** A 100-item math unit shaped as the service writes it (session 19's sample: 2 of 3 VERIFIED, each with a signed token). */
function realUnit(jobId: string): BatchResultDoc {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const items = Array.from({ length: 100 }, (_, index) => {
    const verified = index % 3 !== 1;
    const query = verified ? `(q+${index})^2 = q^2 + ${2 * index}*q + ${index * index}` : `2^${index} + 3`;
    const proof = `sha256:${createHash('sha256').update(query).digest('hex')}`;
    const jti = `att_${createHash('md5').update(`${jobId}${index}`).digest('hex')}`;
    const signed = `${b64({ alg: 'ES256', typ: 'svc-attestation+jwt', kid: 'k1' })}.${b64({
      svc: { version: '7.3.0', result: { status: 'VERIFIED', verified: true, engine: 'math', confidence: 1 } },
      proof_hash: proof,
      iss: 'svc-local',
      iat: 1795801498,
      jti,
    })}`;
    const token = `${signed}.${sign('sha256', Buffer.from(signed), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
    const result = verified
      ? {
          status: 'VERIFIED',
          agent_message: 'Identity proven: the difference of the two sides simplifies to 0.',
          developer_fields: { constraint_id: 'math_verifier.identity_proven', is_valid: true, expression: query },
          proof_ref: proof,
          is_authoritative: true,
          attestation: { id: jti, token, status: 'ISSUED' },
        }
      : { status: 'UNVERIFIABLE', agent_message: 'Expression evaluated.', proof_ref: null, is_authoritative: false };
    const view = {
      id: `${jobId}-${index}`,
      query,
      type: 'math' as const,
      status: 'completed' as const,
      latency_ms: index / 7,
      result,
    };
    return { index, view };
  });
  return { _id: resultId(jobId, 0), job_id: jobId, org_id: 'org_a', unit: 0, items, audited: true };
}

describe('batch result document: version 2 (session 19: tokens split, items compressed)', () => {
  it('a 100-item unit reads back as the same JSON, member for member, as the packed form; stored ≥ 4× smaller', () => {
    const doc = realUnit('bj_v2');
    const v2 = wire(packResultDoc(doc));
    const v1 = wire(packResultDocV1(doc));
    expect(Object.keys(v2)).toEqual(['_id', 'job_id', 'org_id', 'unit', 'v', 'zpacked', 'audited']);
    expect(v2.v).toBe(2);
    // The GET's items, as JSON text: byte-identical from either form.
    const asJson = (d: StoredResultDoc) => JSON.stringify(resultOfDoc(d).items.map((s) => s.view));
    expect(asJson(v2)).toBe(JSON.stringify(doc.items.map((s) => s.view)));
    expect(asJson(v2)).toBe(asJson(v1));
    const sizes = { v1: BSON.calculateObjectSize(v1), v2: BSON.calculateObjectSize(v2) };
    expect(sizes.v1).toBeGreaterThan(75_000);
    expect(sizes.v2 * 4, JSON.stringify(sizes)).toBeLessThan(sizes.v1);
  });

  it('a token whose parts do not encode back to it is kept as it is', () => {
    const doc = unit('bj_odd');
    const odd = ['not.a token', 'eyJhIjoxfQ==.eyJiIjoyfQ.c2ln', '_w.eyJiIjoyfQ.c2ln', 'a.b', 'x.y.z.w', ''];
    odd.forEach(
      (token, k) => ((doc.items[2 * k]!.view.result as { attestation: { token: string } }).attestation.token = token),
    );
    const stored = wire(packResultDoc(doc));
    expect(JSON.stringify(resultOfDoc(stored).items)).toBe(JSON.stringify(JSON.parse(JSON.stringify(doc)).items));
  });

  it('an unreadable version-2 document, or an unknown version, throws (never an empty or partial unit)', () => {
    const base = wire(packResultDoc(realUnit('bj_bad2')));
    const z = (json: string) => new Binary(brotliCompressSync(json));
    const bad: Array<Partial<StoredResultDoc>> = [
      { v: 3 },
      { v: 1 },
      { zpacked: undefined },
      { zpacked: 'not binary' as unknown as Binary },
      { zpacked: new Binary(Buffer.from('not brotli')) },
      { zpacked: z('not json') },
      { zpacked: z('{}') },
      { zpacked: z('[[0,{"status":"completed","result":{"attestation":{"token":0}}}]]') }, // the token's parts lost
      { zpacked: z('[[0,{"status":"completed","result":{"attestation":{"token":"t"}}},["h","p","s"]]]') },
      { zpacked: z('[[0,{"status":"completed","result":{"attestation":{"token":0}}},["h","p"]]]') },
      { zpacked: z('[[0,{"status":"completed"},["h","p","s"]]]') },
      { zpacked: z('[[0,{"query":"no status"}]]') },
    ];
    for (const b of bad) {
      const d = { ...base, ...b } as StoredResultDoc;
      expect(() => resultOfDoc(d), JSON.stringify(b)).toThrow(/batch result document bj_bad2#0 is unreadable/);
    }
  });
});
