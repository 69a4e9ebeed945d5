// Session 11 (issue 22, batch CPU per item): a batch chunk's proofs and attestation records go
// out as one insertMany each (InsertCoalescer.insertAll), not the first alone and the rest after
// it; each document still gets its own outcome (a duplicate = already stored; a failure rejects).
import { describe, expect, it } from 'vitest';
import type { Collection } from 'mongodb';
import { InsertCoalescer } from '../../persistence/insert-coalescer.js';

type Doc = { _id: string; v: number };

function fakeCollection(failIds: Set<string> = new Set()) {
  const calls: string[][] = [];
  const stored = new Set<string>();
  const col = {
    async insertMany(docs: Doc[], opts: { ordered: boolean }) {
      expect(opts.ordered).toBe(false);
      calls.push(docs.map((d) => d._id));
      await new Promise((r) => setImmediate(r));
      const writeErrors: Array<{ index: number; code: number }> = [];
      docs.forEach((d, index) => {
        if (failIds.has(d._id)) writeErrors.push({ index, code: 2 });
        else if (stored.has(d._id)) writeErrors.push({ index, code: 11000 });
        else stored.add(d._id);
      });
      if (writeErrors.length) throw Object.assign(new Error('bulk write error'), { writeErrors });
    },
  };
  return { col: col as unknown as Collection<Doc>, calls, stored };
}

describe('InsertCoalescer.insertAll (a batch chunk in one write)', () => {
  it('sends a group as one insertMany and resolves each document (true: written, false: already stored)', async () => {
    const f = fakeCollection();
    const c = new InsertCoalescer<Doc>(() => f.col);
    await c.insert({ _id: 'b', v: 0 });
    const out = await c.insertAll(['a', 'b', 'c'].map((id, v) => ({ _id: id, v })));
    expect(f.calls).toEqual([['b'], ['a', 'b', 'c']]);
    expect(out).toEqual([true, false, true]);
  });

  it('rejects when a document of the group fails (the chunk is retried), the others are stored', async () => {
    const f = fakeCollection(new Set(['x']));
    const c = new InsertCoalescer<Doc>(() => f.col);
    await expect(c.insertAll(['w', 'x', 'y'].map((id, v) => ({ _id: id, v })))).rejects.toThrow('bulk write error');
    expect([...f.stored].sort()).toEqual(['w', 'y']);
  });

  it('an empty group writes nothing', async () => {
    const f = fakeCollection();
    const c = new InsertCoalescer<Doc>(() => f.col);
    expect(await c.insertAll([])).toEqual([]);
    expect(f.calls).toEqual([]);
  });
});
