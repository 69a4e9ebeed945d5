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
import type { ManagedProcess } from '../../infra/stack.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { extraWorker } from './extra-worker.js';
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
  // Review A5: a standalone worker on the API's queue with the same refusals, for the engines
  // whose activities are not the API's own (SQL here: it still retains its proof in `proofs`).
  let worker: ManagedProcess | undefined;
  let t: Member;
  beforeAll(async () => {
    failFile = path.join(inject('dataDir'), `store-fail-${randomUUID()}.json`);
    failWrites([]);
    const env = {
      SVC_TASK_QUEUE: `svc-guarantees-fail-${randomUUID()}`,
      SVC_ENGINE_POOL_SIZE: '1',
      NODE_OPTIONS: `${stackEnv().NODE_OPTIONS ?? ''} --import ${path.join(PROJECT_ROOT, 'test', 'http', 'store-fail.mjs')}`,
      SVC_TEST_STORE_FAIL_FILE: failFile,
    };
    worker = extraWorker('worker-guarantees-fail', env, 240_000);
    [api, t] = await Promise.all([
      startExtraApi('api-guarantees-fail', env, true, 'api-process'),
      newTenant('enterprise'),
      worker.start(),
    ]);
    for (let i = 0; i < 240 && !api.proc.logContains('eager start on'); i++) await sleep(500);
    expect(api.proc.logContains('eager start on')).toBe(true);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([api?.proc.stop(), worker?.stop()]);
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

  it('proofs refused: an engine that still retains its proof in `proofs` (SQL) answers 503, with no entry and no attestation (review A5)', async () => {
    const sql = (n: number) => ({
      query: `SELECT id AS c${n} FROM t`,
      schema_ddl: 'CREATE TABLE t (id INT);',
      dialect: 'sqlite',
    });
    const s = await db();
    const sqlTraces = async () => ({
      entries: await s.collection('audit_logs').countDocuments({ organization_id: t.orgId, domain: 'sql' }),
      attestations: await s.collection('attestations').countDocuments({ org_id: t.orgId, engine: 'sql' }),
    });
    // Control: the same kind of claim, writes allowed, is VERIFIED with its proof in `proofs`.
    const ok = await call(api.url, 'POST', '/verify/sql', t.key, sql(1));
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'VERIFIED', proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/) });
    expect(await s.collection<{ _id: string }>('proofs').countDocuments({ _id: ok.body.proof_ref })).toBe(1);
    const before = await sqlTraces();
    expect(before).toEqual({ entries: 1, attestations: 1 });
    failWrites(['proofs']);
    let res;
    try {
      res = await call(api.url, 'POST', '/verify/sql', t.key, sql(2));
    } finally {
      failWrites([]);
    }
    expect(worker?.logContains('store-fail: proofs refused')).toBe(true); // SQL runs in the worker
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: INCOMPLETE, code: 'service_unavailable', request_id: expect.any(String) });
    expect(JSON.stringify(res.body)).not.toContain('VERIFIED');
    expect(await sqlTraces()).toEqual(before);
  }, 120_000);

  it('proofs refused: a math proof over PROOF_IN_ENTRY_MAX_BYTES (kept in `proofs`, review A2) answers 503, with no entry and no attestation', async () => {
    // 32 squared binomials: the artifact's canonical JSON is ~1.2 KB (> 1,024 bytes).
    const long = (k: number) => {
      const terms = Array.from({ length: 32 }, (_, i) => 100 * k + i + 7);
      const sum = terms.reduce((a, c) => a + c, 0);
      const squares = terms.reduce((a, c) => a + c * c, 0);
      return `${terms.map((c) => `(w+${c})^2`).join(' + ')} = 32*w^2 + ${2 * sum}*w + ${squares}`;
    };
    const ok = await call(api.url, 'POST', '/verify/math', t.key, { expression: long(1) });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ status: 'VERIFIED' });
    const okTraces = await traces(ok.headers.get('x-workflow-id') as string);
    expect(okTraces.attestation).toBe(200);
    expect((okTraces.entry as { attestation?: { artifact?: unknown } } | null)?.attestation?.artifact).toBeUndefined();
    expect(await (await db()).collection<{ _id: string }>('proofs').countDocuments({ _id: ok.body.proof_ref })).toBe(1);
    failWrites(['proofs']);
    let res;
    try {
      res = await call(api.url, 'POST', '/verify/math', t.key, { expression: long(2) });
    } finally {
      failWrites([]);
    }
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ detail: INCOMPLETE, code: 'service_unavailable', request_id: expect.any(String) });
    expect(await traces(res.headers.get('x-workflow-id') as string)).toEqual({ entry: null, attestation: 404 });
  }, 120_000);
});
