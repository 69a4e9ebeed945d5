// The store's WAL stays bounded under continuous load (issue 22, session 17;
// infra/ferret-checkpointer.ts, docs/performance.md "Session 17: the WAL under continuous load").
// Session 16's checkpointer copied the WAL into the store file every second but never restarted
// it, so under continuous load the file only grew (28–320 MiB) and stayed at its largest size. Now
// a pass empties it (a TRUNCATE checkpoint, after every frame is synced into the store file) when
// it passes WAL_LIMIT_BYTES or when the store is quiet. Black box, through the real stack:
// continuous 100-item batch jobs from three clients, the WAL's size sampled from its file; then a
// SIGKILL of the store right after its WAL was emptied loses nothing. It kills the shared stack's
// store and needs the store quiet, so it runs alone (*.serial).
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { WAL_LIMIT_BYTES } from '../../infra/ferret-checkpointer.js';
import { WAL_AUTOCHECKPOINT_BACKSTOP } from '../../infra/ferret-sqlite.js';
import { ROOT } from '../../infra/stack.js';
import { apiUrl, control, get, newTenant, type Member } from './helpers.js';
import { call, sleep, waitCompleted } from './batch-fixtures.js';

const OFFSET = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0);
const WAL = path.join(ROOT, '.data', OFFSET ? `test-${OFFSET}` : 'test', 'ferretdb', 'svc.sqlite-wal');
const walSize = () => (existsSync(WAL) ? statSync(WAL).size : 0);
const key = (k: string) => ({ 'x-api-key': k });

/** 100 math items, a quarter of them proven identities (distinct per job, so every proof is new). */
const items = (job: number) =>
  Array.from({ length: 100 }, (_, i) => ({
    query:
      i % 4 === 0
        ? `(w+${job * 100 + i})^2 = w^2 + ${2 * (job * 100 + i)}*w + ${(job * 100 + i) ** 2}`
        : `${i} + ${job}`,
    type: 'math',
  }));

describe('the store WAL under continuous load (session 17)', () => {
  let t: Member;
  const done: Array<{ id: string; body: any }> = [];
  afterAll(async () => {
    await control('start', 'ferretdb').catch(() => undefined);
  });

  it('continuous batch load: the WAL is emptied while the load runs or once it stops, and stays bounded', async () => {
    t = await newTenant('enterprise');
    const sizes: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        sizes.push(walSize());
        await sleep(100);
      }
    })();
    let job = 0;
    // 12 s (session 17 lead: 25 before; the suite's serial group): with the 64 MiB limit the quiet TRUNCATE is what empties it.
    const end = Date.now() + 12_000;
    await Promise.all(
      Array.from({ length: 3 }, async () => {
        while (Date.now() < end) {
          const n = job++;
          const r = await call(apiUrl(), 'POST', '/verify/batch', t.key, { items: items(n) });
          // 200 with the finished job when it completes within the POST's wait, else 202 to poll.
          expect([200, 202], String(r.body?.detail)).toContain(r.status);
          const body =
            r.body.status === 'completed' ? r.body : await waitCompleted(apiUrl(), t.key, r.body.job_id, 120_000);
          done.push({ id: r.body.job_id, body });
        }
      }),
    );
    const loadSamples = sizes.length;
    // Quiet now: within a few passes the WAL is emptied (session 16 left it at its largest size).
    const quietEnd = Date.now() + 10_000;
    while (walSize() > 0 && Date.now() < quietEnd) await sleep(100);
    sampling = false;
    await sampler;
    const peak = Math.max(...sizes);
    const emptiedUnderLoad = sizes.slice(1, loadSamples).some((s, i) => s === 0 && sizes[i]! > 0);
    const info = JSON.stringify({ jobs: done.length, peakMiB: peak / 2 ** 20, emptiedUnderLoad, now: walSize() });
    expect(done.length, info).toBeGreaterThanOrEqual(3);
    expect(peak, info).toBeGreaterThan(0);
    console.log(`store-wal-bound: ${info}`);
    expect(walSize(), info).toBe(0);
    // Under the load alone the peak depends on the machine's write rate (session 18): the lead's
    // machine ran 134 jobs in the 12 s, peak 92 MiB, emptied under load; CI's ran 159 and reached
    // 168 MiB with no TRUNCATE getting its moment (readers still on old frames),
    // and bench/store-wal.ts at 24 lanes plateaus at SQLite's own backstop (~400 MiB). Waiting
    // longer for the lock was measured and rejected (docs/performance.md "Session 18: the WAL at
    // saturating write rates"). What holds at any rate: never past the backstop, empty once quiet.
    expect(peak, info).toBeLessThanOrEqual(WAL_AUTOCHECKPOINT_BACKSTOP * 4096 + WAL_LIMIT_BYTES);
    for (const d of done) {
      expect(d.body.status).toBe('completed');
      expect(d.body.completed_items).toBe(100);
      expect(d.body.failed_items).toBe(0);
    }
  }, 180_000);

  it('a SIGKILL of the store right after its WAL was emptied loses nothing: every job reads back the same', async () => {
    expect(done.length).toBeGreaterThan(0);
    expect(walSize()).toBe(0);
    await control('kill9', 'ferretdb');
    await control('start', 'ferretdb');
    const deadline = Date.now() + 60_000;
    for (;;) {
      const r = await get(`/verify/batch/${done[0]!.id}`, key(t.key)).catch(() => null);
      if (r?.status === 200) break;
      if (Date.now() > deadline) throw new Error('the store did not serve again within 60 s');
      await sleep(500);
    }
    for (const d of done) {
      const r = await get(`/verify/batch/${d.id}`, key(t.key));
      expect(r.status).toBe(200);
      expect(r.body).toEqual(d.body);
    }
  }, 120_000);
});
