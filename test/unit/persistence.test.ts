// The persistence modules of accounts, agents and uploads against a store that answers only
// point lookups by `_id` (test/unit/point-store.ts throws on anything else): the request paths
// are point lookups (issue 22), and the races the old conditional updates guarded are decided
// by unique inserts. The black-box rows are in test/http/accounts.test.ts, agents*.test.ts,
// security-review.test.ts and test/http/store-contract.test.ts.
import { describe, expect, it } from 'vitest';
import { Binary } from 'mongodb';
import { createHash } from 'node:crypto';
import { PointStore } from './point-store.js';
import { Accounts, legacyDigest } from '../../persistence/accounts.js';
import { Agents, activityId, activitySeq, recordAgentActivity } from '../../persistence/agents.js';
import { deleteUpload, loadUpload, saveUpload } from '../../persistence/uploads.js';
import { backfillPointers, runStartupMigrations } from '../../persistence/migrations.js';
import { generateApiKey } from '../../core/api-keys.js';

const SECRET = 'lookup-secret-for-unit-tests-0123456789';

function accountsOn(ps = new PointStore()) {
  return { ps, accounts: new Accounts(ps.asStore(), SECRET) };
}

async function tenant(accounts: Accounts, email = `owner-${Math.random().toString(16).slice(2)}@example.test`) {
  return accounts.createOrgWithOwner({ orgName: 'Org', email, passwordHash: 'h' });
}

describe('accounts: sign-up, e-mail pointer', () => {
  it('lets exactly one of 12 concurrent sign-ups of one address (in any case) create an account', async () => {
    const { ps, accounts } = accountsOn();
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        accounts.createOrgWithOwner({
          orgName: `Org ${i}`,
          email: i % 2 ? 'Race@Example.test' : 'race@example.TEST',
          passwordHash: 'h',
        }),
      ),
    );
    const won = results.filter((r) => r.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const r of results) if (r.status === 'rejected') expect((r.reason as { code?: number }).code).toBe(11000);
    expect(ps.docs('users')).toHaveLength(1);
    expect(ps.docs('organizations')).toHaveLength(1);
    expect(ps.docs('user_emails')).toEqual([{ _id: 'race@example.test', user_id: ps.docs('users')[0]!._id }]);
    const user = await accounts.findUserByEmail('RACE@example.test');
    expect(user?._id).toBe(ps.docs('users')[0]!._id);
  });

  it('does not find a user without the pointer (no scan), and finds it after the backfill', async () => {
    const { ps, accounts } = accountsOn();
    await ps.collection('users').insertOne({
      _id: 'usr_old',
      email: 'Old@x.test',
      email_lower: 'old@x.test',
      org_id: 'org_old',
      role: 'owner',
      active: true,
      created_at: new Date(),
      password_hash: 'h',
    });
    expect(await accounts.findUserByEmail('old@x.test')).toBeNull();
    ps.allowScans = true;
    await backfillPointers(ps.asStore());
    ps.allowScans = false;
    expect((await accounts.findUserByEmail('OLD@x.test'))?._id).toBe('usr_old');
    expect((await accounts.listOrgUsers('org_old')).map((u) => u._id)).toEqual(['usr_old']);
  });

  it("lists an organization's users from its directory, members included, in creation order", async () => {
    const { accounts } = accountsOn();
    const { org, user } = await tenant(accounts);
    await new Promise((r) => setTimeout(r, 5));
    const members = await Promise.all(
      ['a', 'b', 'c'].map((n) =>
        accounts.addUser({ orgId: org._id, email: `${n}-${org._id}@x.test`, passwordHash: 'h', role: 'member' }),
      ),
    );
    const listed = (await accounts.listOrgUsers(org._id)).map((u) => u._id);
    expect(listed).toHaveLength(4);
    expect(listed[0]).toBe(user._id);
    expect(new Set(listed)).toEqual(new Set([user._id, ...members.map((m) => m._id)]));
    await expect(
      accounts.addUser({ orgId: org._id, email: `A-${org._id}@X.test`, passwordHash: 'h', role: 'member' }),
    ).rejects.toMatchObject({ code: 11000 });
  });
});

