// Workflow tier: leakRevocationWorkflow (workflows/leak-revocation.ts) with scripted activities.
// Proves: revocation first and retried until it succeeds (an outage only delays it); then per key
// revoked, the audit event and the e-mail side by side, each with its own outcome (a failed
// e-mail or audit never undoes a revocation; MailNotConfigured is skipped, NoRecipient failed,
// neither retried); the feedback step only when asked (FeedbackNotConfigured final, other
// failures retried); and the facts each step gets (match preview, type, url, source).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { leakRevocationWorkflow, type LeakRevocationInput } from '../../workflows/leak-revocation.js';
import type { RevokedKey } from '../../activities/leak-revocation.js';
import { startWorkflowTier, type WorkflowTier } from './harness.js';
import { ScriptedActivities } from './stubs/scripted-activities.js';

const key = (index: number): RevokedKey => ({
  index,
  key_id: `key_${index}`,
  org_id: 'org_leak',
  user_id: 'user_1',
  name: `ci key ${index}`,
  preview: `svc_live_****${index}`,
  revoked_at: '2026-01-01T00:00:00.000Z',
});

/** Unscripted: match 0 and 2 are active keys (revoked now), match 1 is unknown. */
const acts = new ScriptedActivities({
  revokeLeakedKeysActivity: () => ({
    outcomes: [
      { index: 0, outcome: 'revoked', key_id: 'key_0' },
      { index: 1, outcome: 'unknown', key_id: null },
      { index: 2, outcome: 'revoked', key_id: 'key_2' },
    ],
    revoked: [key(0), key(2)],
    revoked_at: '2026-01-01T00:00:00.000Z',
  }),
  recordLeakRevocationActivity: () => undefined,
  notifyLeakRevocationActivity: () => ({ sent: true, duplicate: false }),
  sendLeakFeedbackActivity: () => ({ sent: true }),
});
let tier: WorkflowTier;

beforeAll(async () => {
  tier = await startWorkflowTier('workflow-tier-leak', acts.activities());
}, 240_000);
afterAll(async () => {
  await tier?.stop();
});

const match = (index: number) => ({
  index,
  lookup_digest: `digest_${index}`,
  token_sha256: `${index}`.repeat(64),
  preview: `svc_live_…${index}`,
  type: 'svc_api_key',
  url: index === 0 ? 'https://example.invalid/commit/1' : null,
  source: index === 0 ? 'commit' : null,
});
const input = (id: string, feedback = true): LeakRevocationInput => ({
  delivery_id: id,
  received_at: '2026-01-01T00:00:00.000Z',
  matches: [match(0), match(1), match(2)],
  feedback,
});
const run = (id: string, req: LeakRevocationInput) =>
  tier.client.workflow.execute(leakRevocationWorkflow, {
    args: [req],
    taskQueue: tier.taskQueue,
    workflowId: `leak-revocation-${id}`,
  });
const wf = (id: string) => `leak-revocation-${id}`;

