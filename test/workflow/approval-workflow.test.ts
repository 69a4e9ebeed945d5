// Workflow tier (docs/testing.md): approvalWorkflow and actionOutcomeWorkflow (workflows/approval.ts)
// on @temporalio/testing against the project's temporal CLI, with the real approval activities
// (activities/approvals.ts) over an in-memory store (point operations by _id, as the persistence
// module uses them) and a real ES256 signer; the audit append is scripted. Time skipping needs
// Temporal's Java test server, which is not installed here (and never downloaded), so the
// time-outs run in real time and are short (1.5 s). The contract rows stay black-box in
// test/http/agent-approvals*.test.ts.
import path from 'node:path';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { Client } from '@temporalio/client';
import { MongoServerError } from 'mongodb';
import { decodeJwt } from 'jose';
import { ROOT } from '../../infra/stack.js';
import { workflowBundle } from '../../workers/workflow-bundle.js';
import { workflowInputAuthClientInterceptor } from '../../core/workflow-input-auth.js';
import { activityGrantInterceptor, makeAuthenticateInputActivity } from '../../activities/input-auth.js';
import { makeApprovalActivities } from '../../activities/approvals.js';
import { AttestationSigner, loadSigningKey } from '../../core/attestation.js';
import type { Store } from '../../core/store.js';
import { DECISION_SIGNAL, approvalClaim, type ApprovalWorkflowInput } from '../../core/approval-workflow.js';
import {
  getApproval,
  insertDecision,
  insertAction,
  insertApproval,
  overdueCount,
  reportOutcome,
  type ApprovalDecisionDoc,
} from '../../persistence/approvals.js';
import type { AppendAuditInput } from '../../activities/audit.js';

const TASK_QUEUE = 'workflow-tier-approval';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- an in-memory store: exactly the operations persistence/approvals.ts and the attestation record use ----
type Doc = Record<string, any>;
function applyUpdate(doc: Doc, update: Doc, inserting: boolean): void {
  for (const [k, v] of Object.entries(update.$set ?? {})) doc[k] = v;
  for (const [k, v] of Object.entries(update.$inc ?? {})) doc[k] = (doc[k] ?? 0) + (v as number);
  if (inserting) for (const [k, v] of Object.entries(update.$setOnInsert ?? {})) doc[k] = v;
}
function memoryStore() {
  const cols = new Map<string, Map<string, Doc>>();
  const col = (name: string) => {
    if (!cols.has(name)) cols.set(name, new Map());
    return cols.get(name)!;
  };
  const onlyId = (filter: Doc) => {
    // The persistence module promises point lookups by _id only: anything else fails the test.
    if (Object.keys(filter).join() !== '_id' || typeof filter._id !== 'string')
      throw new Error(`not a point lookup: ${JSON.stringify(filter)}`);
    return filter._id as string;
  };
  const store = {
    // The insert coalescer's `insert` command (persistence/insert-coalescer.ts): unordered, a
    // duplicate named by index in the reply.
    db: {
      async command(cmd: { insert: string; documents: Doc[] }) {
        const c = col(cmd.insert);
        const writeErrors: Array<{ index: number; code: number }> = [];
        cmd.documents.forEach((doc, index) => {
          if (c.has(doc._id)) writeErrors.push({ index, code: 11000 });
          else c.set(doc._id, structuredClone(doc));
        });
        return { n: cmd.documents.length - writeErrors.length, ...(writeErrors.length ? { writeErrors } : {}) };
      },
    },
    collection(name: string) {
      const c = col(name);
      const upd = (filter: Doc, update: Doc, opts: Doc = {}) => {
        const id = onlyId(filter);
        const existing = c.get(id);
        if (!existing && !opts.upsert) return null;
        const doc = existing ?? { _id: id };
        applyUpdate(doc, update, !existing);
        c.set(id, doc);
        return doc;
      };
      return {
        async insertOne(doc: Doc) {
          if (c.has(doc._id)) throw new MongoServerError({ message: 'E11000 duplicate key', code: 11000 } as any);
          c.set(doc._id, structuredClone(doc));
          return { insertedId: doc._id };
        },
        async findOne(filter: Doc) {
          const d = c.get(onlyId(filter));
          return d ? structuredClone(d) : null;
        },
        async updateOne(filter: Doc, update: Doc, opts?: Doc) {
          upd(filter, update, opts);
          return {};
        },
        async findOneAndUpdate(filter: Doc, update: Doc, opts?: Doc) {
          const d = upd(filter, update, opts);
          return d ? structuredClone(d) : null;
        },
      };
    },
  };
  return { store: store as unknown as Store, cols };
}

