// Session 24: SVC_PROOF_IN_AUDIT_ENTRY (docs/configuration.md, docs/store-access.md §18). On by
// default; `0`/`false` keeps a math verification's and a batch math item's proof in `proofs`
// (for a rolling deploy while API processes of session 23, which read only `proofs`, still
// answer); anything else is refused at start. With it off, sealProof and finalizeOutcomes retain
// the proof in `proofs` even where the attestation record rides in the entry.
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../core/config.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import { sha256Ref } from '../../core/canonical-json.js';
import type { Store } from '../../core/store.js';
import {
  attestationIdFor,
  finalizeOutcomes,
  PROOF_IN_ENTRY_MAX_BYTES,
  proofRidesInEntry,
  sealProof,
} from '../../activities/proofs.js';
import { canonicalJson } from '../../core/canonical-json.js';

const env = { SVC_WORKFLOW_INPUT_KEY: 'k'.repeat(64), SVC_TEMPORAL_PAYLOAD_ENCRYPTION: 'off' };

/** A store whose `insert` commands are recorded (the reply the server sends). */
function fakeStore() {
  const commands: string[] = [];
  const store = {
    db: {
      command: async (cmd: { insert: string; documents: unknown[] }) => {
        commands.push(`${cmd.insert} ×${cmd.documents.length}`);
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

const artifact = (n: number) => ({ method: 'canonical_form', expression: `(k+${n})^2 = k^2 + ${2 * n}*k + ${n * n}` });

describe('SVC_PROOF_IN_AUDIT_ENTRY', () => {
  it('default (unset), 1 and true: on; 0 and false: off', () => {
    expect(loadConfig(env).SVC_PROOF_IN_AUDIT_ENTRY).toBe(true);
    for (const on of ['1', 'true', 'TRUE'])
      expect(loadConfig({ ...env, SVC_PROOF_IN_AUDIT_ENTRY: on }).SVC_PROOF_IN_AUDIT_ENTRY).toBe(true);
    for (const off of ['0', 'false'])
      expect(loadConfig({ ...env, SVC_PROOF_IN_AUDIT_ENTRY: off }).SVC_PROOF_IN_AUDIT_ENTRY).toBe(false);
  });

  it('anything else: refused at start with the knob’s own message', () => {
    for (const bad of ['yes', 'off', '2', '']) {
      expect(() => loadConfig({ ...env, SVC_PROOF_IN_AUDIT_ENTRY: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ ...env, SVC_PROOF_IN_AUDIT_ENTRY: bad })).toThrow(
        /^invalid configuration: SVC_PROOF_IN_AUDIT_ENTRY: must be 1\/true .* or 0\/false/,
      );
    }
  });

  it('proofRidesInEntry: only where the record rides in the entry, and not with the knob off', () => {
    expect(proofRidesInEntry({}, true)).toBe(true);
    expect(proofRidesInEntry({ proofInAuditEntry: true }, true)).toBe(true);
    expect(proofRidesInEntry({ proofInAuditEntry: false }, true)).toBe(false);
    expect(proofRidesInEntry({}, false)).toBe(false);
    expect(proofRidesInEntry({}, undefined)).toBe(false);
  });

  it('off: sealProof and finalizeOutcomes retain the proofs in `proofs` though the records ride in entries', async () => {
    const s = await signer();
    const one = fakeStore();
    const sealed = await sealProof({ store: one.store, signer: s, proofInAuditEntry: false }, artifact(1), {
      engine: 'math',
      orgId: 'org_k',
      evaluatedExpression: 'e',
      attestationId: attestationIdFor('org_k', 'verify-math-k1'),
      recordInAuditEntry: true,
    });
    expect(sealed).toMatchObject({ ok: true, proofRef: sha256Ref(artifact(1)) });
    expect(one.commands).toEqual(['proofs ×1']);
    const unit = fakeStore();
    await finalizeOutcomes(
      { store: unit.store, signer: s, proofInAuditEntry: false },
      [2, 3].map((n, i) => ({
        outcome: { kind: 'proven' as const, agentMessage: 'p', developerFields: {}, proof: artifact(n) },
        opts: {
          engine: 'math',
          orgId: 'org_k',
          evaluatedExpression: `e${i}`,
          attestationId: attestationIdFor('org_k', `b#item-${i}`),
        },
      })),
      { recordInAuditEntry: true },
    );
    expect(unit.commands).toEqual(['proofs ×2']);
  });
});

// Review A2 (docs/store-access.md §18 "What the audit reads pay"): every audit page reads whole
// entries, so an artifact larger than PROOF_IN_ENTRY_MAX_BYTES stays in `proofs` as before.
describe('a large artifact stays in `proofs` (PROOF_IN_ENTRY_MAX_BYTES)', () => {
  /** An artifact whose canonical JSON is exactly `bytes` long. */
  const sized = (bytes: number) => {
    const a = { method: 'canonical_form', expression: '' };
    a.expression = 'x'.repeat(bytes - Buffer.byteLength(canonicalJson(a)));
    expect(Buffer.byteLength(canonicalJson(a))).toBe(bytes);
    return a;
  };

  it('proofRidesInEntry: up to the size in the entry, above it not', () => {
    expect(PROOF_IN_ENTRY_MAX_BYTES).toBe(1024);
    expect(proofRidesInEntry({}, true, sized(PROOF_IN_ENTRY_MAX_BYTES))).toBe(true);
    expect(proofRidesInEntry({}, true, sized(PROOF_IN_ENTRY_MAX_BYTES + 1))).toBe(false);
    expect(proofRidesInEntry({ proofInAuditEntry: false }, true, sized(100))).toBe(false);
    expect(proofRidesInEntry({}, false, sized(100))).toBe(false);
  });

  it('sealProof and finalizeOutcomes (knob on, records in entries): only the large artifacts are inserted into `proofs`', async () => {
    const s = await signer();
    const small = fakeStore();
    const opts = (id: string) => ({
      engine: 'math',
      orgId: 'org_k',
      evaluatedExpression: 'e',
      attestationId: attestationIdFor('org_k', id),
      recordInAuditEntry: true,
    });
    await sealProof({ store: small.store, signer: s }, sized(600), opts('verify-math-s1'));
    expect(small.commands).toEqual([]);
    const large = fakeStore();
    const big = sized(PROOF_IN_ENTRY_MAX_BYTES + 1);
    expect(await sealProof({ store: large.store, signer: s }, big, opts('verify-math-s2'))).toMatchObject({
      ok: true,
      proofRef: sha256Ref(big),
    });
    expect(large.commands).toEqual(['proofs ×1']); // without the size rule: []
    const unit = fakeStore();
    await finalizeOutcomes(
      { store: unit.store, signer: s },
      [sized(600), sized(4000), sized(PROOF_IN_ENTRY_MAX_BYTES)].map((proof, i) => ({
        outcome: { kind: 'proven' as const, agentMessage: 'p', developerFields: {}, proof },
        opts: {
          engine: 'math',
          orgId: 'org_k',
          evaluatedExpression: `e${i}`,
          attestationId: attestationIdFor('org_k', `b2#item-${i}`),
        },
      })),
      { recordInAuditEntry: true },
    );
    expect(unit.commands).toEqual(['proofs ×1']); // without the size rule: []
  });
});
