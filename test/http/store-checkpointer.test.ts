// The embedded store's WAL is checkpointed off the commits (issue 22, session 16;
// infra/ferret-checkpointer.ts), through the real stack: after verifications written by the API
// and the worker, FerretDB's WAL is copied into the store file within a few seconds, by the
// supervisor's checkpointer (FerretDB's own connections now checkpoint only past a ~400 MiB
// backstop). Observed from the WAL index (the `-shm` file, read only: a checkpoint by this test
// would hide the one under test): its backfill count reaches the WAL's last frame.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/stack.js';
import { newTenant, post } from './helpers.js';

const OFFSET = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0);
const SHM = path.join(ROOT, '.data', OFFSET ? `test-${OFFSET}` : 'test', 'ferretdb', 'svc.sqlite-shm');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** SQLite's WAL index header: mxFrame (last valid frame) at byte 16, nBackfill (frames copied into the file) at 96. */
function walIndex(): { mxFrame: number; nBackfill: number } {
  const b = readFileSync(SHM);
  return { mxFrame: b.readUInt32LE(16), nBackfill: b.readUInt32LE(96) };
}

describe('store checkpoints off the request path', () => {
  it('the WAL written by verifications is copied into the store file within seconds', async () => {
    const t = await newTenant();
    for (let i = 0; i < 5; i++) {
      const r = await post(
        '/verify/math',
        { expression: `(x+${i + 11})^2 = x^2 + ${2 * (i + 11)}*x + ${(i + 11) ** 2}` },
        { 'x-api-key': t.key },
      );
      expect(r.status).toBe(200);
      expect(r.body.status).toBe('VERIFIED');
    }
    expect(existsSync(SHM)).toBe(true);
    const written = walIndex();
    expect(written.mxFrame).toBeGreaterThan(0);
    // Other files' writes may go on (one shared stack): the frames up to ours must be copied, or the
    // WAL restarted (which SQLite does only once every frame is in the file).
    const copied = (w: { mxFrame: number; nBackfill: number }) =>
      w.nBackfill >= written.mxFrame || w.mxFrame < written.mxFrame;
    const end = Date.now() + 10_000;
    let now = walIndex();
    while (!copied(now) && Date.now() < end) {
      await sleep(200);
      now = walIndex();
    }
    expect(copied(now), JSON.stringify({ written, now })).toBe(true);
  });
});