const mem = memoryStore();
const audits: AppendAuditInput[] = [];
let env: TestWorkflowEnvironment;
let worker: Worker;
let running: Promise<void>;
let client: Client;
let signer: AttestationSigner;
const INPUT_KEY = randomBytes(32).toString('hex');
const ORG = 'org_workflow_tier';
const AGENT = 'agt_workflow_tier';

beforeAll(async () => {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  signer = new AttestationSigner(
    await loadSigningKey(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()),
    'svc-workflow-tier',
  );
  env = await TestWorkflowEnvironment.createLocal({
    server: { executable: { type: 'existing-path', path: path.join(ROOT, '.tools', 'bin', 'temporal') } },
  });
  worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: {
      ...makeAuthenticateInputActivity(INPUT_KEY),
      ...makeApprovalActivities({ store: mem.store, signer }),
      async appendAuditActivity(req: AppendAuditInput) {
        audits.push(req);
        return { log_id: `log_${req.workflow_id}`, seq: audits.length };
      },
    },
    interceptors: { activity: [activityGrantInterceptor(INPUT_KEY)] },
  });
  running = worker.run();
  client = new Client({
    connection: env.connection,
    interceptors: { workflow: [workflowInputAuthClientInterceptor(INPUT_KEY)] },
  });
}, 240_000);

afterAll(async () => {
  worker?.shutdown();
  await running?.catch(() => undefined);
  await env?.teardown();
});

let nextSeq = 1;
/** A pending approval and its action in the store (as the API writes them), and its workflow started. */
async function park(timeoutMs: number, outcomeTimeoutMs = 60_000, decidedAtStart?: 'approve') {
  const seq = nextSeq++;
  const actionId = `acn_${randomBytes(16).toString('hex')}`;
  const input: ApprovalWorkflowInput = {
    org_id: ORG,
    agent_id: AGENT,
    agent_num: 7,
    approval_id: `apr_${seq}`,
    seq,
    action_id: actionId,
    tool: 'send_email',
    timeout_ms: timeoutMs,
    outcome_timeout_ms: outcomeTimeoutMs,
  };
  const now = new Date();
  await insertAction(mem.store, {
    _id: `${AGENT}:${actionId}`,
    action_id: actionId,
    agent_id: AGENT,
    org_id: ORG,
    tool: 'send_email',
    state: 'pending_approval',
    approval_id: input.approval_id,
    workflow_id: 'agent-tool-x',
    created_at: now,
    outcome: null,
    overdue_flagged_at: null,
  });
  await insertApproval(mem.store, {
    _id: `${AGENT}:${seq}`,
    approval_id: input.approval_id,
    seq,
    agent_id: AGENT,
    agent_num: 7,
    org_id: ORG,
    tool: 'send_email',
    action_id: actionId,
    workflow_id: `approval-${ORG}-${AGENT}-${seq}-${randomUUID()}`,
    request_workflow_id: 'agent-tool-x',
    request_audit_log_id: 'log_x',
    risk_score: 0.4,
    reasons: [],
    state: 'pending',
    timeout_seconds: timeoutMs / 1000,
    requested_at: now,
    expires_at: new Date(now.getTime() + timeoutMs),
    decided_at: null,
    decided_by: null,
    reason: null,
    attestation: null,
    decision_audit_log_id: null,
  });
  const doc = (await getApproval(mem.store, AGENT, seq))!;
  const options = { args: [input] as [ApprovalWorkflowInput], taskQueue: TASK_QUEUE, workflowId: doc.workflow_id };
  if (decidedAtStart) {
    // The decision is recorded and its signal delivered with the start: the run's first task sees both.
    await insertDecision(mem.store, {
      _id: `${AGENT}:${seq}`,
      decision: decidedAtStart,
      reason: `${decidedAtStart} because`,
      decided_by: 'usr_owner',
      decided_by_key_id: 'key_1',
      decided_at: new Date(),
    } as ApprovalDecisionDoc);
    const handle = await client.workflow.signalWithStart('approvalWorkflow', {
      ...options,
      signal: DECISION_SIGNAL,
      signalArgs: [{ nonce: randomUUID() }],
    });
    return { input, seq, actionId, handle, workflowId: doc.workflow_id };
  }
  const handle = await client.workflow.start('approvalWorkflow', options);
  return { input, seq, actionId, handle, workflowId: doc.workflow_id };
}