describe('leakRevocationWorkflow (workflow tier)', () => {
  it('revokes by digest, then audits and mails each revoked key and sends the feedback', async () => {
    const out = await run('all-ok', input('all-ok'));
    expect(out).toEqual({
      delivery_id: 'all-ok',
      outcomes: [
        { index: 0, outcome: 'revoked', key_id: 'key_0' },
        { index: 1, outcome: 'unknown', key_id: null },
        { index: 2, outcome: 'revoked', key_id: 'key_2' },
      ],
      revoked_at: '2026-01-01T00:00:00.000Z',
      audit: { key_0: 'done', key_2: 'done' },
      notifications: { key_0: 'done', key_2: 'done' },
      feedback: 'done',
    });
    const id = wf('all-ok');
    expect(acts.log.of(id)[0]!.activity).toBe('revokeLeakedKeysActivity');
    expect(acts.log.of(id, 'revokeLeakedKeysActivity')[0]!.input).toEqual({
      delivery_id: 'all-ok',
      workflow_id: id,
      matches: [0, 1, 2].map((i) => ({ index: i, lookup_digest: `digest_${i}` })),
    });
    const facts = acts.log.of(id, 'recordLeakRevocationActivity').map((c) => c.input as Record<string, unknown>);
    expect(facts.find((f) => (f.key as RevokedKey).key_id === 'key_0')).toEqual({
      delivery_id: 'all-ok',
      workflow_id: id,
      key: key(0),
      preview: 'svc_live_…0',
      token_type: 'svc_api_key',
      url: 'https://example.invalid/commit/1',
      source: 'commit',
    });
    expect(acts.log.of(id, 'notifyLeakRevocationActivity')).toHaveLength(2);
    expect(acts.log.of(id, 'sendLeakFeedbackActivity')[0]!.input).toEqual({
      delivery_id: 'all-ok',
      matches: [match(0), match(1), match(2)],
      outcomes: [
        { index: 0, outcome: 'revoked' },
        { index: 1, outcome: 'unknown' },
        { index: 2, outcome: 'revoked' },
      ],
    });
  });

  it('revocation is retried until it succeeds (an outage only delays it)', async () => {
    acts.script(wf('revoke-outage'), 'revokeLeakedKeysActivity', { failAttempts: 3 });
    const out = await run('revoke-outage', input('revoke-outage', false));
    expect(acts.attempts(wf('revoke-outage'), 'revokeLeakedKeysActivity')).toBe(4);
    expect(out.audit).toEqual({ key_0: 'done', key_2: 'done' });
  });

  it('nothing revoked: no audit event, no e-mail; feedback not asked for is skipped', async () => {
    acts.script(wf('none'), 'revokeLeakedKeysActivity', {
      result: { outcomes: [{ index: 0, outcome: 'already_revoked', key_id: 'key_0' }], revoked: [], revoked_at: null },
    });
    const out = await run('none', input('none', false));
    expect(out).toMatchObject({ revoked_at: null, audit: {}, notifications: {}, feedback: 'skipped' });
    expect(acts.log.of(wf('none')).map((c) => c.activity)).toEqual(['revokeLeakedKeysActivity']);
  });

  it('a failed audit event or e-mail is reported per key and never undoes the revocation', async () => {
    acts.script(wf('audit-chain'), 'recordLeakRevocationActivity', { failType: 'AuditChainError' });
    acts.script(wf('audit-chain'), 'notifyLeakRevocationActivity', { failType: 'NoRecipient' });
    const out = await run('audit-chain', input('audit-chain', false));
    expect(out).toMatchObject({
      outcomes: [{ outcome: 'revoked' }, { outcome: 'unknown' }, { outcome: 'revoked' }],
      audit: { key_0: 'failed', key_2: 'failed' },
      notifications: { key_0: 'failed', key_2: 'failed' },
    });
    // Both failure types are final: one attempt per key.
    expect(acts.attempts(wf('audit-chain'), 'recordLeakRevocationActivity')).toBe(2);
    expect(acts.attempts(wf('audit-chain'), 'notifyLeakRevocationActivity')).toBe(2);
  });

  it('mail not configured is skipped (not retried); a duplicate counts as sent; an SMTP hiccup is retried', async () => {
    acts.script(wf('mail-off'), 'notifyLeakRevocationActivity', { failType: 'MailNotConfigured' });
    expect((await run('mail-off', input('mail-off', false))).notifications).toEqual({
      key_0: 'skipped',
      key_2: 'skipped',
    });
    expect(acts.attempts(wf('mail-off'), 'notifyLeakRevocationActivity')).toBe(2);

    acts.script(wf('mail-dup'), 'notifyLeakRevocationActivity', {
      result: (req: unknown) => ({ sent: false, duplicate: (req as { key: RevokedKey }).key.key_id === 'key_0' }),
    });
    expect((await run('mail-dup', input('mail-dup', false))).notifications).toEqual({
      key_0: 'done',
      key_2: 'skipped',
    });

    acts.script(wf('mail-flaky'), 'notifyLeakRevocationActivity', { failAttempts: 1 });
    expect((await run('mail-flaky', input('mail-flaky', false))).notifications).toEqual({
      key_0: 'done',
      key_2: 'done',
    });
    expect(acts.attempts(wf('mail-flaky'), 'notifyLeakRevocationActivity')).toBe(4);
  });

  it('feedback: not configured is final and failed; not sent is skipped; a hiccup is retried', async () => {
    acts.script(wf('fb-off'), 'sendLeakFeedbackActivity', { failType: 'FeedbackNotConfigured' });
    expect((await run('fb-off', input('fb-off'))).feedback).toBe('failed');
    expect(acts.attempts(wf('fb-off'), 'sendLeakFeedbackActivity')).toBe(1);

    acts.script(wf('fb-unsent'), 'sendLeakFeedbackActivity', { result: { sent: false } });
    expect((await run('fb-unsent', input('fb-unsent'))).feedback).toBe('skipped');

    acts.script(wf('fb-flaky'), 'sendLeakFeedbackActivity', { failAttempts: 1 });
    expect((await run('fb-flaky', input('fb-flaky'))).feedback).toBe('done');
    expect(acts.attempts(wf('fb-flaky'), 'sendLeakFeedbackActivity')).toBe(2);
  });
});
