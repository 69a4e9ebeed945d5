// Activities of the leaked-key revocation workflow (workflows/leak-revocation.ts). None of them
// receives a raw token: keys are found by their HMAC lookup digest; notices carry the masked
// preview only. docs/secret-scanning.md.
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import type nodemailer from 'nodemailer';
import type { Store } from '../core/store.js';
import { Accounts, type ApiKeyDoc, type UserDoc } from '../persistence/accounts.js';
import { findLeakNotice, recordLeakNotice } from '../persistence/accounts.js';
import { AuditLog } from '../persistence/audit.js';
import { AuditChainError } from '../core/audit-chain.js';
import { auditLogId } from './audit.js';
import { logger } from '../core/logger.js';
import {
  feedbackItems,
  feedbackSealKey,
  rawFeedbackAllowed,
  type LeakConfig,
  type LeakMatchRef,
  type LeakOutcome,
} from '../core/secret-scanning.js';

const log = logger('leak-revocation');

export const SECRET_LEAK_EVENT = 'SECRET_LEAK_AUTO_REVOKED';

/** The key fields a revocation adds (besides active=false and revoked_at). */
type LeakKeyDoc = ApiKeyDoc & { revoked_reason?: string; revoked_by_delivery?: string };

export interface RevokeInput {
  delivery_id: string;
  workflow_id: string;
  matches: { index: number; lookup_digest: string }[];
}

export interface RevokedKey {
  index: number;
  key_id: string;
  org_id: string;
  user_id: string;
  name: string;
  preview: string;
  revoked_at: string;
}

export interface RevokeOutput {
  outcomes: { index: number; outcome: LeakOutcome; key_id: string | null }[];
  /** Keys this delivery revoked (an activity retry still reports its own earlier revocation). */
  revoked: RevokedKey[];
  revoked_at: string | null;
}

export interface LeakFacts {
  delivery_id: string;
  workflow_id: string;
  key: RevokedKey;
  preview: string;
  token_type: string;
  url: string | null;
  source: string | null;
}

export interface LeakActivityDeps {
  store: Store;
  auditSecret: string | undefined;
  config: LeakConfig;
  /** Overridable for tests. */
  fetchImpl?: typeof fetch;
}