describe('accounts: keys', () => {
  it('lists every one of 15 keys minted at once (no lost directory entry), active ones only', async () => {
    const { accounts } = accountsOn();
    const { org, user } = await tenant(accounts);
    const made = await Promise.all(
      Array.from({ length: 15 }, (_, i) => accounts.createKey({ orgId: org._id, userId: user._id, name: `k${i}` })),
    );
    expect((await accounts.listActiveKeys(org._id)).map((k) => k._id).sort()).toEqual(
      made.map((m) => m.doc._id).sort(),
    );
    expect(await accounts.revokeKey(org._id, made[3]!.doc._id)).toBe(true);
    const after = await accounts.listActiveKeys(org._id);
    expect(after).toHaveLength(14);
    expect(after.map((k) => k._id)).not.toContain(made[3]!.doc._id);
    expect((await accounts.listOrgKeys(org._id)).length).toBe(15);
  });

  it('resolves a key by its digest pointer; an unknown key costs two lookups once, then none for a while', async () => {
    const { ps, accounts } = accountsOn();
    const { org, user } = await tenant(accounts);
    const { doc, key } = await accounts.createKey({ orgId: org._id, userId: user._id, name: 'k' });
    expect((await accounts.findKeyByRaw(key))?._id).toBe(doc._id);
    const unknown = generateApiKey('svc_live_');
    const before = ps.ops.length;
    expect(await accounts.findKeyByRaw(unknown)).toBeNull();
    expect(ps.ops.length - before).toBe(1);
    expect(await accounts.findKeyByRaw(unknown)).toBeNull();
    expect(ps.ops.length - before).toBe(1);
  });

  it('recognises a pre-7.2 key by its legacy pointer only', async () => {
    const { ps, accounts } = accountsOn();
    const legacy = generateApiKey('svc_live_');
    await ps.collection('api_keys').insertOne({
      _id: 'key_legacy',
      org_id: 'o',
      user_id: 'u',
      hash_scheme: 'sha256-legacy',
      lookup_digest: legacyDigest(legacy),
      active: true,
      created_at: new Date(),
    });
    expect(await accounts.findLegacyKey(legacy)).toBeNull();
    ps.allowScans = true;
    await backfillPointers(ps.asStore());
    ps.allowScans = false;
    expect((await accounts.findLegacyKey(legacy))?._id).toBe('key_legacy');
    expect(await accounts.findKeyByRaw(legacy)).toBeNull();
  });

  it('lets one of 6 concurrent rotations win; the old key is revoked and followed to its successor', async () => {
    const { ps, accounts } = accountsOn();
    const { org, user } = await tenant(accounts);
    const { doc } = await accounts.createKey({ orgId: org._id, userId: user._id, name: 'k' });
    const results = await Promise.all(Array.from({ length: 6 }, () => accounts.rotateKey(doc)));
    const winners = results.filter((r) => r.ok);
    expect(winners).toHaveLength(1);
    const winner = winners[0] as { ok: true; doc: { _id: string } };
    expect(results.filter((r) => !r.ok).every((r) => !r.ok && r.reason === 'in_progress')).toBe(true);
    const active = ps.docs('api_keys').filter((k) => k.active);
    expect(active.map((k) => k._id)).toEqual([winner.doc._id]);
    expect(await accounts.keyStanding(org._id, doc._id)).toBe('active');
    expect(await accounts.keyStanding('org_other', doc._id)).toBe('missing');
  });

  it('lets one of two concurrent revocations report the revocation, and a rotation after a revoke is refused', async () => {
    const { accounts } = accountsOn();
    const { org, user } = await tenant(accounts);
    const { doc } = await accounts.createKey({ orgId: org._id, userId: user._id, name: 'k' });
    const [a, b] = await Promise.all([accounts.revokeKey(org._id, doc._id), accounts.revokeKey(org._id, doc._id)]);
    expect([a, b].filter(Boolean)).toHaveLength(1);
    expect(await accounts.findActiveKey(org._id, doc._id)).toBeNull();
    const other = await accounts.createKey({ orgId: org._id, userId: user._id, name: 'k2' });
    expect(await accounts.revokeKey('org_someone_else', other.doc._id)).toBe(false);
    await accounts.markRevoked(other.doc._id, 'revoked', null);
    expect(await accounts.rotateKey(other.doc)).toEqual({ ok: false, reason: 'gone' });
  });
});

