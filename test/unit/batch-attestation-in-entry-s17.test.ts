// Session 17 (issue 22, one write fewer per batch chunk): finalizeOutcomes with
// `recordInAuditEntry` retains every proof first and signs every attestation, but sends no
// `attestations` insert (the batch unit stores the records in its items' audit entries); without
// it, the records go out as before. The entry id of a batch item with the flag is derived from the
// item's attestation id; without it, it is the old per-item id. Store commands counted on a fake
// store that answers like the real `insert` command.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import type { Store } from '../../core/store.js';
import type { EngineOutcome } from '../../core/diagnostic.js';
import { attestationIdFor, finalizeOutcomes } from '../../activities/proofs.js';
import { batchItemAuditLogId, batchItemEntryId } from '../../activities/verify-batch.js';
import { attestationEntryId } from '../../persistence/proofs.js';

type Command = { insert: string; documents: Array<{ _id: string }> };

/** A store whose `insert` commands are recorded (each document written; the reply the server sends). */
function fakeStore() {
  const commands: Command[] = [];
  const store = {
    db: {
      command: async (cmd: Command) => {
        commands.push(cmd);
        await new Promise((r) => setImmediate(r));
        return { n: cmd.documents.length, ok: 1 };
      },
    },
  } as unknown as Store;
  return { store, commands };
}

async function signer() {
  const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString();
  return new AttestationSigner(await loadSigningKey(pem), 'svc-test');
}

const proven = (n: number): EngineOutcome => ({
  kind: 'proven',
  agentMessage: 'proven',
  developerFields: {},
  proof: { kind: 'identity', expression: `(x+${n})^2 = x^2 + ${2 * n}*x + ${n * n}`, n },
});
const unverifiable: EngineOutcome = { kind: 'unverifiable', agentMessage: 'bare', developerFields: {} };

const items = (tag: string) =>
  [proven(1), unverifiable, proven(2)].map((outcome, i) => ({
    outcome,
    opts: {
      engine: 'math',
      orgId: 'org_s17',
      evaluatedExpression: `item ${i}`,
      attestationId: attestationIdFor('org_s17', `batch-${tag}#item-${i}`),
    },
  }));

describe('finalizeOutcomes with recordInAuditEntry (session 17)', () => {
  it('signs the attestations, sends no `attestations` insert (nor, since session 24, a `proofs` one)', async () => {
    const { store, commands } = fakeStore();
    const tag = `a${Date.now()}`;
    const out = await finalizeOutcomes({ store, signer: await signer() }, items(tag), { recordInAuditEntry: true });
    // Session 24: the proofs ride in the items' entries with the records (test/unit/proof-in-entry-s24.test.ts).
    expect(commands.map((c) => [c.insert, c.documents.length])).toEqual([]);
    expect(out.map((f) => f.diagnostic.status)).toEqual(['VERIFIED', 'UNVERIFIABLE', 'VERIFIED']);
    for (const i of [0, 2]) {
      const f = out[i]!;
      expect(f.attestation!.jti).toBe(attestationIdFor('org_s17', `batch-${tag}#item-${i}`));
      expect(f.attestation!.claims.svc.proof_hash).toBe(f.diagnostic.proof_ref);
      expect(f.attestation!.token.split('.')).toHaveLength(3);
    }
    expect(out[1]!.attestation).toBeNull();
  });

  it('without it: the proofs, then the attestation records in one insert (as before)', async () => {
    const { store, commands } = fakeStore();
    const tag = `b${Date.now()}`;
    const out = await finalizeOutcomes({ store, signer: await signer() }, items(tag));
    expect(commands.map((c) => [c.insert, c.documents.map((d) => d._id)])).toEqual([
      ['proofs', [out[0]!.diagnostic.proof_ref, out[2]!.diagnostic.proof_ref]],
      [
        'attestations',
        [attestationIdFor('org_s17', `batch-${tag}#item-0`), attestationIdFor('org_s17', `batch-${tag}#item-2`)],
      ],
    ]);
  });
});

describe('batchItemEntryId', () => {
  it('with the flag: log_ with the item attestation id’s hex; without: the old per-item id', () => {
    const wf = 'batch-org_s17-bj_1';
    for (const i of [0, 7, 99]) {
      const att = attestationIdFor('org_s17', `${wf}#item-${i}`);
      expect(batchItemEntryId('org_s17', wf, i, true)).toBe(attestationEntryId(att));
      expect(batchItemEntryId('org_s17', wf, i, true)).toBe(`log_${att.slice(4)}`);
      expect(batchItemEntryId('org_s17', wf, i, false)).toBe(batchItemAuditLogId('org_s17', wf, i));
      expect(batchItemEntryId('org_s17', wf, i, true)).not.toBe(batchItemAuditLogId('org_s17', wf, i));
    }
  });
});
