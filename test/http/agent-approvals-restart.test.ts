// Durable approvals survive restarts (issue 26 part 2, docs/approvals.md), on a worker and an API
// of their own (a task queue of their own), so the file runs beside the others: an approval is
// parked, the worker is SIGKILLed and the API restarted; one approval is decided while no worker
// runs (recorded: 202), another after the worker is back; the agent's waits return `approved`.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { newTenant, type Member } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { startExtraWorker } from './extra-worker.js';

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, text };
}

describe('approvals across a worker crash and an API restart (a worker and an API of their own)', () => {
  let owner: Member;
  let worker: ManagedProcess;
  let api: ExtraApi;
  beforeAll(async () => {
    const queue = `svc-approvals-restart-${randomUUID()}`;
    owner = await newTenant('enterprise');
    [worker, api] = await Promise.all([
      startExtraWorker('worker-approvals-restart', { SVC_TASK_QUEUE: queue }),
      startExtraApi('api-approvals-restart', { SVC_TASK_QUEUE: queue }),
    ]);
  }, 240_000);
  afterAll(async () => {
    await Promise.allSettled([worker?.stop(), api?.proc.stop()]);
  });

  it('a parked approval survives SIGKILL of the worker and a restart of the API; approved after, the agent’s wait returns approved', async () => {
    const key = { 'x-api-key': owner.key };
    const reg = await call(api.url, 'POST', '/agents/register', key, {
      name: 'durable',
      permissions: { require_approval: ['calculator'], approval_timeout_seconds: 900 },
    });
    expect(reg.status, reg.text).toBe(200);
    const tok = { 'x-agent-token': reg.body.agent_token as string };
    const id = reg.body.id as number;
    const park = async () => {
      const r = await call(api.url, 'POST', `/agents/${id}/tools/calculator`, tok, {
        arguments: { expression: '6 * 7' },
      });
      expect(r.status, r.text).toBe(202);
      return r.body.approval_id as string;
    };
    const [first, second] = [await park(), await park()];

    await worker.kill9();
    await api.proc.stop();
    await api.proc.start();
    // No worker: the decision is recorded (202, still pending); a second decision is already refused.
    const early = await call(api.url, 'POST', `/agents/${id}/approvals/${first}`, key, {
      decision: 'approve',
      reason: 'approved while the worker was down',
    });
    expect(early.status, early.text).toBe(202);
    expect(early.body).toMatchObject({ approval_id: first, state: 'pending' });
    const twice = await call(api.url, 'POST', `/agents/${id}/approvals/${first}`, key, {
      decision: 'deny',
      reason: 'again',
    });
    expect(twice.status).toBe(409);
    expect(twice.body.detail).toBe('Approval already decided: approved. A decided approval cannot be decided again.');
    await worker.start();

    const waitFirst = await call(api.url, 'GET', `/agents/${id}/approvals/${first}?wait=60`, tok);
    expect(waitFirst.status).toBe(200);
    expect(waitFirst.body).toMatchObject({
      state: 'approved',
      decided_by: owner.userId,
      reason: 'approved while the worker was down',
    });
    expect(waitFirst.body.attestation.token).toMatch(/^ey/);

    const waiting = call(api.url, 'GET', `/agents/${id}/approvals/${second}?wait=60`, tok);
    const decided = await call(api.url, 'POST', `/agents/${id}/approvals/${second}`, key, {
      decision: 'approve',
      reason: 'after the restart',
    });
    expect(decided.status, decided.text).toBe(200);
    const waitSecond = await waiting;
    expect(waitSecond.status).toBe(200);
    expect(waitSecond.body).toMatchObject({ state: 'approved', decided_by: owner.userId, reason: 'after the restart' });
  }, 300_000);
});
