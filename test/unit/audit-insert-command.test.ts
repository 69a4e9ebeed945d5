// The audit chain's inserts as the store's own `insert` command (persistence/audit.ts,
// insertReportingDuplicates; issue 22, session 12): the indexes that hit a duplicate key come
// back (an ordered insert stops at the first, so the entries before it are the ones written), a
// single document's duplicate reported as the command's own error counts as one, and any other
// write error or a write concern error throws (the group's appends fail and their activities retry).
import { describe, expect, it } from 'vitest';
import { MongoServerError } from 'mongodb';
import type { Store } from '../../core/store.js';
import { insertReportingDuplicates } from '../../persistence/audit.js';

type Cmd = { insert: string; documents: Array<{ _id: string }>; ordered: boolean };

/** A store whose `insert` command answers like the server: duplicates of `stored` by index, ordered stops at the first failure. */
function fakeStore(
  stored: Set<string>,
  opts: { failIds?: Set<string>; writeConcernError?: boolean; throwDup?: boolean } = {},
) {
  const commands: Cmd[] = [];
  const store = {
    db: {
      command: async (cmd: Cmd) => {
        commands.push(cmd);
        const writeErrors: Array<{ index: number; code: number; errmsg: string }> = [];
        for (const [index, d] of cmd.documents.entries()) {
          const code = opts.failIds?.has(d._id) ? 2 : stored.has(d._id) ? 11000 : 0;
          if (code === 11000 && opts.throwDup && cmd.documents.length === 1)
            throw new MongoServerError({ message: 'E11000 duplicate key', code: 11000 });
          if (code) {
            writeErrors.push({ index, code, errmsg: code === 11000 ? 'E11000 duplicate key' : 'bad document' });
            if (cmd.ordered) break;
          } else stored.add(d._id);
        }
        return {
          n: cmd.documents.length - writeErrors.length,
          ...(writeErrors.length ? { writeErrors } : {}),
          ...(opts.writeConcernError
            ? { writeConcernError: { code: 64, errmsg: 'waiting for replication timed out' } }
            : {}),
        };
      },
    },
  };
  return { store: store as unknown as Store, commands };
}

const docs = (...ids: string[]) => ids.map((_id) => ({ _id }));

describe('insertReportingDuplicates (the audit chain as insert commands)', () => {
  it('sends one insert command with the order asked for; no duplicate: nothing reported', async () => {
    const f = fakeStore(new Set());
    expect(await insertReportingDuplicates(f.store, 'audit_logs', docs('a', 'b'), true)).toEqual([]);
    expect(f.commands).toEqual([{ insert: 'audit_logs', documents: docs('a', 'b'), ordered: true }]);
  });

  it('ordered: the first duplicate is reported and the entries after it are not written', async () => {
    const stored = new Set(['b']);
    const f = fakeStore(stored);
    expect(await insertReportingDuplicates(f.store, 'audit_logs', docs('a', 'b', 'c'), true)).toEqual([1]);
    expect([...stored].sort()).toEqual(['a', 'b']);
  });

  it('ordered, more than 100 documents (session 16: FerretDB 1.x keeps the order only within 100): 100 at a time, the rest not sent after a failure', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => `e${i}`);
    const clean = fakeStore(new Set());
    expect(await insertReportingDuplicates(clean.store, 'audit_logs', docs(...ids), true)).toEqual([]);
    expect(clean.commands.map((c) => [c.documents.length, c.ordered])).toEqual([
      [100, true],
      [1, true],
    ]);
    const stored = new Set(['e0']);
    const lost = fakeStore(stored);
    expect(await insertReportingDuplicates(lost.store, 'audit_logs', docs(...ids), true)).toEqual([0]);
    expect(lost.commands).toHaveLength(1); // the 101st never sent
    expect([...stored]).toEqual(['e0']);
    const late = fakeStore(new Set(['e100']));
    expect(await insertReportingDuplicates(late.store, 'audit_logs', docs(...ids), true)).toEqual([100]);
  });

  it('unordered: every duplicate is reported and the others are written', async () => {
    const stored = new Set(['a', 'c']);
    const f = fakeStore(stored);
    expect(await insertReportingDuplicates(f.store, 'audit_seq', docs('a', 'b', 'c', 'd'), false)).toEqual([0, 2]);
    expect([...stored].sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it("one document's duplicate reported as the command's own error counts as a duplicate", async () => {
    const f = fakeStore(new Set(['m']), { throwDup: true });
    expect(await insertReportingDuplicates(f.store, 'audit_head_moves', docs('m'), true)).toEqual([0]);
  });

  it('another write error throws, also beside duplicates', async () => {
    const f = fakeStore(new Set(['a']), { failIds: new Set(['b']) });
    await expect(insertReportingDuplicates(f.store, 'audit_seq', docs('a', 'b'), false)).rejects.toMatchObject({
      code: 2,
    });
  });

  it('a write concern error throws (the documents are not known durable)', async () => {
    const f = fakeStore(new Set(), { writeConcernError: true });
    await expect(insertReportingDuplicates(f.store, 'audit_logs', docs('a'), true)).rejects.toMatchObject({ code: 64 });
  });

  it('a failed command throws as it is', async () => {
    const store = { db: { command: async () => Promise.reject(new Error('store down')) } } as unknown as Store;
    await expect(insertReportingDuplicates(store, 'audit_logs', docs('a', 'b'), true)).rejects.toThrow('store down');
  });
});