describe('agents', () => {
  it("finds an agent by token and by its organization's number only, and revokes it", async () => {
    const ps = new PointStore();
    const agents = new Agents(ps.asStore(), SECRET);
    const fields = {
      org_id: 'org_a',
      created_by_user_id: null,
      created_by_key_id: 'key_a',
      name: 'a',
      agent_type: 'x',
      description: null,
      permissions: { allowed_tools: [], denied_tools: [], allowed_domains: [] },
      max_requests_per_hour: 10,
      max_cost_per_day: 1,
    };
    const regs = await Promise.all(Array.from({ length: 5 }, () => agents.register(fields)));
    expect(new Set(regs.map((r) => r.doc.num)).size).toBe(5);
    const { doc, token } = regs[2]!;
    expect((await agents.findByToken(token))?._id).toBe(doc._id);
    expect((await agents.findByNum('org_a', doc.num))?._id).toBe(doc._id);
    expect(await agents.findByNum('org_b', doc.num)).toBeNull();
    const revoked = await agents.revoke('org_a', doc.num);
    expect(revoked?.status).toBe('revoked');
    expect(await agents.revoke('org_a', doc.num)).toBeNull();
    expect((await agents.findByToken(token))?.status).toBe('revoked');
  });

  it('pages activity by position, newest first, once per workflow', async () => {
    const ps = new PointStore();
    const store = ps.asStore();
    const agents = new Agents(store, SECRET);
    const rec = (wf: string) => ({
      agent_id: 'agt_1',
      org_id: 'o',
      kind: 'verify' as const,
      status: 'VERIFIED',
      summary: wf,
      workflow_id: wf,
      audit_log_id: 'l',
      conversation_id: null,
      step_number: null,
      tool: null,
      engine: 'math',
      findings: [],
    });
    const ids: string[] = [];
    for (let i = 1; i <= 4; i++) ids.push((await recordAgentActivity(store, rec(`wf-${i}`))).id);
    const concurrent = await Promise.all([5, 6, 7].map((i) => recordAgentActivity(store, rec(`wf-${i}`))));
    ids.push(...concurrent.map((c) => c.id));
    // A retried record of one workflow is the same record, even when concurrent.
    const again = await Promise.all([
      recordAgentActivity(store, rec('wf-2')),
      recordAgentActivity(store, rec('wf-8')),
      recordAgentActivity(store, rec('wf-8')),
    ]);
    expect(again[0].id).toBe(ids[1]);
    expect(again[1].id).toBe(again[2].id);
    for (const id of ids) expect(id).toMatch(/^act_[0-9a-f]{28}$/);
    expect(activitySeq('agt_1', activityId('agt_1', 7))).toBe(7);
    expect(activitySeq('agt_2', activityId('agt_1', 7))).toBeNull();
    const p1 = await agents.listActivity('agt_1', 3);
    expect(p1.map((d) => d.summary)).toEqual(['wf-8', ...p1.slice(1).map((d) => d.summary)]);
    expect(p1).toHaveLength(3);
    const all: string[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await agents.listActivity('agt_1', 3, cursor);
      all.push(...page.map((d) => d.workflow_id));
      if (page.length < 3) break;
      cursor = page[page.length - 1]!._id;
    }
    expect(all).toHaveLength(8);
    expect(new Set(all).size).toBe(8);
    expect(all.slice(-4)).toEqual(['wf-4', 'wf-3', 'wf-2', 'wf-1']);
    expect(await agents.listActivity('agt_2', 3, ids[3])).toEqual([]);
  });

  it('backfills pointers of older agents and numbers their older activity', async () => {
    const ps = new PointStore();
    const store = ps.asStore();
    const digest = createHash('sha256').update('t').digest('hex');
    await ps.collection('agents').insertOne({
      _id: 'agt_old',
      num: 7,
      org_id: 'o',
      token_digest: digest,
      status: 'active',
      created_at: new Date(),
    });
    for (const [id, wf] of [
      ['act_000000000001aaaaaaaaaaaaaaaa', 'w1'],
      ['act_000000000002aaaaaaaaaaaaaaaa', 'w2'],
    ]) {
      await ps
        .collection('agent_activity')
        .insertOne({ _id: id!, agent_id: 'agt_old', workflow_id: wf, summary: wf, created_at: new Date() });
    }
    ps.allowScans = true;
    const counts = await runStartupMigrations(store);
    expect(counts).toMatchObject({ agent_pointers: 1, activity: 2 });
    expect(await runStartupMigrations(store)).toBeNull(); // once per store
    ps.allowScans = false;
    const agents = new Agents(store, SECRET);
    expect((await agents.findByNum('o', 7))?._id).toBe('agt_old');
    expect((await agents.listActivity('agt_old', 10)).map((d) => d.workflow_id)).toEqual(['w2', 'w1']);
  });
});

describe('uploads', () => {
  it('deletes an upload chunk by chunk by _id', async () => {
    const ps = new PointStore();
    const store = ps.asStore();
    const content = Buffer.alloc(9 * 1024 * 1024, 7);
    const sha = createHash('sha256').update(content).digest('hex');
    const id = await saveUpload(store, 'o', content, sha);
    expect(ps.docs('uploads')).toHaveLength(3);
    // The fake keeps Binary as a plain copy: restore it for the reader.
    for (const d of ps.docs('uploads')) d.data = new Binary((d.data as { buffer: Uint8Array }).buffer);
    expect((await loadUpload(store, id, 'o')).equals(content)).toBe(true);
    await deleteUpload(store, id);
    expect(ps.docs('uploads')).toHaveLength(0);
  });
});
