// "Nothing stored is lost across a restart of the store" (issue 22, guarantees), black box: a
// tenant writes through the API (account, keys, a proven verification with its proof,
// attestation and audit entry, an agent with activity, a batch job), the store (FerretDB) is
// stopped and started again, then killed (SIGKILL) and started again; after each, every
// document that existed in a growing collection before is still there and unchanged, and the
// API serves the same answers. It stops the shared stack's store, so it runs alone (*.serial).
//
// Rows that need the store down or killed share these two faults (session 18; each was a stop or
// a SIGKILL of its own before): while the store is stopped, agent tokens are refused before any
// store lookup, the plan limiter fails closed and an API started meanwhile limits in memory
// (store-outage.serial before); across the SIGKILL, the audit chain verifies with every entry and
// the next append links onto it (guarantees-s17.serial (c) before).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, db, get, mintKey, newTenant, PASSWORD, post, randomIp, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { COLLECTIONS } from '../../persistence/registry.js';

const key = (k: string) => ({ 'x-api-key': k });
const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
const tok = (t: string) => ({ 'x-agent-token': t });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MATH = { expression: '1 + 1' };

/** The SOC 2 report's audit-chain check of an organization (every entry's hash, signature and link). */
async function chainOf(t: Member) {
  const res = await get(`/admin/compliance/report/soc2/${t.orgId}`, key(t.key));
  expect(res.status).toBe(200);
  return res.body.controls.audit_logging as { entries_total: number; chain_integrity: Record<string, unknown> };
}

/** Every document of every growing collection, by collection and `_id` (JSON, dates as ISO strings). */
async function snapshot(): Promise<Map<string, Map<string, string>>> {
  const d = await db();
  const out = new Map<string, Map<string, string>>();
  for (const { name } of await d.listCollections().toArray()) {
    if (COLLECTIONS[name]?.growth !== 'growing') continue;
    const docs = new Map<string, string>();
    for await (const doc of d.collection(name).find({})) docs.set(String(doc._id), JSON.stringify(doc));
    out.set(name, docs);
  }
  return out;
}

/** Documents of `before` missing or changed in `after` (a later write may add documents, never remove or alter these). */
function lost(
  before: Map<string, Map<string, string>>,
  after: Map<string, Map<string, string>>,
  mutable: Set<string>,
): string[] {
  const out: string[] = [];
  for (const [coll, docs] of before) {
    const now = after.get(coll);
    for (const [id, json] of docs) {
      const cur = now?.get(id);
      if (cur === undefined) out.push(`${coll}/${id} missing`);
      else if (cur !== json && !mutable.has(coll)) out.push(`${coll}/${id} changed`);
    }
  }
  return out;
}

/** Until a store-backed read answers again (the driver reconnects within seconds). */
async function untilStoreServes(t: Member): Promise<void> {
  for (let i = 0; i < 60; i++) {
    const r = await get('/auth/api-keys', bearer(t.token)).catch(() => null);
    if (r?.status === 200) return;
    await sleep(1000);
  }
  throw new Error('the store did not serve again within 60 s');
}