export function makeLeakRevocationActivities(deps: LeakActivityDeps) {
  // Only digest-based lookups are used here: the lookup secret is not needed.
  const accounts = new Accounts(deps.store, deps.config.lookupSecret ?? '');
  const auditLog = new AuditLog(deps.store);
  const sealKey = deps.config.lookupSecret ? feedbackSealKey(deps.config.lookupSecret) : null;

  async function revokeLeakedKeysActivity(input: RevokeInput): Promise<RevokeOutput> {
    const now = new Date();
    const outcomes: RevokeOutput['outcomes'] = [];
    const revoked: RevokedKey[] = [];
    const seen = new Map<string, LeakOutcome>();
    for (const m of input.matches) {
      // No prefix filter: whatever the token looked like, only its digest is looked up.
      const key = (await accounts.findKeyByDigest(m.lookup_digest)) as LeakKeyDoc | null;
      if (!key) {
        outcomes.push({ index: m.index, outcome: 'unknown', key_id: null });
        continue;
      }
      if (seen.has(key._id)) {
        // The same token twice in one delivery: one revocation, one notice.
        outcomes.push({ index: m.index, outcome: 'already_revoked', key_id: key._id });
        continue;
      }
      let mine = key.revoked_by_delivery === input.delivery_id;
      let revokedAt = key.revoked_at;
      if (key.active || !key.revoked_at) {
        // The revocation marker's unique insert decides a race with another delivery, a user's
        // revoke or a rotation; a retry of this activity finds its own marker.
        const won = await accounts.markRevoked(key._id, 'secret_leak', input.delivery_id);
        const marker = won ? null : await accounts.revocationOf(key._id);
        if (won || (marker?.reason === 'secret_leak' && marker.delivery_id === input.delivery_id)) {
          mine = true;
          revokedAt = key.revoked_at ?? now;
          await accounts.keys.updateOne(
            { _id: key._id },
            {
              $set: {
                active: false,
                revoked_at: revokedAt,
                revoked_reason: 'secret_leak',
                revoked_by_delivery: input.delivery_id,
              },
            },
          );
        } else if (marker && key.active) {
          // Another revocation won but has not written the key yet: the key is revoked either way.
          revokedAt = now;
          await accounts.keys.updateOne({ _id: key._id }, { $set: { active: false, revoked_at: now } });
        }
      }
      const outcome: LeakOutcome = mine ? 'revoked' : 'already_revoked';
      seen.set(key._id, outcome);
      outcomes.push({ index: m.index, outcome, key_id: key._id });
      if (mine) {
        revoked.push({
          index: m.index,
          key_id: key._id,
          org_id: key.org_id,
          user_id: key.user_id,
          name: key.name,
          preview: key.preview,
          revoked_at: (revokedAt ?? now).toISOString(),
        });
      }
    }
    const counts = {
      revoked: revoked.length,
      already_revoked: outcomes.filter((o) => o.outcome === 'already_revoked').length,
      unknown: outcomes.filter((o) => o.outcome === 'unknown').length,
    };
    log.info('leak delivery processed', { delivery_id: input.delivery_id, workflow_id: input.workflow_id, ...counts });
    return { outcomes, revoked, revoked_at: revoked[0]?.revoked_at ?? null };
  }

  async function recordLeakRevocationActivity(f: LeakFacts): Promise<{ log_id: string; seq: number }> {
    if (!deps.auditSecret)
      throw ApplicationFailure.nonRetryable(
        'audit secret is not configured (SVC_AUDIT_SECRET_KEY)',
        'AuditConfigError',
      );
    try {
      const res = await auditLog.append(
        {
          organization_id: f.key.org_id,
          user_id: f.key.user_id,
          query: `${SECRET_LEAK_EVENT} ${f.preview}`,
          result: {
            status: SECRET_LEAK_EVENT,
            event: SECRET_LEAK_EVENT,
            admission: null,
            proof_ref: null,
            attestation_id: null,
            key_id: f.key.key_id,
            key_preview: f.preview,
            token_type: f.token_type,
            leak_url: f.url,
            leak_source: f.source,
            workflow_id: f.workflow_id,
            request_digest: `sha256:${f.delivery_id}`,
            revoked_at: f.key.revoked_at,
          },
          verified: false,
          domain: 'security',
          timestamp: f.key.revoked_at,
        },
        { logId: auditLogId(f.key.org_id, `${f.workflow_id}:${f.key.key_id}`), secret: deps.auditSecret },
      );
      return { log_id: res.doc._id, seq: res.doc.seq };
    } catch (err) {
      if (err instanceof AuditChainError) throw ApplicationFailure.nonRetryable(err.message, 'AuditChainError');
      throw err;
    }
  }

  /** The key's user if still active in its organization, else the organization's first active owner, then admin. */
  async function recipient(key: RevokedKey): Promise<UserDoc | null> {
    const user = await accounts.findUser(key.user_id);
    if (user && user.active && user.org_id === key.org_id && user.email) return user;
    // The organization's directory (bounded by its members), in creation order.
    const members = (await accounts.listOrgUsers(key.org_id)).filter((u) => u.active);
    for (const role of ['owner', 'admin'] as const) {
      const first = members.find((u) => u.role === role);
      if (first?.email) return first;
    }
    return null;
  }

  async function notifyLeakRevocationActivity(f: LeakFacts): Promise<{ sent: boolean; duplicate: boolean }> {
    const smtp = deps.config.smtp;
    if (!smtp) throw ApplicationFailure.nonRetryable('no SMTP server configured (SVC_SMTP_URL)', 'MailNotConfigured');
    const noticeId = `${f.delivery_id}:${f.key.key_id}`;
    // A retried activity whose earlier attempt got the message out sends nothing more.
    if (await findLeakNotice(deps.store, noticeId)) return { sent: false, duplicate: true };
    const to = await recipient(f.key);
    if (!to) throw ApplicationFailure.nonRetryable('no active recipient for the revoked key', 'NoRecipient');
    const messageId = `<leak-${createHash('sha256').update(noticeId).digest('hex').slice(0, 32)}@svc.local>`;
    await sendMail(smtp, {
      from: deps.config.mailFrom,
      to: to.email,
      subject: `[svc] API key ${f.preview} was revoked after a leak report`,
      text: noticeText(f),
      messageId,
    });
    await recordLeakNotice(deps.store, {
      _id: noticeId,
      delivery_id: f.delivery_id,
      key_id: f.key.key_id,
      org_id: f.key.org_id,
      recipient_user_id: to._id,
      sent_at: new Date(),
      message_id: messageId,
    });
    log.info('leak notification sent', { delivery_id: f.delivery_id, key_id: f.key.key_id, recipient_user_id: to._id });
    return { sent: true, duplicate: false };
  }

  async function sendLeakFeedbackActivity(input: {
    delivery_id: string;
    matches: LeakMatchRef[];
    outcomes: { index: number; outcome: LeakOutcome }[];
  }): Promise<{ sent: boolean; items: number; raw: boolean }> {
    const fb = deps.config.feedback;
    if (!fb) return { sent: false, items: 0, raw: false };
    const raw = rawFeedbackAllowed(fb) && sealKey !== null;
    const items = feedbackItems(input.matches, new Map(input.outcomes.map((o) => [o.index, o.outcome])), {
      raw,
      sealKey,
    });
    const res = await (deps.fetchImpl ?? fetch)(fb.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(items),
      signal: AbortSignal.timeout(10_000),
      redirect: 'error',
    });
    await res.body?.cancel().catch(() => undefined);
    if (res.status < 200 || res.status >= 300) throw new Error(`feedback endpoint answered ${res.status}`);
    log.info('leak feedback sent', { delivery_id: input.delivery_id, items: items.length, raw });
    return { sent: true, items: items.length, raw };
  }

  return {
    revokeLeakedKeysActivity,
    recordLeakRevocationActivity,
    notifyLeakRevocationActivity,
    sendLeakFeedbackActivity,
  };
}