/** What the API does on POST …/approvals/{id}: the insert-once decision, then the wake-up signal. */
async function decide(
  p: Awaited<ReturnType<typeof park>>,
  decision: 'approve' | 'deny',
  by = 'usr_owner',
  signal = true,
) {
  const r = await insertDecision(mem.store, {
    _id: `${AGENT}:${p.seq}`,
    decision,
    reason: `${decision} because`,
    decided_by: by,
    decided_by_key_id: 'key_1',
    decided_at: new Date(),
  } as ApprovalDecisionDoc);
  if (r.inserted && signal) await p.handle.signal(DECISION_SIGNAL, { nonce: randomUUID() });
  return r;
}

async function settled(seq: number, ms = 20_000) {
  const until = Date.now() + ms;
  for (;;) {
    const d = await getApproval(mem.store, AGENT, seq);
    if (d && d.state !== 'pending' && d.decision_audit_log_id) return d;
    if (Date.now() > until) throw new Error(`approval ${seq} not settled: ${JSON.stringify(d)}`);
    await sleep(50);
  }
}
const feed = () => [...(mem.cols.get('agent_activity')?.values() ?? [])];
const auditsOf = (workflowId: string) => audits.filter((a) => a.workflow_id === workflowId);

describe('approvalWorkflow (workflow tier)', () => {
  it('approve: settled approved with the decider, an ADMIT attestation (never VERIFIED), one audit entry, one feed item; the outcome reported in time is not flagged', async () => {
    // The outcome window (4 s) only has to outlast this test's own steps up to the report, however loaded the machine.
    const p = await park(30_000, 4000);
    await decide(p, 'approve');
    const d = await settled(p.seq);
    expect(d).toMatchObject({
      state: 'approved',
      decided_by: 'usr_owner',
      reason: 'approve because',
      decision_audit_log_id: `log_${p.workflowId}`,
    });
    const claims = decodeJwt(d.attestation!.token) as any;
    expect(claims.jti).toBe(d.attestation!.id);
    expect(claims.svc.result).toEqual({
      status: 'APPROVED',
      verified: false,
      engine: 'agent-approval',
      confidence: 1,
      admission: 'ADMIT',
    });
    expect(mem.cols.get('attestations')?.get(d.attestation!.id)).toMatchObject({
      org_id: ORG,
      engine: 'agent-approval',
    });
    const [audit, ...more] = auditsOf(p.workflowId);
    expect(more).toHaveLength(0);
    expect(audit).toMatchObject({
      org_id: ORG,
      engine: 'agent-approval',
      input: { query: approvalClaim(p.input, 'approved', d.decided_at!.toISOString()) },
      result: { status: 'APPROVED', admission: 'ADMIT', proof_ref: null, attestation: { id: d.attestation!.id } },
      audit: { user_id: 'usr_owner', key_id: 'key_1' },
    });
    expect(feed().filter((f) => f.kind === 'approval' && f.summary.startsWith(`apr_${p.seq} `))).toHaveLength(1);
    expect(
      (
        await mem.store
          .collection<{ _id: string; state: string }>('agent_actions')
          .findOne({ _id: `${AGENT}:${p.actionId}` })
      )?.state,
    ).toBe('approved');
    expect(await reportOutcome(mem.store, AGENT, p.actionId, 'succeeded', null)).toBe('reported');
    expect(await p.handle.result()).toEqual({
      approval_id: p.input.approval_id,
      state: 'approved',
      audit_log_id: `log_${p.workflowId}`,
      outcome: 'reported',
    });
  }, 60_000);

  it('a decision signalled with the start (before the first workflow task) settles at once, not at the time-out', async () => {
    // Seen in a clean-clone run: the first run of a cold worker got its decision's signal in its
    // first task, counted it before its first wait and slept to the 30 s time-out.
    const started = Date.now();
    const p = await park(30_000, 60_000, 'approve');
    const d = await settled(p.seq, 15_000);
    expect(d).toMatchObject({ state: 'approved', decided_by: 'usr_owner' });
    expect(Date.now() - started).toBeLessThan(15_000); // the time-out is 30 s
    expect(await reportOutcome(mem.store, AGENT, p.actionId, 'succeeded', null)).toBe('reported');
    await p.handle.terminate('test done');
  }, 60_000);

  it('deny: settled denied, attestation BLOCKED, no outcome watch', async () => {
    const p = await park(30_000);
    await decide(p, 'deny', 'usr_admin');
    expect(await p.handle.result()).toEqual({
      approval_id: p.input.approval_id,
      state: 'denied',
      audit_log_id: `log_${p.workflowId}`,
      outcome: 'not_applicable',
    });
    const d = (await getApproval(mem.store, AGENT, p.seq))!;
    expect(d).toMatchObject({ state: 'denied', decided_by: 'usr_admin', reason: 'deny because' });
    expect((decodeJwt(d.attestation!.token) as any).svc.result).toMatchObject({
      status: 'DENIED',
      verified: false,
      admission: 'BLOCKED',
    });
    expect(auditsOf(p.workflowId)[0]).toMatchObject({
      result: { status: 'DENIED', admission: 'BLOCKED' },
      audit: { user_id: 'usr_admin' },
    });
  }, 60_000);

  it('time-out: no decision within the time-out → expired (denied, reason time-out, no decider): fail closed', async () => {
    const started = Date.now();
    const p = await park(1500);
    expect(await p.handle.result()).toMatchObject({ state: 'expired', outcome: 'not_applicable' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    const d = (await getApproval(mem.store, AGENT, p.seq))!;
    expect(d).toMatchObject({ state: 'expired', reason: 'time-out', decided_by: null });
    expect((decodeJwt(d.attestation!.token) as any).svc.result).toMatchObject({
      status: 'EXPIRED',
      admission: 'BLOCKED',
    });
    expect(auditsOf(p.workflowId)[0]).toMatchObject({
      result: { status: 'EXPIRED', admission: 'BLOCKED' },
      audit: { user_id: null, key_id: null },
    });
    // Too late: the time-out's decision is the one that stands.
    expect((await decide(p, 'approve')).inserted).toBe(false);
    expect((await getApproval(mem.store, AGENT, p.seq))!.state).toBe('expired');
  }, 60_000);

  it('double decision: the second is refused by the insert-once record; a second signal changes nothing (one audit entry, one feed item)', async () => {
    const p = await park(30_000);
    expect((await decide(p, 'approve')).inserted).toBe(true);
    const second = await decide(p, 'deny', 'usr_other');
    expect(second.inserted).toBe(false);
    expect(second.doc).toMatchObject({ decision: 'approve', decided_by: 'usr_owner' });
    await p.handle.signal(DECISION_SIGNAL, { nonce: randomUUID() }).catch(() => undefined);
    const d = await settled(p.seq);
    expect(d).toMatchObject({ state: 'approved', decided_by: 'usr_owner' });
    await sleep(500);
    expect(auditsOf(p.workflowId)).toHaveLength(1);
    expect(feed().filter((f) => f.kind === 'approval' && f.summary.startsWith(`apr_${p.seq} `))).toHaveLength(1);
    await p.handle.terminate('test done');
  }, 60_000);

  it('a signal without a recorded decision decides nothing: the approval stays pending, then expires', async () => {
    // 5 s: still pending when looked at, however long the start and the signal take on a loaded machine.
    const p = await park(5000);
    await p.handle.signal(DECISION_SIGNAL, { nonce: 'forged' });
    await sleep(700);
    expect((await getApproval(mem.store, AGENT, p.seq))!.state).toBe('pending');
    expect(await p.handle.result()).toMatchObject({ state: 'expired' });
  }, 60_000);

  it('a decision recorded whose signal was lost stands at the time-out (the time-out does not overwrite it)', async () => {
    // The decision and the outcome report must land before the time-out (4 s, room for a loaded machine) plus 300 ms.
    const p = await park(4000, 300);
    await decide(p, 'approve', 'usr_owner', false);
    await reportOutcome(mem.store, AGENT, p.actionId, 'succeeded', null);
    expect(await p.handle.result()).toMatchObject({ state: 'approved', outcome: 'reported' });
    expect((await getApproval(mem.store, AGENT, p.seq))!).toMatchObject({ state: 'approved', decided_by: 'usr_owner' });
  }, 60_000);
});

describe('actionOutcomeWorkflow (workflow tier)', () => {
  async function admitted(timeoutMs: number) {
    const actionId = `acn_${randomBytes(16).toString('hex')}`;
    await insertAction(mem.store, {
      _id: `${AGENT}:${actionId}`,
      action_id: actionId,
      agent_id: AGENT,
      org_id: ORG,
      tool: 'calculator',
      state: 'admitted',
      approval_id: null,
      workflow_id: 'agent-tool-y',
      created_at: new Date(),
      outcome: null,
      overdue_flagged_at: null,
    });
    const handle = await client.workflow.start('actionOutcomeWorkflow', {
      args: [{ org_id: ORG, agent_id: AGENT, action_id: actionId, tool: 'calculator', outcome_timeout_ms: timeoutMs }],
      taskQueue: TASK_QUEUE,
      workflowId: `action-outcome-${actionId}`,
    });
    return { actionId, handle };
  }

  it('no outcome in time: flagged on the action, in the feed and in the counters (global and per organization)', async () => {
    const before = [await overdueCount(mem.store), await overdueCount(mem.store, ORG)];
    const a = await admitted(1000);
    expect(await a.handle.result()).toEqual({ action_id: a.actionId, outcome: 'unreported' });
    const action = await mem.store
      .collection<{ _id: string; overdue_flagged_at: Date | null; outcome: unknown }>('agent_actions')
      .findOne({ _id: `${AGENT}:${a.actionId}` });
    expect(action?.overdue_flagged_at).toBeInstanceOf(Date);
    expect([await overdueCount(mem.store), await overdueCount(mem.store, ORG)]).toEqual([
      before[0]! + 1,
      before[1]! + 1,
    ]);
    expect(feed().filter((f) => f.kind === 'outcome_overdue' && f.summary.includes(a.actionId))).toMatchObject([
      { status: 'UNREPORTED', tool: 'calculator', agent_id: AGENT },
    ]);
  }, 30_000);

  it('an outcome reported in time: not flagged, nothing counted', async () => {
    const before = await overdueCount(mem.store);
    const a = await admitted(4000); // "in time" must hold on a loaded machine: the report follows the start at once
    expect(await reportOutcome(mem.store, AGENT, a.actionId, 'failed', 'smtp said no')).toBe('reported');
    expect(await reportOutcome(mem.store, AGENT, a.actionId, 'succeeded', null)).toBe('already_reported');
    expect(await a.handle.result()).toEqual({ action_id: a.actionId, outcome: 'reported' });
    expect(await overdueCount(mem.store)).toBe(before);
    expect(
      (
        await mem.store
          .collection<{ _id: string; overdue_flagged_at: Date | null; outcome: unknown }>('agent_actions')
          .findOne({ _id: `${AGENT}:${a.actionId}` })
      )?.outcome,
    ).toMatchObject({ status: 'failed', detail: 'smtp said no' });
  }, 30_000);
});
