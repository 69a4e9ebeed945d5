// The insert-once group commit (persistence/insert-coalescer.ts): the first write goes out alone
// and at once, the ones that arrive meanwhile go out together as one unordered insert command, a
// duplicate key counts as stored (no read before the write), and each caller gets its own outcome.
import { describe, expect, it } from 'vitest';
import { MongoServerError } from 'mongodb';
import { InsertCoalescer, insertCommand, type InsertReply } from '../../persistence/insert-coalescer.js';

type Doc = { _id: string; v: number };

function fakeCollection(failIds: Set<string> = new Set(), down = false) {
  const calls: string[][] = [];
  const stored = new Map<string, number>();
  let release: (() => void) | null = null;
  const gate = () => new Promise<void>((r) => (release = r));
  // Like the server's `insert` command: unordered, every document tried; duplicates and failures
  // named by index in the reply (the command itself throws only when the store is down).
  const send = async (docs: Doc[]): Promise<InsertReply> => {
    calls.push(docs.map((d) => d._id));
    await gate();
    if (down) throw new Error('store down');
    const writeErrors: Array<{ index: number; code: number; errmsg: string }> = [];
    docs.forEach((d, index) => {
      if (failIds.has(d._id)) writeErrors.push({ index, code: 2, errmsg: `bad document ${d._id}` });
      else if (stored.has(d._id)) writeErrors.push({ index, code: 11000, errmsg: 'E11000 duplicate key' });
      else stored.set(d._id, d.v);
    });
    return writeErrors.length ? { n: docs.length - writeErrors.length, writeErrors } : { n: docs.length };
  };
  return { send, calls, stored, open: () => release?.() };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('InsertCoalescer', () => {
  it('sends the first write at once and the ones that arrive meanwhile as one insertMany; a duplicate is stored', async () => {
    const f = fakeCollection();
    const c = new InsertCoalescer<Doc>(f.send);
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
    const c = new InsertCoalescer<Doc>(f.send);
    const first = c.insert({ _id: 'x', v: 0 });
    await tick();
    const ok = c.insert({ _id: 'ok', v: 1 });
    const bad = c.insert({ _id: 'bad', v: 2 });
    f.open();
    await first;
    await tick();
    f.open();
    await expect(ok).resolves.toBe(true);
    await expect(bad).rejects.toThrow('bad document bad');

    const down = fakeCollection(new Set(), true);
    const d = new InsertCoalescer<Doc>(down.send);
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
    const c = new InsertCoalescer<Doc>(async () => {
      throw err;
    });
    await expect(c.insert({ _id: 'a', v: 1 })).resolves.toBe(false);
    err = otherErr;
    await expect(c.insert({ _id: 'a', v: 1 })).rejects.toThrow('boom');
  });

  it('a write concern error fails every caller of the batch: the records are not known to be durable', async () => {
    const c = new InsertCoalescer<Doc>(async (docs) => ({
      n: docs.length,
      writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' },
    }));
    await expect(c.insert({ _id: 'a', v: 1 })).rejects.toThrow('waiting for replication timed out');
  });

  it("sends the store's own insert command, unordered, on the collection's name", async () => {
    const sent: unknown[] = [];
    const db = { command: async (cmd: unknown) => (sent.push(cmd), { n: 1, ok: 1 }) };
    const c = new InsertCoalescer<Doc>(insertCommand<Doc>(() => db as never, 'proofs'));
    await expect(c.insert({ _id: 'a', v: 1 })).resolves.toBe(true);
    expect(sent).toEqual([{ insert: 'proofs', documents: [{ _id: 'a', v: 1 }], ordered: false }]);
  });
});
