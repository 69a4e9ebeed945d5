// Session 11 (issue 22, batch CPU per item): a batch chunk's proofs and attestation records go
// out as one unordered insert command each (InsertCoalescer.insertAll), not the first alone and the
// rest after it; each document still gets its own outcome (a duplicate = already stored; a failure
// rejects).
import { describe, expect, it } from 'vitest';
import { InsertCoalescer, type InsertReply } from '../../persistence/insert-coalescer.js';

type Doc = { _id: string; v: number };

function fakeCollection(failIds: Set<string> = new Set()) {
  const calls: string[][] = [];
  const stored = new Set<string>();
  // Like the store's unordered `insert` command: every document tried, failures named by index.
  const send = async (docs: Doc[]): Promise<InsertReply> => {
    calls.push(docs.map((d) => d._id));
    await new Promise((r) => setImmediate(r));
    const writeErrors: Array<{ index: number; code: number; errmsg: string }> = [];
    docs.forEach((d, index) => {
      if (failIds.has(d._id)) writeErrors.push({ index, code: 2, errmsg: `bad document ${d._id}` });
      else if (stored.has(d._id)) writeErrors.push({ index, code: 11000, errmsg: 'E11000 duplicate key' });
      else stored.add(d._id);
    });
    return writeErrors.length ? { n: docs.length - writeErrors.length, writeErrors } : { n: docs.length };
  };
  return { send, calls, stored };
}

describe('InsertCoalescer.insertAll (a batch chunk in one write)', () => {
  it('sends a group as one insert command and resolves each document (true: written, false: already stored)', async () => {
    const f = fakeCollection();
    const c = new InsertCoalescer<Doc>(f.send);
    await c.insert({ _id: 'b', v: 0 });
    const out = await c.insertAll(['a', 'b', 'c'].map((id, v) => ({ _id: id, v })));
    expect(f.calls).toEqual([['b'], ['a', 'b', 'c']]);
    expect(out).toEqual([true, false, true]);
  });

  it('rejects when a document of the group fails (the chunk is retried), the others are stored', async () => {
    const f = fakeCollection(new Set(['x']));
    const c = new InsertCoalescer<Doc>(f.send);
    await expect(c.insertAll(['w', 'x', 'y'].map((id, v) => ({ _id: id, v })))).rejects.toThrow('bad document x');
    expect([...f.stored].sort()).toEqual(['w', 'y']);
  });

  it('an empty group writes nothing', async () => {
    const f = fakeCollection();
    const c = new InsertCoalescer<Doc>(f.send);
    expect(await c.insertAll([])).toEqual([]);
    expect(f.calls).toEqual([]);
  });
});