describe('store restart: nothing stored is lost', () => {
  let t: Member;
  let attestationId: string;
  let agent: { id: number; agent_token: string };
  let jobId: string;
  /** A batch item's attestation: its record rides in the item's audit entry (session 17). */
  let batchAttestationId: string;
  /** The rows riding on the stop: a free-plan tenant (its limiter), and what was seen while the store was down. */
  let free: Member;
  let outage: {
    badToken: number;
    goodToken: number;
    limited: { status: number; detail: string };
    apiStartedThen: ExtraApi;
  } | null = null;

  beforeAll(async () => {
    [t, free] = await Promise.all([newTenant(), newTenant('free')]);
    await mintKey(t.token, 'second');
    const proven = await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' }, key(t.key));
    expect(proven.status).toBe(200);
    attestationId = proven.body.attestation.id;
    const reg = await post('/agents/register', { name: 'restart' }, key(t.key));
    expect(reg.status).toBe(200);
    agent = reg.body;
    expect(
      (
        await post(
          `/agents/${agent.id}/verify`,
          { query: '2 + 2 = 4', context: { conversation_id: 'c', step_number: 1 } },
          { 'x-agent-token': agent.agent_token },
        )
      ).status,
    ).toBe(200);
    const batch = await post('/verify/batch', { items: [{ query: '2 + 2 = 4', type: 'math' }] }, key(t.key));
    jobId = batch.body.job_id;
    for (let i = 0; i < 120 && (await get(`/verify/batch/${jobId}`, key(t.key))).body.status !== 'completed'; i++)
      await sleep(500);
    const done = await get(`/verify/batch/${jobId}`, key(t.key));
    expect(done.body.items[0].result.status).toBe('VERIFIED');
    batchAttestationId = done.body.items[0].result.attestation.id;
  });

  afterAll(async () => {
    await control('start', 'ferretdb').catch(() => undefined);
    await outage?.apiStartedThen.proc.stop();
  });

  /** The checks that need the store down, all during the one stop. */
  async function whileStopped() {
    const flipped = agent.agent_token.slice(0, -1) + (agent.agent_token.endsWith('A') ? 'B' : 'A');
    const [bad, good, limited, apiStartedThen] = await Promise.all([
      get(`/agents/${agent.id}/budget`, tok(flipped)),
      get(`/agents/${agent.id}/budget`, tok(agent.agent_token)),
      post('/verify/math', MATH, key(free.key)),
      startExtraApi('api-no-store', {}),
    ]);
    outage = {
      badToken: bad.status,
      goodToken: good.status,
      limited: { status: limited.status, detail: limited.body?.detail },
      apiStartedThen,
    };
  }

  /** What the API answers about the tenant's data (store reads each). */
  async function answers() {
    const keys = await get('/auth/api-keys', bearer(t.token));
    const signin = await post(
      '/auth/signin',
      { email: t.email, password: PASSWORD },
      { 'x-forwarded-for': randomIp() },
    );
    const att = await get(`/attestation/${attestationId}`, key(t.key));
    const logs = await get('/audit/logs?limit=50', bearer(t.token));
    const activity = await get(`/agents/${agent.id}/activity`, { 'x-agent-token': agent.agent_token });
    const job = await get(`/verify/batch/${jobId}`, key(t.key));
    const batchAtt = await get(`/attestation/${batchAttestationId}`, key(t.key));
    for (const r of [keys, signin, att, logs, activity, job, batchAtt]) expect(r.status).toBe(200);
    return {
      keys: keys.body,
      user: signin.body.user,
      attestation: att.body,
      batchAttestation: batchAtt.body,
      logs: logs.body.logs,
      activity: activity.body.items,
      job: { status: job.body.status, results: job.body.results ?? job.body.items },
    };
  }

  const restartRow = (how: 'stop' | 'kill9') =>
    it(`keeps every document and answer across a ${how === 'stop' ? 'stop' : 'SIGKILL'} and start of the store${how === 'kill9' ? '; the audit chain verifies and the next append links onto it' : ''}`, async () => {
      const before = await snapshot();
      const seen = await answers();
      expect(seen.keys.length).toBe(2);
      expect(seen.activity.length).toBeGreaterThan(0);
      const chain = how === 'kill9' ? await chainOf(t) : null;
      await control(how, 'ferretdb');
      // Fail closed while it is down.
      try {
        expect((await get('/auth/api-keys', bearer(t.token))).status).toBe(503);
        if (how === 'stop') await whileStopped();
      } finally {
        await control('start', 'ferretdb');
      }
      await untilStoreServes(t);
      // Heads and counters move with later writes of other code; their documents must still exist.
      expect(
        lost(
          before,
          await snapshot(),
          new Set(['agent_usage', 'org_events', 'agent_activity_heads', 'org_directory', 'api_keys', 'batch_jobs']),
        ),
      ).toEqual([]);
      expect(await answers()).toEqual(seen);
      if (chain) {
        // The audit chain across the SIGKILL: the same check, every entry valid, and the next
        // append links onto it.
        expect(chain.chain_integrity).toMatchObject({ invalid: 0, head_matches_last_entry: true, valid: true });
        expect(await chainOf(t)).toEqual(chain);
        expect((await post('/verify/math', { expression: '(x+2)^2 = x^2 + 4*x + 4' }, key(t.key))).status).toBe(200);
        const total = chain.entries_total + 1;
        expect(await chainOf(t)).toMatchObject({
          entries_total: total,
          chain_integrity: { checked: total, invalid: 0, head_seq: total, head_matches_last_entry: true, valid: true },
        });
      }
    }, 120_000);

  restartRow('stop');

  // The two rows below assert what whileStopped() saw during the stop row's outage.
  it('agents: refuses a bad-checksum token with 401 without a store lookup while the store is down (a good one 503)', () => {
    expect(outage).toMatchObject({ badToken: 401, goodToken: 503 });
  });

  it('plan limits: fail closed while the store is down, and an API started then limits in memory', async () => {
    expect(outage!.limited.status).toBe(503);
    expect(outage!.limited.detail).toMatch(/unavailable — retry shortly\.$/);
    const { proc, url } = outage!.apiStartedThen;
    expect(readFileSync(proc.logFile, 'utf8')).toContain('using an in-memory rate limiter until restart');
    const later = await fetch(`${url}/verify/math`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': free.key },
      body: JSON.stringify(MATH),
    });
    expect(later.status).toBe(200);
    expect(later.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  restartRow('kill9');
});
