// The gateway's evaluate activity in-process (store faked): signing, fail-closed without a key,
// size limit, passthrough and the engine pool's busy answer.
import { describe, expect, it } from 'vitest';
import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { jwtVerify } from 'jose';
import { makeA2aActivities, a2aEnginePool } from '../../activities/a2a.js';
import { seal } from '../../core/sealed.js';
import type { A2aWorkflowInput } from '../../core/a2a-workflow.js';

const SECRET = 's'.repeat(64);
const proofs: unknown[] = [];
const store = {
  proofs: { updateOne: async (...a: unknown[]) => void proofs.push(a) },
  collection: () => ({
    updateOne: async () => undefined,
    insertMany: async (docs: unknown[]) => ({ insertedCount: docs.length }),
  }),
  // Proof and attestation records go out as the store's own `insert` command (persistence/insert-coalescer.ts).
  db: { command: async (cmd: { documents: unknown[] }) => ({ n: cmd.documents.length }) },
} as never;
const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ format: 'pem', type: 'pkcs8' })
  .toString();
const FIN = { amount: '10.50', currency: 'USD', balance_before: '100.00', balance_after: '89.50' };

function input(
  payload_type: A2aWorkflowInput['payload_type'],
  payload: Record<string, unknown>,
  extra: Partial<A2aWorkflowInput> = {},
) {
  return {
    audit_trace_id: `a2a_${'1'.repeat(32)}`,
    agent_id: 'agent-a',
    claimed_sender_agent_id: 'mallory',
    receiver_agent_id: 'agent-b',
    payload_type,
    sealed: seal(payload, SECRET, 'a2a-payload'),
    payload_bytes: JSON.stringify(payload).length,
    max_payload_bytes: 1000,
    engine_timeout_ms: 2000,
    workflow_id: 'wf',
    ...extra,
  };
}

describe('a2aEvaluateActivity', () => {
  const signed = makeA2aActivities({
    store,
    proofContext: { store, signer: null as never },
    lookupSecret: SECRET,
    signingKeyPem: pem,
    deploymentId: 'dep-1',
    // No thread pool is reached here: every row ends before an engine runs.
    pools: null as never,
  });
  const unsigned = makeA2aActivities({
    store,
    proofContext: { store, signer: null as never },
    lookupSecret: SECRET,
    signingKeyPem: undefined,
    deploymentId: 'dep-1',
    // No thread pool is reached here: every row ends before an engine runs.
    pools: null as never,
  });

  it('signs a verified verdict with the deployment id and the key agent as sender', async () => {
    const v = await signed.a2aEvaluateActivity(input('financial_transaction', FIN));
    expect(v).toMatchObject({ status: 'verified', engine_used: 'decimal' });
    expect(v.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    const { payload, protectedHeader } = await jwtVerify(v.attestation_jwt as string, createPublicKey(pem), {
      algorithms: ['ES256'],
      audience: 'agent-b',
      issuer: 'dep-1',
    });
    expect(protectedHeader.typ).toBe('svc-a2a-verdict+jwt');
    expect((payload as any).svc_a2a).toMatchObject({
      status: 'verified',
      admissible: true,
      sender_agent_id: 'agent-a',
      claimed_sender_agent_id: 'mallory',
      deployment_id: 'dep-1',
      proof_ref: v.proof_ref,
    });
    expect(v.request_digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
  });

  it('fails closed without the signing key: never verified', async () => {
    const v = await unsigned.a2aEvaluateActivity(input('financial_transaction', FIN));
    expect(v).toMatchObject({ status: 'error', attestation_jwt: null, proof_ref: null });
    expect(v.reason).toMatch(/^attestation_unavailable/);
    expect(
      (await unsigned.a2aEvaluateActivity(input('financial_transaction', { ...FIN, balance_after: '1' }))).status,
    ).toBe('blocked');
  });

  it('blocks oversized payloads and passes general payloads through unsigned', async () => {
    const big = await signed.a2aEvaluateActivity(input('general', { t: 'x' }, { payload_bytes: 5000 }));
    expect(big).toMatchObject({ status: 'blocked', engine_used: 'none' });
    expect(big.reason).toMatch(/^size_limit/);
    const g = await signed.a2aEvaluateActivity(input('data_query', { q: 1 }));
    expect(g).toMatchObject({ status: 'unverifiable', engine_used: 'passthrough', attestation_jwt: null });
  });

  it('answers engine_busy when 4 engines run and 32 wait', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const hold = Array.from({ length: 36 }, () => a2aEnginePool.run(() => gate, 10_000).catch(() => undefined));
    const v = await signed.a2aEvaluateActivity(input('logic_assertion', { query: '(GT x 1)' }));
    expect(v).toMatchObject({ status: 'error', reason: 'engine_busy', engine_used: 'z3' });
    release();
    await Promise.all(hold);
  });

  it('blocks code over 256 KiB before any engine', async () => {
    const v = await signed.a2aEvaluateActivity(
      input('code_execution', { code: 'x'.repeat(256 * 1024 + 1) }, { max_payload_bytes: 900_000 }),
    );
    expect(v).toMatchObject({ status: 'blocked', engine_used: 'code' });
    expect(v.reason).toMatch(/^code_size_limit/);
  });
});
