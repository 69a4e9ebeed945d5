// POST /webhooks/secret-scanning while a stack component is down: the SMTP sink stopped. It stops
// a shared process, so the file runs alone (vitest.config.ts); the row with the worker down shares
// the one stop of the worker in worker-stopped.serial.test.ts (session 18), the other webhook rows
// are in secret-scanning.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, newTenant } from './helpers.js';
import {
  closeTemporal,
  deliver,
  keyDoc,
  keyServer,
  mailsFor,
  match,
  newSigningKey,
  openTemporal,
  REVOKED_WITHIN_MS,
  revokedAt,
  sha256,
  signed,
  startFixture,
  stopFixture,
  temporal,
  waitFor,
} from './secret-scanning-fixture.js';

describe('POST /webhooks/secret-scanning with a component down', () => {
  const current = newSigningKey();

  beforeAll(async () => {
    keyServer.published.push(current);
    await startFixture();
    await openTemporal();
  });

  afterAll(async () => {
    await stopFixture();
    await closeTemporal();
  });

  it('with the SMTP server down, still revokes at once, and the e-mail arrives once after it is back', async () => {
    const t = await newTenant();
    await control('stop', 'smtp');
    let restarted = false;
    try {
      const body = JSON.stringify([match(t.key)]);
      const res = await deliver(body, signed(body, current));
      expect(res.status).toBe(200);
      const seen = await revokedAt(t.keyId);
      expect(seen - res.at).toBeLessThan(REVOKED_WITHIN_MS);
      // Until the e-mail activity has failed on the stopped sink and is retrying (session 18: a
      // poll of the run's pending activity instead of a 3 s sleep; its next attempt is then 2 s
      // away, not 4).
      const handle = temporal().workflow.getHandle(`leak-revocation-${sha256(body)}`);
      const retrying = await waitFor(
        'a failed e-mail attempt',
        async () =>
          (await handle.describe()).raw.pendingActivities?.find(
            (a) => a.activityType?.name === 'notifyLeakRevocationActivity' && (a.attempt ?? 0) >= 2,
          ),
        30_000,
        100,
      );
      expect(retrying.lastFailure?.message).toBeTruthy();
      expect(mailsFor(t.keyId)).toHaveLength(0);
      expect((await keyDoc(t.keyId))?.active).toBe(false); // never rolled back
      expect((await handle.describe()).status.name).toBe('RUNNING');
      await control('start', 'smtp');
      restarted = true;
      const mails = await waitFor(
        'e-mail after the sink is back',
        async () => (mailsFor(t.keyId).length > 0 ? mailsFor(t.keyId) : null),
        90_000,
        250,
      );
      expect(mails).toHaveLength(1);
      await waitFor(
        'workflow completion',
        async () =>
          (
            await temporal()
              .workflow.getHandle(`leak-revocation-${sha256(body)}`)
              .describe()
          ).status.name === 'COMPLETED',
        10_000,
        200,
      );
      expect(mailsFor(t.keyId)).toHaveLength(1);
    } finally {
      if (!restarted) await control('start', 'smtp');
    }
  }, 150_000);
});