export type LeakRevocationActivities = ReturnType<typeof makeLeakRevocationActivities>;

function noticeText(f: LeakFacts): string {
  // Short lines (no quoted-printable soft breaks inside ids); never the key itself.
  return [
    'One of your API keys was found in a public location by a secret',
    'scanner and has been revoked automatically.',
    '',
    `Key name: ${f.key.name}`,
    `Key: ${f.preview}`,
    `Key id: ${f.key.key_id}`,
    `Revoked at: ${f.key.revoked_at}`,
    `Reported as: ${f.token_type || 'unknown type'}${f.source ? ` (${f.source})` : ''}`,
    `Location: ${f.url ?? 'not given'}`,
    `Delivery: ${f.delivery_id}`,
    '',
    'Requests made with this key are now refused (401). Create a new key',
    '(sign in, then POST /auth/api-keys) and remove the leaked one from',
    'where it was published. This notice never contains the key itself.',
  ].join('\n');
}

/** One attempt under the mail time-out (connection, greeting, socket and the whole send). */
async function sendMail(smtp: NonNullable<LeakConfig['smtp']>, msg: nodemailer.SendMailOptions): Promise<void> {
  const u = new URL(smtp.url);
  const user = u.username ? decodeURIComponent(u.username) : smtp.user;
  const pass = u.password ? decodeURIComponent(u.password) : smtp.password;
  const secure = u.protocol === 'smtps:';
  // Loaded on the first notice, not at the worker's start (35 modules; issue 22, memory).
  const { createTransport } = (await import('nodemailer')).default;
  const transport = createTransport({
    host: u.hostname,
    port: u.port ? Number(u.port) : secure ? 465 : 587,
    secure,
    auth: user ? { user, pass: pass ?? '' } : undefined,
    connectionTimeout: smtp.timeoutMs,
    greetingTimeout: smtp.timeoutMs,
    socketTimeout: smtp.timeoutMs,
    // Only the local sink speaks plain SMTP on loopback; anything else negotiates TLS when offered.
    logger: false,
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      transport.sendMail(msg),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`mail not sent within ${smtp.timeoutMs} ms`)), smtp.timeoutMs);
      }),
    ]);
  } catch (err) {
    // Connection details only: never the message (it names the recipient), so no `cause` either.
    // eslint-disable-next-line preserve-caught-error
    throw new Error(`mail attempt failed: ${(err as { code?: string }).code ?? (err as Error).name}`);
  } finally {
    clearTimeout(timer);
    transport.close();
  }
}
