// The store contract (issue 22, item 2), black box: while the stack's API and worker record
// every store command (test/store-commands/capture.mjs, switched on by global-setup.ts), this
// file drives a representative workload over HTTP (sign-up and sign-in, keys and their
// rotation, every verification route, a batch, agents with tool calls and activity pages, the
// audit and log pages, metrics and the reports) and fails on any read of a growing collection
// that is not a point lookup by `_id` (persistence/registry.ts), outside the commented list of
// known violations owned by the batch and audit rewrites (test/store-commands/contract.ts).
// The last teardown applies the same check to everything the whole suite made the service do.
import sharp from 'sharp';
import { inject } from 'vitest';
import { beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, get, mintKey, newTenant, post, randomIp, uniqueEmail, PASSWORD, type Member } from './helpers.js';
import { postStats } from './uploads.js';
import { contractReport, KNOWN_VIOLATIONS } from '../store-commands/contract.js';
import { COLLECTIONS } from '../../persistence/registry.js';

const dir = inject('storeCaptureDir');
const key = (k: string) => ({ 'x-api-key': k });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('store contract: a representative workload reads growing collections by key only', () => {
  let t: Member;
  let since = 0;

  beforeAll(async () => {
    since = Date.now();
    t = await newTenant();
  });

  it('drives accounts, every verification route, batch, agents, audit, metrics and reports', async () => {
    // Accounts: sign-in, a second sign-up of the same address (409), keys listed, revoked, rotated.
    expect(
      (await post('/auth/signin', { email: t.email, password: PASSWORD }, { 'x-forwarded-for': randomIp() })).status,
    ).toBe(200);
    expect(
      (
        await post(
          '/auth/signin',
          { email: uniqueEmail('nobody'), password: PASSWORD },
          { 'x-forwarded-for': randomIp() },
        )
      ).status,
    ).toBe(401);
    expect(
      (
        await post(
          '/auth/signup',
          { email: t.email.toUpperCase(), password: PASSWORD, organization_name: 'dup' },
          { 'x-forwarded-for': randomIp() },
        )
      ).status,
    ).toBe(409);
    const k2 = await mintKey(t.token, 'second');
    const k3 = await mintKey(t.token, 'third');
    expect((await get('/auth/api-keys', bearer(t.token))).body.map((k: { id: string }) => k.id)).toEqual(
      expect.arrayContaining([t.keyId, k2.id, k3.id]),
    );
    expect((await get('/auth/me', bearer(t.token))).status).toBe(200);
    expect((await post('/admin/keys/rotate', { key_id: k2.id }, key(t.key))).status).toBe(200);
    const del = await fetch(`${apiUrl()}/auth/api-keys/${k3.id}`, { method: 'DELETE', headers: bearer(t.token) });
    expect(del.status).toBe(200);
    expect((await post('/verify/math', { expression: '1+1' }, key(k3.key))).status).toBe(401);
    expect((await post('/verify/math', { expression: '1+1' }, key('svc_live_' + 'x'.repeat(40)))).status).toBe(401);

    // Every verification route.
    // An identity no other file proves: the API skips the insert of a proof it already retained
    // (persistence/proofs.ts), so a shared one left `proofs` out of the capture when another file
    // proved it first in the same process (session 18's clean clone). Since session 24 a short math
    // proof rides in its audit entry; one over PROOF_IN_ENTRY_MAX_BYTES (1 KiB) is still retained in
    // `proofs`: the long identity below, unique too (clean clones 74 and 75 missed `proofs` when
    // other files had proved the route calls' shared claims first).
    const n = 1000 + Math.floor(Math.random() * 1_000_000);
    const proven = await post('/verify/math', { expression: `(x+${n})^2 = x^2 + ${2 * n}*x + ${n * n}` }, key(t.key));
    expect(proven.status).toBe(200);
    expect(proven.body.status).toBe('VERIFIED');
    const terms = Array.from({ length: 32 }, (_, i) => n + i);
    const longIdentity = `${terms.map((c) => `(w+${c})^2`).join(' + ')} = 32*w^2 + ${2 * terms.reduce((a, c) => a + c, 0)}*w + ${terms.reduce((a, c) => a + c * c, 0)}`;
    const provenLong = await post('/verify/math', { expression: longIdentity }, key(t.key));
    expect(provenLong.status).toBe(200);
    expect(provenLong.body.status).toBe('VERIFIED');
    const calls = [
      post('/verify/logic', { query: `(AND (GT x ${n}) (LT x ${n + 5}))` }, key(t.key)),
      post('/verify/code', { code: 'def add(a, b):\n    return a + b\n', language: 'python' }, key(t.key)),
      post('/verify/sql', { query: 'SELECT id FROM t', schema_ddl: 'CREATE TABLE t (id INT)' }, key(t.key)),
      post(
        '/verify/fact',
        { claim: 'The Eiffel Tower is in Paris.', context: 'The Eiffel Tower stands in Paris, France.' },
        key(t.key),
      ),
      post('/verify/consensus', { query: '2 + 2 = 4', verification_mode: 'single' }, key(t.key)),
      post('/verify/natural_language', { query: 'What is 15% of 200?' }, key(t.key)),
      post('/verify/process', { trace: 'The issue is X. The rule is Y. In this case Z. Therefore W.' }, key(t.key)),
      post(
        '/verify/rag',
        { target_document_id: 'd', chunks: [{ id: 1, metadata: { document_id: 'd' } }], max_drm_rate: '1/2' },
        key(t.key),
      ),
    ];
    for (const r of await Promise.all(calls)) expect(r.status).toBe(200);
    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 220, g: 20, b: 30 } } })
      .png()
      .toBuffer();
    const fd = new FormData();
    fd.append('claim', 'The image is 64 pixels wide.');
    fd.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'red.png');
    expect((await fetch(`${apiUrl()}/verify/image`, { method: 'POST', body: fd, headers: key(t.key) })).status).toBe(
      200,
    );
    // The upload goes through the store either way; the sandbox that runs the query may be absent here (503).
    expect([200, 503]).toContain(
      (await postStats(t.key, { file: 'revenue\n120\n90\n150\n', query: 'mean(revenue) > 100' })).status,
    );
    const vc = await post('/verification-context/validate', { spec_version: '1.0' }, key(t.key));
    expect(vc.status).toBeLessThan(500);

    // Attestation and badge of the proven identity.
    const att = proven.body.attestation.id as string;
    expect((await get(`/attestation/${att}`, key(t.key))).status).toBe(200);
    expect((await get(`/badge/attestation/${att}`)).status).toBe(200);

    // A batch, to completion.
    const batch = await post(
      '/verify/batch',
      {
        items: [
          { query: '2 + 2 = 4', type: 'math' },
          { query: '(x+1)^2 = x^2 + 2*x + 1', type: 'math' },
        ],
      },
      key(t.key),
    );
    expect([200, 202]).toContain(batch.status);
    for (
      let i = 0;
      i < 120 &&
      !['completed', 'failed'].includes((await get(`/verify/batch/${batch.body.job_id}`, key(t.key))).body.status);
      i++
    )
      await sleep(500);

    // Agents: register, verify, a tool call, activity pages, budget, revoke.
    const reg = await post(
      '/agents/register',
      { name: 'contract', permissions: { allowed_tools: ['calculator'] } },
      key(t.key),
    );
    expect(reg.status).toBe(200);
    const agent = { id: reg.body.id as number, token: reg.body.agent_token as string };
    const tok = { 'x-agent-token': agent.token };
    expect(
      (
        await post(
          `/agents/${agent.id}/verify`,
          { query: '2 + 2 = 4', context: { conversation_id: 'c1', step_number: 1 } },
          tok,
        )
      ).status,
    ).toBe(200);
    expect(
      (await post(`/agents/${agent.id}/tools/calculator`, { arguments: { expression: '1+1' } }, tok)).status,
    ).toBeLessThan(500);
    const page1 = await get(`/agents/${agent.id}/activity?limit=1`, tok);
    expect(page1.status).toBe(200);
    expect(page1.body.items).toHaveLength(1);
    const page2 = await get(`/agents/${agent.id}/activity?limit=1&cursor=${page1.body.next_cursor}`, tok);
    expect(page2.status).toBe(200);
    expect(page2.body.items[0]?.id).not.toBe(page1.body.items[0].id);
    expect((await get(`/agents/${agent.id}/budget`, tok)).status).toBe(200);
    expect((await fetch(`${apiUrl()}/agents/${agent.id}`, { method: 'DELETE', headers: key(t.key) })).status).toBe(200);
    expect((await get(`/agents/${agent.id}/budget`, tok)).status).toBe(401);

    // Audit, logs, metrics, reports.
    const logs = await get('/audit/logs?limit=5', bearer(t.token));
    expect(logs.status).toBe(200);
    expect((await get('/logs?limit=5', key(t.key))).status).toBe(200);
    expect((await get('/audit/export', bearer(t.token))).status).toBe(200);
    const logId = logs.body.logs?.[0]?.id;
    if (logId) expect((await get(`/audit/logs/${logId}`, bearer(t.token))).status).toBe(200);
    expect((await get(`/metrics/${t.orgId}`, key(t.key))).status).toBe(200);
    expect((await get(`/admin/compliance/report/soc2/${t.orgId}`, key(t.key))).status).toBe(200);
    expect((await get(`/admin/security/threats/${t.orgId}`, key(t.key))).status).toBe(200);
    expect((await get('/admin/compliance/export/csv', key(t.key))).status).toBe(200);
  });

  it('every read of a growing collection in the capture is a point lookup (or a listed known violation of the batch/audit rewrites)', async () => {
    expect(
      dir,
      'the stack runs without the capture (SVC_TEST_STORE_CAPTURE=0): the contract cannot be checked',
    ).not.toBe('');
    await sleep(1500); // the preload flushes every 250 ms
    const report = contractReport(dir, since);
    console.log(report.summary);
    // The capture saw this workload (guards against a vacuous pass: a preload that recorded nothing).
    const colls = new Set(report.ops.map((o) => o.coll));
    for (const c of [
      'users',
      'user_emails',
      'api_keys',
      'api_key_digests',
      'org_directory',
      'agents',
      'agent_tokens',
      'agent_nums',
      'agent_activity',
      'uploads',
      'audit_logs',
      'proofs',
    ])
      expect(colls, c).toContain(c);
    expect(report.failures).toEqual([]);
  });

  it('the known violations belong to the batch and audit owners only, each naming a registered growing collection', () => {
    for (const k of KNOWN_VIOLATIONS) {
      expect(['A', 'B']).toContain(k.owner);
      expect(COLLECTIONS[k.coll]?.growth).toBe('growing');
    }
  });
});
