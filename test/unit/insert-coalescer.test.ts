// The insert-once group commit (persistence/insert-coalescer.ts): the first write goes out alone
// and at once, the ones that arrive meanwhile go out together as one unordered insertMany, a
// duplicate key counts as stored (no read before the write), and each caller gets its own outcome.
import { describe, expect, it } from 'vitest';
import { MongoServerError, type Collection } from 'mongodb';
import { InsertCoalescer } from '../../persistence/insert-coalescer.js';

type Doc = { _id: string; v: number };

function fakeCollection(failIds: Set<string> = new Set(), down = false) {
  const calls: string[][] = [];
  const stored = new Map<string, number>();
  let release: (() => void) | null = null;
  const gate = () => new Promise<void>((r) => (release = r));
  const col = {
    // Like the server: unordered, every document tried; duplicates and failures named by index.
    async insertMany(docs: Doc[], opts: { ordered: boolean }) {
      expect(opts.ordered).toBe(false);
      calls.push(docs.map((d) => d._id));
      await gate();
      if (down) throw new Error('store down');
      const writeErrors: Array<{ index: number; code: number }> = [];
      docs.forEach((d, index) => {
        if (failIds.has(d._id)) writeErrors.push({ index, code: 2 });
        else if (stored.has(d._id)) writeErrors.push({ index, code: 11000 });
        else stored.set(d._id, d.v);
      });
      if (writeErrors.length) throw Object.assign(new Error('bulk write error'), { writeErrors });
    },
  };
  return { col: col as unknown as Collection<Doc>, calls, stored, open: () => release?.() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('InsertCoalescer', () => {
  it('sends the first write at once and the ones that arrive meanwhile as one insertMany; a duplicate is stored', async () => {
    const f = fakeCollection();
    const c = new InsertCoalescer<Doc>(() => f.col);
    const first = c.insert({ _id: 'a', v: 1 });
    await tick();
    expect(f.calls).toEqual([['a']]);
    const rest = ['b', 'c', 'b', 'a'].map((id, i) => c.insert({ _id: id, v: i + 2 }));
    await tick();
    expect(f.calls).toHaveLength(1);
    f.open();
    await first;
    await tick();
    expect(f.calls[1]).toEqual(['b', 'c', 'b', 'a']);
    f.open();
    // The second b and the second a hit duplicate keys: already stored, so they resolve too, saying
    // that the record existed (false) where the others wrote it (true).
    await expect(Promise.all(rest)).resolves.toEqual([true, true, false, false]);
    // Insert-once: the first value of each id stays.
    expect([...f.stored]).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  it('rejects only the callers whose insert failed, and every caller when the store is down', async () => {
    const f = fakeCollection(new Set(['bad']));
    const c = new InsertCoalescer<Doc>(() => f.col);
    const first = c.insert({ _id: 'x', v: 0 });
    await tick();
    const ok = c.insert({ _id: 'ok', v: 1 });
    const bad = c.insert({ _id: 'bad', v: 2 });
    f.open();
    await first;
    await tick();
    f.open();
    await expect(ok).resolves.toBe(true);
    await expect(bad).rejects.toThrow('bulk write error');

    const down = fakeCollection(new Set(), true);
    const d = new InsertCoalescer<Doc>(() => down.col);
    const p1 = d.insert({ _id: 'a', v: 1 });
    await tick();
    const p2 = d.insert({ _id: 'b', v: 2 });
    const p3 = d.insert({ _id: 'c', v: 3 });
    down.open();
    await expect(p1).rejects.toThrow('store down');
    await tick();
    down.open();
    await expect(p2).rejects.toThrow('store down');
    await expect(p3).rejects.toThrow('store down');
  });

  it('a lone duplicate reported as a plain server error is stored; another server error is not', async () => {
    const dupErr = new MongoServerError({ message: 'E11000 duplicate key', code: 11000 } as never);
    const otherErr = new MongoServerError({ message: 'boom', code: 1 } as never);
    let err: Error = dupErr;
    const col = {
      insertMany: async () => {
        throw err;
      },
    } as unknown as Collection<Doc>;
    const c = new InsertCoalescer<Doc>(() => col);
    await expect(c.insert({ _id: 'a', v: 1 })).resolves.toBe(false);
    err = otherErr;
    await expect(c.insert({ _id: 'a', v: 1 })).rejects.toThrow('boom');
  });
});
