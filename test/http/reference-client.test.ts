// Issue 23: the reference implementation's own Python client (PyPI qwed, pinned in
// infra/qwed-client.requirements.txt and installed by infra/install-tools.sh into
// .tools/venv-qwed-client-<version>) works unchanged against the test stack: every public
// method of QWEDClient and QWEDAsyncClient, listed by introspection, called with only its
// required arguments (the client's defaults for the rest: it sends JSON null for an optional
// value it was not given), returns the expected outcome. test/http/reference-client/
// walk_qwed_client.py drives the client and reports; the assertions are here.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, newTenant } from './helpers.js';

const ROOT = join(import.meta.dirname, '..', '..');
const QWED_CLIENT_VERSION = '7.3.0';
const PYTHON = join(ROOT, '.tools', `venv-qwed-client-${QWED_CLIENT_VERSION}`, 'bin', 'python');
const WALKER = join(import.meta.dirname, 'reference-client', 'walk_qwed_client.py');

type Outcome = { returned?: any; raised?: string; status?: number; body?: string; message?: string; closed?: boolean };
type Report = { sync: Record<string, Outcome>; async: Record<string, Outcome> };

let report: Report;
let dir = '';
beforeAll(async () => {
  // Installed by the test command (infra/test.sh runs infra/install-tools.sh); never skipped.
  expect(existsSync(PYTHON), `${PYTHON} missing: run infra/install-tools.sh qwed-client`).toBe(true);
  const { key } = await newTenant();
  dir = mkdtempSync(join(tmpdir(), 'svc-qwed-client-'));
  writeFileSync(join(dir, 'prices.csv'), 'name,price\napple,10\npear,15\nplum,12.5\n');
  await sharp({ create: { width: 4, height: 3, channels: 3, background: { r: 200, g: 0, b: 0 } } })
    .png()
    .toFile(join(dir, 'red.png'));
  const { stdout } = await promisify(execFile)(
    PYTHON,
    [WALKER, apiUrl(), key, join(dir, 'prices.csv'), join(dir, 'red.png')],
    { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
  );
  report = JSON.parse(stdout) as Report;
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const SHA = /^sha256:[0-9a-f]{64}$/;
const returned = (o: Outcome) => {
  // A raise is reported with its status and body, so a failure names what the server said.
  expect(o.raised, `${o.raised} ${o.status ?? ''} ${o.body ?? o.message ?? ''}`).toBeUndefined();
  return o.returned;
};

/** The expected outcome of each public method (sync and async alike), with only its required arguments. */
const EXPECT: Record<string, (o: Outcome) => void> = {
  health: (o) => expect(returned(o)).toMatchObject({ status: 'healthy', version: '7.3.0' }),
  // The headline call: `{"query": ..., "provider": null}` (the client's default provider).
  verify: (o) => {
    const r = returned(o);
    expect(r).toMatchObject({
      type: 'VerificationResult',
      status: 'INCONCLUSIVE',
      is_verified: false,
      error: null,
      provider_used: 'local',
    });
    expect(r.result).toMatchObject({
      user_query: 'What is 15% of 240?',
      final_answer: 36,
      trust_boundary: { query_semantics_verified: false, formal_proof: false },
    });
  },
  verify_logic: (o) =>
    expect(returned(o)).toMatchObject({
      status: 'SAT',
      is_verified: false,
      result: { status: 'SAT', model: { x: '6' } },
    }),
  verify_math: (o) => {
    const r = returned(o);
    expect(r).toMatchObject({
      status: 'VERIFIED',
      is_verified: true,
      result: { is_valid: true, is_authoritative: true },
    });
    expect(r.result.proof_ref).toMatch(SHA);
  },
  // Truth and admission are separate: the scan's finding is proven, the code is not admitted.
  verify_code: (o) =>
    expect(returned(o)).toMatchObject({
      is_verified: false,
      result: {
        admission: 'BLOCKED',
        developer_fields: {
          constraint_id: 'code_verifier.code_unsafe',
          is_safe: false,
          language: 'python',
          critical_count: 1,
        },
      },
    }),
  // /verify/fact answers a verdict (contract), which the client's status does not read.
  verify_fact: (o) =>
    expect(returned(o)).toMatchObject({
      type: 'VerificationResult',
      is_verified: false,
      result: { verdict: 'SUPPORTED', provider_used: 'local' },
    }),
  // The client's default schema_ddl is "": no CREATE TABLE statement to check against, so the
  // check fails closed (contract, "POST /verify/sql": BLOCKED for a schema that does not parse).
  verify_sql: (o) =>
    expect(returned(o)).toMatchObject({
      status: 'BLOCKED',
      is_verified: false,
      result: {
        admission: 'BLOCKED',
        proof_ref: null,
        developer_fields: { constraint_id: 'sql_verifier.schema_parse_error' },
      },
    }),
  verify_stats: (o) =>
    expect(returned(o)).toMatchObject({
      status: 'UNVERIFIABLE',
      is_verified: false,
      result: {
        proof_ref: null,
        is_authoritative: false,
        developer_fields: {
          constraint_id: 'stats_verifier.claim_not_verified',
          observed_result: 12.5,
          columns: ['name', 'price'],
          sandbox_type: 'docker',
        },
      },
    }),
  // Defaults: mode "single", min_confidence 0.95.
  verify_consensus: (o) => {
    const r = returned(o);
    expect(r).toMatchObject({
      status: 'VERIFIED',
      is_verified: true,
      result: { status: 'VERIFIED', meets_requirement: true, verification_mode: 'single', min_confidence: 0.95 },
    });
    expect(r.result.proof_ref).toMatch(SHA);
  },
  verify_image: (o) =>
    expect(returned(o)).toMatchObject({
      result: { verdict: 'SUPPORTED', measurements: { format: 'png', width: 4, height: 3 } },
    }),
  verify_batch: (o) => {
    const r = returned(o);
    expect(r).toMatchObject({
      type: 'BatchResult',
      status: 'completed',
      total_items: 2,
      completed_items: 2,
      failed_items: 0,
    });
    expect(r.job_id).toMatch(/^bj_[0-9a-f]{24}$/);
    expect(r.items.map((i: any) => [i.query, i.status, i.result.status])).toEqual([
      ['2 + 2 = 4', 'completed', 'VERIFIED'],
      ['3 * 3 = 10', 'completed', 'UNVERIFIABLE'],
    ]);
  },
  get_batch_status: (o) =>
    expect(returned(o)).toMatchObject({
      type: 'BatchResult',
      status: 'completed',
      total_items: 2,
      completed_items: 2,
      progress_percent: 100,
    }),
  // The second call of the issue: verifier_version and attestation_token are null by default.
  create_verification_context_from_diagnostic: (o) =>
    expect(returned(o)).toMatchObject({
      spec_version: '1.0',
      verdict: 'UNVERIFIABLE',
      object: { formal_statement: 'SELECT 1' },
      context: {
        proof: { verifier: 'sql', verifier_version: '7.3.0' },
        evidence: { proof_ref: null },
        decision: { admission: 'DENY' },
      },
    }),
  validate_verification_context: (o) => expect(returned(o)).toEqual({ valid: true }),
  resolve_verification_context: (o) =>
    expect(returned(o)).toEqual({
      resolved: false,
      reason: 'verdict_not_verified',
      issued_here: false,
      issued_here_reason: 'not_resolved',
    }),
  close: (o) => {
    expect(o.raised).toBeUndefined();
    expect(o.closed).toBe(true);
  },
};

describe.each(['sync', 'async'] as const)('qwed_sdk %s client', (side) => {
  it('every public method was walked, and each has an expected outcome', () => {
    const walked = Object.keys(report[side]).sort();
    expect(
      walked.filter((m) => !(m in EXPECT)),
      'methods without an expected outcome',
    ).toEqual([]);
    // QWEDClient has 16 public methods (close included), QWEDAsyncClient 13 (no verify_fact, verify_sql or close).
    expect(walked.length).toBe(side === 'sync' ? 16 : 13);
  });
  it.each(Object.keys(EXPECT))('%s', (method) => {
    const outcome = report[side][method];
    if (outcome === undefined) {
      expect(
        side === 'async' && ['verify_fact', 'verify_sql', 'close'].includes(method),
        `${method} missing from the ${side} client`,
      ).toBe(true);
      return;
    }
    EXPECT[method](outcome);
  });
});
