// Session 24: SVC_PROOF_IN_AUDIT_ENTRY=0 (docs/configuration.md, docs/store-access.md §18,
// "Rolling deploys"). An API process of its own with the knob off, on a task queue of its own so
// that its in-process worker runs the math (eager) and a one-step batch job: their proofs go to
// `proofs` under proof_ref as session 23 wrote them (what a session 23 API process reads), their
// entries carry the attestation record without an artifact, and from-diagnostic still issues.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Ref } from '../../core/canonical-json.js';
import type { AuditLogDoc } from '../../core/audit-log.js';
import { attestationEntryId } from '../../persistence/proofs.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { call, waitCompleted } from './batch-fixtures.js';
import { db, newTenant, type Member } from './helpers.js';

let api: ExtraApi;
let t: Member;
beforeAll(async () => {
  [api, t] = await Promise.all([
    startExtraApi(
      'api-proof-knob-s24',
      { SVC_TASK_QUEUE: 'svc-proof-knob-s24', SVC_ENGINE_POOL_SIZE: '1', SVC_PROOF_IN_AUDIT_ENTRY: '0' },
      true,
      'api-process',
    ),
    newTenant('enterprise'),
  ]);
  // /health answers before the in-process worker polls its queue.
  for (let i = 0; i < 600 && !api.proc.logContains('in-process worker running'); i++)
    await new Promise((r) => setTimeout(r, 200));
}, 240_000);
afterAll(async () => {
  await api?.proc.stop();
});

/** The proof as the store holds it: `proofs` by `_id`, and the entry that carries the attestation. */
async function whereRetained(proofRef: string, attestationId: string) {
  const d = await db();
  const inProofs = await d
    .collection<{ _id: string; artifact: Record<string, unknown> }>('proofs')
    .findOne({ _id: proofRef });
  const entry = await d
    .collection<AuditLogDoc>('audit_logs')
    .findOne({ _id: attestationEntryId(attestationId) as string });
  return { inProofs, entry };
}

describe('SVC_PROOF_IN_AUDIT_ENTRY=0: proofs stay in `proofs` (a rolling deploy from session 23)', () => {
  it('/verify/math: the proof in `proofs`, the entry carries the record only; from-diagnostic issues', async () => {
    const expression = '(f+11)^2 = f^2 + 22*f + 121';
    const res = await call(api.url, 'POST', '/verify/math', t.key, { expression });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'VERIFIED', is_authoritative: true });
    const { inProofs, entry } = await whereRetained(res.body.proof_ref, res.body.attestation.id);
    expect(inProofs).not.toBeNull();
    expect(sha256Ref(inProofs!.artifact)).toBe(res.body.proof_ref);
    expect(entry?.attestation?.token).toBe(res.body.attestation.token);
    expect(entry?.attestation).not.toHaveProperty('artifact');
    const doc = await call(api.url, 'POST', '/verification-context/from-diagnostic', t.key, {
      query: expression,
      verifier: 'math',
      diagnostic: {
        status: 'VERIFIED',
        agent_message: 'Identity proven.',
        developer_fields: { evaluated_expression: expression, is_valid: true },
        proof_ref: res.body.proof_ref,
        is_authoritative: true,
      },
      attestation_token: res.body.attestation.token,
    });
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-issued-here')).toBe('true');
  }, 60_000);

  it('a one-step batch job (run by this process): each VERIFIED item’s proof in `proofs`, its entry without an artifact', async () => {
    const items = [
      { query: '(e+12)^2 = e^2 + 24*e + 144', type: 'math' },
      { query: '(e+12)^2 = e^2 + 144', type: 'math' },
    ];
    const res = await call(api.url, 'POST', '/verify/batch', t.key, { items });
    expect([200, 202]).toContain(res.status);
    const job = res.status === 200 ? res.body : await waitCompleted(api.url, t.key, res.body.job_id);
    expect(job).toMatchObject({ status: 'completed', completed_items: 2, failed_items: 0 });
    const first = job.items[0].result as { status: string; proof_ref: string; attestation: { id: string } };
    expect(first.status).toBe('VERIFIED');
    expect(job.items[1].result.status).toBe('UNVERIFIABLE');
    const { inProofs, entry } = await whereRetained(first.proof_ref, first.attestation.id);
    expect(inProofs).not.toBeNull();
    expect(sha256Ref(inProofs!.artifact)).toBe(first.proof_ref);
    expect(entry?.attestation).toBeDefined();
    expect(entry?.attestation).not.toHaveProperty('artifact');
  }, 120_000);
});
