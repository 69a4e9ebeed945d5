// Concurrent tool calls of one agent that each need approval (session 13). The approval number
// comes from a counter whose `$inc` FerretDB runs as read-modify-write: it handed two concurrent
// callers one number, so two calls got one approval id, the second insert failed and its action
// named the first call's approval. Now the approval's unique `_id` decides and a loser takes the
// next number (persistence/approvals.ts insertNextApproval): every call gets its own approval,
// whose action is its own. Over HTTP the calls seldom overlap at the counter (each runs its
// checks first), so the second row drives the allocation itself, concurrently, on the real store.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../core/store.js';
import { insertNextApproval, type ApprovalDoc } from '../../persistence/approvals.js';
import { db, get, http, newTenant, post, type Member } from './helpers.js';

const CALLS = 12;

describe('concurrent tool calls that need approval (one agent)', () => {
  let owner: Member;
  let agent: { id: number; agent_id: string; agent_token: string };

  beforeAll(async () => {
    owner = await newTenant();
    const res = await http('POST', '/agents/register', {
      body: {
        name: 'parallel-bot',
        permissions: { require_approval: ['calculator'], approval_timeout_seconds: 600 },
        max_requests_per_hour: 10_000,
      },
      headers: { 'x-api-key': owner.key },
    });
    expect(res.status, res.text).toBe(200);
    agent = res.body;
  }, 120_000);

  it(`${CALLS} calls at once: ${CALLS} × 202, distinct approval ids, each approval naming its own call's action`, async () => {
    const answers = await Promise.all(
      Array.from({ length: CALLS }, (_, i) =>
        post(
          `/agents/${agent.id}/tools/calculator`,
          { arguments: { expression: `${i} + 1` } },
          { 'x-agent-token': agent.agent_token },
        ),
      ),
    );
    for (const r of answers) {
      expect(r.status, r.text).toBe(202);
      expect(r.body.decision).toBe('pending_approval');
      expect(r.body.approval_id).toMatch(/^apr_[1-9][0-9]*$/);
    }
    const ids = answers.map((r) => r.body.approval_id as string);
    expect(new Set(ids).size).toBe(CALLS);
    const actions = answers.map((r) => r.body.action_id as string);
    expect(new Set(actions).size).toBe(CALLS);
    for (const r of answers) {
      const a = await get(`/agents/${agent.id}/approvals/${r.body.approval_id}`, {
        'x-agent-token': agent.agent_token,
      });
      expect(a.status).toBe(200);
      expect(a.body).toMatchObject({
        approval_id: r.body.approval_id,
        action_id: r.body.action_id,
        tool: 'calculator',
        state: 'pending',
      });
    }
  }, 120_000);

  it('3 × 16 allocations at once for one agent on the real store: every approval stored with a number of its own and its own action', async () => {
    const database = await db();
    const store = { collection: (name: string) => database.collection(name) } as unknown as Store;
    const agentId = `agt_race_${randomUUID().replace(/-/g, '')}`;
    const docFor = (actionId: string) => (seq: number) =>
      ({
        _id: `${agentId}:${seq}`,
        approval_id: `apr_${seq}`,
        seq,
        agent_id: agentId,
        action_id: actionId,
        state: 'pending',
      }) as unknown as ApprovalDoc;
    // The counter exists first (a new one is an upsert, which races differently); then 3 rounds of 16.
    await insertNextApproval(store, agentId, docFor('acn_race_first'));
    const actions = Array.from({ length: 48 }, (_, i) => `acn_race_${i}`);
    const docs: ApprovalDoc[] = [];
    for (let round = 0; round < 3; round++)
      docs.push(
        ...(await Promise.all(
          actions.slice(round * 16, round * 16 + 16).map((a) => insertNextApproval(store, agentId, docFor(a))),
        )),
      );
    expect(new Set([1, ...docs.map((d) => d.seq)]).size).toBe(49);
    for (const [i, d] of docs.entries()) {
      const stored = await database.collection('agent_approvals').findOne({ _id: `${agentId}:${d.seq}` as any });
      expect(stored?.action_id).toBe(actions[i]);
    }
    const counter = await database.collection('counters').findOne({ _id: `approvals:${agentId}` as any });
    // On FerretDB some increments are lost and some callers retried; a real MongoDB ends at 49.
    console.log(`approval counter after 49 allocations (16 at once): ${counter?.seq}`);
  });
});
