// The store commands of the audit / proofs / attestations / reports family (issue 22): an API
// process with its in-process worker (eager math) runs with the command-capture preload
// (test/store-commands/), serves verifications and every audit, metrics, report and attestation
// read of one tenant, and the capture must show no scan, count, sort or aggregate of
// `audit_logs`, `audit_seq`, `proofs` or `attestations`, and no upsert (read-then-insert) of a
// proof or attestation record: only point lookups by `_id` and inserts.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { newTenant, type Member } from './helpers.js';
import { captureEnv } from '../store-commands/env.js';
import { classify, label, readCapture, violations, type Classified } from '../store-commands/classify.js';

const FAMILY = new Set([
  'audit_logs',
  'audit_seq',
  'audit_heads',
  'audit_head_moves',
  // Each group commit's claim (insert-once by `_id` org#seq; read and deleted by `_id` only).
  'audit_claims',
  'proofs',
  'attestations',
]);

describe('audit, proof, attestation and report paths send only key lookups and inserts', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'svc-audit-capture-'));
  let api: ExtraApi;
  let t: Member;
  beforeAll(async () => {
    // A task queue of its own: the eager math runs in this API's in-process worker, under the capture.
    api = await startExtraApi(
      'api-audit-capture',
      { SVC_TASK_QUEUE: 'svc-audit-capture', SVC_ENGINE_POOL_SIZE: '1', ...captureEnv(dir) },
      true,
      'api-process',
    );
    // /health answers before the in-process worker polls its queue.
    for (let i = 0; i < 600 && !api.proc.logContains('in-process worker running'); i++)
      await new Promise((r) => setTimeout(r, 200));
    t = await newTenant();
  }, 180_000);
  afterAll(async () => {
    await api?.proc.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (p: string, init: RequestInit = {}) => {
    const res = await fetch(`${api.url}${p}`, {
      ...init,
      headers: { 'x-api-key': t.key, 'content-type': 'application/json', ...(init.headers ?? {}) },
    });
    return {
      status: res.status,
      body: res.headers.get('content-type')?.includes('json') ? await res.json() : await res.text(),
    };
  };
  const verify = (expression: string) => call('/verify/math', { method: 'POST', body: JSON.stringify({ expression }) });

  it('verifications, audit pages and exports, metrics, reports and attestation look-ups', async () => {
    const first = await verify('(a+1)^2 = a^2 + 2*a + 1');
    expect(first.status).toBe(200);
    expect(first.body.status).toBe('VERIFIED');
    // The same proof again (a duplicate key on the proof: already retained) and some concurrent ones.
    expect((await verify('(a+1)^2 = a^2 + 2*a + 1')).status).toBe(200);
    const many = await Promise.all(
      Array.from({ length: 6 }, (_, i) => verify(i % 3 === 2 ? `${i}/0` : `(b+${i})^2 = b^2 + ${2 * i}*b + ${i * i}`)),
    );
    for (const r of many) expect(r.status).toBe(200);
    const bearer = { authorization: `Bearer ${t.token}` };
    const logs = await call('/audit/logs?limit=5', { headers: bearer });
    expect(logs.status).toBe(200);
    expect(logs.body.logs).toHaveLength(5);
    const reads = [
      call(`/audit/logs/${logs.body.logs[0].id}`, { headers: bearer }),
      call('/audit/logs?status=verified', { headers: bearer }),
      call('/audit/export', { headers: bearer }),
      call('/logs?limit=3'),
      call(`/metrics/${t.orgId}`),
      call(`/admin/compliance/report/soc2/${t.orgId}`),
      call(`/admin/security/threats/${t.orgId}`),
      call(`/admin/compliance/verify/${logs.body.logs[0].id}`),
      call('/admin/compliance/export/csv'),
      call(`/attestation/${first.body.attestation.id}`),
      call(`/badge/attestation/${first.body.attestation.id}`),
    ];
    for (const r of await Promise.all(reads)) expect(r.status).toBe(200);
    const metrics = await call(`/metrics/${t.orgId}`);
    expect(metrics.body).toMatchObject({ audit_entries: 8, verifications: { total: 8 }, last_24h: { total: 8 } });

    const ops: Classified[] = readCapture(dir)
      .flatMap(classify)
      .filter((o) => FAMILY.has(o.coll));
    const where = (list: Classified[]) => list.map((o) => `${o.coll} ${label(o)} at ${o.site}`);
    // Something was captured (guards against a preload that silently records nothing).
    expect(ops.filter((o) => o.coll === 'audit_logs' && o.cls === 'insert').length).toBeGreaterThan(0);
    expect(where(violations(ops))).toEqual([]);
    // The positions move the head (session 14: no third insert per group commit) and its document
    // is written by `_id`: no scan of the heads (the old CAS `{_id, seq}`), no move written.
    expect(ops.filter((o) => o.coll === 'audit_seq' && o.cls === 'insert').length).toBeGreaterThan(0);
    // The claims are captured and checked too (session 15): inserted beside the entries, never scanned.
    expect(ops.filter((o) => o.coll === 'audit_claims' && o.cls === 'insert').length).toBeGreaterThan(0);
    expect(where(ops.filter((o) => o.coll === 'audit_claims' && o.scansOnSqlite))).toEqual([]);
    expect(where(ops.filter((o) => o.coll === 'audit_head_moves'))).toEqual([]);
    expect(
      where(ops.filter((o) => (o.coll === 'audit_heads' || o.coll === 'audit_head_moves') && o.scansOnSqlite)),
    ).toEqual([]);
    // Session 16: a math verification's attestation record is stored in its audit entry (one insert
    // fewer per verification): no `attestations` insert at all here; GET /attestation and the badge
    // read both places by `_id` (checked by violations() above).
    expect(where(ops.filter((o) => o.coll === 'attestations' && o.cls === 'insert'))).toEqual([]);
    // Session 24: the proof rides in the same entry (docs/store-access.md §18): no `proofs` insert
    // either, so a proven verification's only random-key insert is gone; from-diagnostic and the
    // attestation reads find the proof from the attestation by `_id`.
    expect(where(ops.filter((o) => o.coll === 'proofs' && o.cls === 'insert'))).toEqual([]);
    // Insert-once: no upsert (a read before the insert on FerretDB) of a proof or an attestation record.
    expect(
      where(ops.filter((o) => (o.coll === 'proofs' || o.coll === 'attestations') && (o.upsert || o.cmd === 'update'))),
    ).toEqual([]);
  }, 240_000);
});
