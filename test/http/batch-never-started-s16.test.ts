// Session 16 (issue 22): a job whose API process died between its admission and its workflow's
// start. Since session 15 the admission inserts the job document beside its slot write, before
// the workflow starts; a process killed in between leaves a `running` job with no workflow whose
// POST never answered (so no client has its id), holding a slot until the store was full and an
// admission asked for a repair. The background sweep (api/batch-jobs.ts sweepNeverStarted, every
// half of SVC_BATCH_ORPHAN_SECONDS) now deletes it and frees its slot into the release queue.
//
// The window is made wide and certain: the API to be killed reaches Temporal through a TCP relay
// of this file that stops forwarding before the POST, so the workflow's start waits (up to its
// 3 s deadline, after which the API would undo the admission itself); the row finds the job
// document and SIGKILLs the API inside that wait. A second API process with a 10 s deadline runs
// the sweep.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, Connection, WorkflowNotFoundError } from '@temporalio/client';
import { startExtraApi, type ExtraApi } from './extra-api.js';
import { call, hundredMathItems, sleep, waitCompleted } from './batch-fixtures.js';
import { apiUrl, db, newTenant, stackEnv } from './helpers.js';

/** A TCP relay to `target` that can stop forwarding what its clients send (the requests wait in the socket). */
async function relay(target: string) {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  let held = false;
  const clients = new Set<net.Socket>();
  const server = net.createServer((client) => {
    clients.add(client);
    const upstream = net.connect(port, host);
    // A connection opened while held (a gRPC channel reconnecting) forwards nothing either: pipe()
    // resumes a paused stream, so it is not piped at all (clean clone 70: a POST reached Temporal
    // through a connection opened after hold() and answered 202).
    if (held) client.pause();
    else client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      clients.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    hold() {
      held = true;
      for (const c of clients) {
        c.unpipe();
        c.pause();
      }
    },
    close: () => {
      for (const c of clients) c.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}

type SlotDoc = { _id: string; gen: number; state: string; job_id: string | null };

let conn: Connection;
let relayed: Awaited<ReturnType<typeof relay>>;
let doomed: ExtraApi;
let sweeper: ExtraApi;
beforeAll(async () => {
  conn = await Connection.connect({ address: stackEnv().TEMPORAL_ADDRESS as string });
  relayed = await relay(stackEnv().TEMPORAL_ADDRESS as string);
  // Plain API processes (no in-process worker): their jobs run on the stack's worker.
  [doomed, sweeper] = await Promise.all([
    startExtraApi('api-batch-doomed', { TEMPORAL_ADDRESS: relayed.address, SVC_BATCH_WAIT_SECONDS: '0' }),
    startExtraApi('api-batch-sweeper', { SVC_BATCH_ORPHAN_SECONDS: '10' }),
  ]);
}, 240_000);
afterAll(async () => {
  await Promise.allSettled([doomed?.proc.stop(), sweeper?.proc.stop()]);
  await relayed?.close();
  await conn?.close();
});

describe('batch: a job never started (its API died between admission and start) is swept (session 16)', () => {
  it('SIGKILL in the window: the job is `running` with no workflow; within the deadline plus one sweep it is deleted (GET 404), its slot is free in the release queue, and the organization submits again', async () => {
    const t = await newTenant('enterprise');
    type JobDoc = { _id: string; org_id: string; workflow_id: string; status: string; slot: number };
    const jobs = (await db()).collection<JobDoc>('batch_jobs');
    const slots = (await db()).collection<SlotDoc>('batch_slots');
    relayed.hold();
    // Not awaited: the process dies under it.
    const pending = call(doomed.url, 'POST', '/verify/batch', t.key, { items: hundredMathItems('s') }).catch(
      () => null,
    );
    let job: JobDoc | null = null;
    for (let i = 0; i < 2000 && !job; i++) {
      job = await jobs.findOne({ org_id: t.orgId });
      if (!job) await sleep(10);
    }
    expect(job).not.toBeNull();
    await doomed.proc.kill9();
    expect(await pending).toBeNull(); // the POST never answered
    // What the kill left: the job running, its slot active naming it, and no workflow.
    expect(await jobs.findOne({ _id: job!._id })).toMatchObject({ status: 'running' });
    const held = await slots.findOne({ _id: String(job!.slot) });
    expect(held).toMatchObject({ state: 'active', job_id: job!._id });
    const wf = new Client({ connection: conn }).workflow.getHandle(job!.workflow_id);
    await expect(wf.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);

    // The sweeper's deadline is 10 s from the slot's claim, and it sweeps every 5 s.
    const killedAt = Date.now();
    let gone = false;
    while (!gone && Date.now() - killedAt < 60_000) {
      gone = (await jobs.findOne({ _id: job!._id })) === null;
      if (!gone) await sleep(500);
    }
    expect(gone).toBe(true);
    const sweptMs = Date.now() - killedAt;
    // The sweeper deletes the job, then frees the slot and queues it, then logs: the job can be
    // seen gone before the rest is written (session 19: a read landed between the two under load).
    // Its log line says the repair is done.
    const logged = () => sweeper.proc.logContains('batch job never started: deleted, its slot freed');
    for (let i = 0; i < 100 && !logged(); i++) await sleep(100);
    expect(logged()).toBe(true);
    expect(await (await db()).collection<{ _id: string }>('batch_requests').findOne({ _id: job!._id })).toBeNull();
    // Freed at the next generation, and queued for the next admission that needs it.
    const freed = await slots.findOne({ _id: String(job!.slot) });
    expect(freed).toMatchObject({ state: 'free', job_id: null, gen: held!.gen + 1 });
    const queued = await (
      await db()
    )
      .collection<{ slot: number; gen: number; state: string }>('batch_slot_queue')
      .findOne({ slot: job!.slot, gen: held!.gen + 1 });
    expect(queued).toMatchObject({ state: 'free' });
    // Never accepted: the contract's GET answers as for any job that does not exist.
    const got = await call(apiUrl(), 'GET', `/verify/batch/${job!._id}`, t.key);
    expect(got.status).toBe(404);
    expect(got.body).toEqual({ detail: 'Batch job not found', code: 'not_found', request_id: expect.any(String) });
    await expect(wf.describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    console.log(`[batch-never-started-s16] swept ${sweptMs} ms after the kill (deadline 10 s from the claim)`);

    // The organization's next job runs as usual.
    const again = await call(sweeper.url, 'POST', '/verify/batch', t.key, { items: hundredMathItems('s') });
    expect([200, 202]).toContain(again.status);
    const done =
      again.body.status === 'completed' ? again.body : await waitCompleted(apiUrl(), t.key, again.body.job_id);
    expect(done).toMatchObject({ status: 'completed', total_items: 100, completed_items: 100, failed_items: 0 });
  }, 180_000);
});
