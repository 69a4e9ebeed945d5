// Proofs this process saw acknowledged are not inserted again (persistence/proofs.ts,
// retainedRefs; issue 22, CPU per /verify/math): a proof is content-addressed and never deleted,
// so the same claim verified again sends no store command for its proof. A failed insert is not
// remembered (the next verification sends it again, and its verdict waits for it).
import { describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { insertProof, insertProofs } from '../../persistence/proofs.js';

function fakeStore(fail = () => false): { store: Store; sent: string[][] } {
  const sent: string[][] = [];
  const db = {
    command: async (cmd: { insert: string; documents: Array<{ _id: string }> }) => {
      if (fail()) throw new Error('store down (injected)');
      sent.push(cmd.documents.map((d) => d._id));
      return { n: cmd.documents.length };
    },
  };
  return { store: { db } as unknown as Store, sent };
}

const record = { artifact: { kind: 'identity' }, engine: 'math', org_id: 'org_a', created_at: new Date() };

describe('proof inserts: a ref acknowledged once is not sent again', () => {
  it('the same proof twice: one insert command; another proof: its own', async () => {
    const { store, sent } = fakeStore();
    await insertProof(store, 'sha256:aa', record);
    await insertProof(store, 'sha256:aa', record);
    await insertProof(store, 'sha256:bb', record);
    expect(sent).toEqual([['sha256:aa'], ['sha256:bb']]);
  });

  it('a batch sends only the refs not yet acknowledged, and none when all are', async () => {
    const { store, sent } = fakeStore();
    await insertProof(store, 'sha256:aa', record);
    const batch = ['sha256:aa', 'sha256:cc', 'sha256:dd'].map((proofRef) => ({ proofRef, record }));
    await insertProofs(store, batch);
    await insertProofs(store, batch);
    expect(sent).toEqual([['sha256:aa'], ['sha256:cc', 'sha256:dd']]);
  });

  it('a failed insert is not remembered: the next one is sent (and a verdict waits for it)', async () => {
    let down = true;
    const { store, sent } = fakeStore(() => down);
    await expect(insertProof(store, 'sha256:ee', record)).rejects.toThrow('store down');
    down = false;
    await insertProof(store, 'sha256:ee', record);
    expect(sent).toEqual([['sha256:ee']]);
  });

  it('each store keeps its own refs', async () => {
    const a = fakeStore();
    const b = fakeStore();
    await insertProof(a.store, 'sha256:ff', record);
    await insertProof(b.store, 'sha256:ff', record);
    expect([a.sent, b.sent]).toEqual([[['sha256:ff']], [['sha256:ff']]]);
  });
});
