// Issue 22's guarantees (e), black box (session 17; moved out of guarantees-s17.serial in session
// 18): no verdict without its audit entry, no VERIFIED without its retained proof. The writes are
// refused by test/http/store-fail.mjs inside an API of its own (with its in-process worker, on a
// task queue of its own, so math runs in it), not by a fault of the shared stack: the file runs
// beside the others. The table of guarantee → test → measured time is in docs/store-access.md.
import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../../core/project-paths.js';
import { attestationIdFor } from '../../activities/proofs.js';
import { sha256Ref } from '../../core/canonical-json.js';
import { attestationEntryId } from '../../persistence/proofs.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { call, sleep } from './batch-fixtures.js';
import { db, get, newTenant, stackEnv, type Member } from './helpers.js';
import { workflowStartMs } from './workflow-start.js';

const INCOMPLETE = 'Verification could not complete — retry shortly.';
const key = (k: string) => ({ 'x-api-key': k });
/** A new identity per call (the API skips the insert of a proof it already saw stored). */
let n = 0;
const identity = () => {
  n++;
  return `(m+${n})^2 = m^2 + ${2 * n}*m + ${n * n}`;
};

describe('(e) no verdict without its audit entry; no VERIFIED without its retained proof', () => {
  // The API with its in-process worker (math runs there), on a queue of its own, its writes into
  // the collections named in `failFile` refused (test/http/store-fail.mjs).
  let failFile = '';
  const failWrites = (collections: string[]) => writeFileSync(failFile, JSON.stringify(collections));
  let api: ExtraApi;
  let t: Member;
  beforeAll(async () => {
    failFile = path.join(inject('dataDir'), `store-fail-${randomUUID()}.json`);
    failWrites([]);
    [api, t] = await Promise.all([
      startExtraApi(
        'api-guarantees-fail',
        {
          SVC_TASK_QUEUE: `svc-guarantees-fail-${randomUUID()}`,
          SVC_ENGINE_POOL_SIZE: '1',
          NODE_OPTIONS: `${stackEnv().NODE_OPTIONS ?? ''} --import ${path.join(PROJECT_ROOT, 'test', 'http', 'store-fail.mjs')}`,
          SVC_TEST_STORE_FAIL_FILE: failFile,
        },
        true,
        'api-process',
      ),
      newTenant('enterprise'),
    ]);
    for (let i = 0; i < 240 && !api.proc.logContains('eager start on'); i++) await sleep(500);
    expect(api.proc.logContains('eager start on')).toBe(true);
  }, 240_000);
  afterAll(async () => {
    await api?.proc.stop();
    rmSync(failFile, { force: true });
  });

  /** What the store and the API hold for a run's verdict: its audit entry, and its attestation. */
  async function traces(workflowId: string) {
    // Session 23: the run's ids start with its start time (Temporal's history has it).
    const attestationId = attestationIdFor(t.orgId, workflowId, await workflowStartMs(workflowId));
    const entry = await (
      await db()
    )
      .collection<{ _id: string }>('audit_logs')
      .findOne({ _id: attestationEntryId(attestationId) as string });
    const attestation = await get(`/attestation/${attestationId}`, key(t.key));
    return { entry, attestation: attestation.status };
  }

  it('audit entries refused: a proven identity answers 503, with no entry and no attestation', async () => {
    const ok = await call(api.url, 'POST', '/verify/math', t.key, { expression: identity() });
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('VERIFIED');
    expect((await traces(ok.headers.get('x-workflow-id') as string)).attestation).toBe(200);
    failWrites(['audit_logs']);
    let res;
    try {
      res = await call(api.url, 'POST', '/verify/math', t.key, { expression: identity() });
    } finally {
      failWrites([]);
    }
    expect(api.proc.logContains('store-fail: audit_logs refused')).toBe(true);
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: INCOMPLETE, code: 'service_unavailable', request_id: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('VERIFIED');
    expect(await traces(res.headers.get('x-workflow-id') as string)).toEqual({ entry: null, attestation: 404 });
  }, 120_000);

  it('proofs refused: a proven identity is still VERIFIED, its proof retained by its audit entry (session 24); a claim that needs no proof is answered', async () => {
    // Session 24 (docs/store-access.md §18): a math verification's proof rides in its entry beside
    // the attestation record, so `proofs` is not written at all; "no VERIFIED without its retained
    // proof" is then the row above (entries refused: 503, no entry, no attestation).
    failWrites(['proofs']);
    let proven, bare;
    try {
      proven = await call(api.url, 'POST', '/verify/math', t.key, { expression: identity() });
      bare = await call(api.url, 'POST', '/verify/math', t.key, { expression: '2 + 3' });
    } finally {
      failWrites([]);
    }
    expect(api.proc.logContains('store-fail: proofs refused')).toBe(false);
    expect(proven.status).toBe(200);
    expect(proven.body).toMatchObject({ status: 'VERIFIED', is_authoritative: true });
    const provenTraces = await traces(proven.headers.get('x-workflow-id') as string);
    expect(provenTraces.attestation).toBe(200);
    const entry = provenTraces.entry as unknown as { result: { proof_ref: string }; attestation: { artifact: object } };
    expect(entry.result.proof_ref).toBe(proven.body.proof_ref);
    expect(sha256Ref(entry.attestation.artifact)).toBe(proven.body.proof_ref);
    // Evaluation alone is never VERIFIED and needs no proof: answered and audited.
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({ status: 'UNVERIFIABLE', proof_ref: null });
    const bareEntry = await traces(bare.headers.get('x-workflow-id') as string);
    expect(bareEntry.entry).toMatchObject({ verified: false, result: { status: 'UNVERIFIABLE' } });
  }, 120_000);
});
