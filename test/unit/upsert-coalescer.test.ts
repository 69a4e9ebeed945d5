// The insert-once group commit (core/upsert-coalescer.ts): the first write goes out alone and
// at once, the ones that arrive meanwhile go out together, and each caller gets its own outcome.
import { describe, expect, it } from 'vitest';
import type { Collection } from 'mongodb';
import { UpsertCoalescer } from '../../core/upsert-coalescer.js';

type Doc = { _id: string; v: number };

function fakeCollection(failIds: Set<string> = new Set(), down = false) {
  const calls: Array<{ kind: 'one' | 'bulk'; ids: string[] }> = [];
  const stored = new Map<string, number>();
  let release: (() => void) | null = null;
  const gate = () => new Promise<void>((r) => (release = r));
  const col = {
    async updateOne(filter: { _id: string }, update: { $setOnInsert: { v: number } }) {
      calls.push({ kind: 'one', ids: [filter._id] });
      await gate();
      if (down) throw new Error('store down');
      if (!stored.has(filter._id)) stored.set(filter._id, update.$setOnInsert.v);
    },
    async bulkWrite(ops: Array<{ updateOne: { filter: { _id: string }; update: { $setOnInsert: { v: number } } } }>) {
      calls.push({ kind: 'bulk', ids: ops.map((o) => o.updateOne.filter._id) });
      await gate();
      if (down) throw new Error('store down');
      const writeErrors: Array<{ index: number }> = [];
      ops.forEach((o, index) => {
        if (failIds.has(o.updateOne.filter._id)) writeErrors.push({ index });
        else if (!stored.has(o.updateOne.filter._id)) stored.set(o.updateOne.filter._id, o.updateOne.update.$setOnInsert.v);
      });
      if (writeErrors.length) throw Object.assign(new Error('bulk write error'), { writeErrors });
    },
  };
  return { col: col as unknown as Collection<Doc>, calls, stored, open: () => release?.() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('UpsertCoalescer', () => {
  it('sends the first write at once and the ones that arrive meanwhile as one bulk write', async () => {
    const f = fakeCollection();
    const c = new UpsertCoalescer<Doc>(() => f.col);
    const first = c.upsert('a', { v: 1 });
    await tick();
    expect(f.calls).toEqual([{ kind: 'one', ids: ['a'] }]);
    const rest = ['b', 'c', 'b'].map((id, i) => c.upsert(id, { v: i + 2 }));
    await tick();
    expect(f.calls).toHaveLength(1);
    f.open();
    await first;
    await tick();
    expect(f.calls[1]).toEqual({ kind: 'bulk', ids: ['b', 'c', 'b'] });
    f.open();
    await Promise.all(rest);
    // Insert-once: the first value of b stays.
    expect([...f.stored]).toEqual([['a', 1], ['b', 2], ['c', 3]]);
  });

  it('rejects only the callers whose upsert failed, and every caller when the store is down', async () => {
    const f = fakeCollection(new Set(['bad']));
    const c = new UpsertCoalescer<Doc>(() => f.col);
    const first = c.upsert('x', { v: 0 });
    await tick();
    const ok = c.upsert('ok', { v: 1 });
    const bad = c.upsert('bad', { v: 2 });
    f.open();
    await first;
    await tick();
    f.open();
    await expect(ok).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow('bulk write error');

    const down = fakeCollection(new Set(), true);
    const d = new UpsertCoalescer<Doc>(() => down.col);
    const p1 = d.upsert('a', { v: 1 });
    await tick();
    const p2 = d.upsert('b', { v: 2 });
    const p3 = d.upsert('c', { v: 3 });
    down.open();
    await expect(p1).rejects.toThrow('store down');
    await tick();
    down.open();
    await expect(p2).rejects.toThrow('store down');
    await expect(p3).rejects.toThrow('store down');
  });
});
