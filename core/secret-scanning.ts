// Leaked-key intake (contract: POST /webhooks/secret-scanning and "Events"): configuration,
// the code host's signing keys (fetched on demand, cached, refetched once for an unknown key
// id, failing closed), signature verification over the raw body, and the per-match facts the
// revocation workflow receives instead of raw tokens. docs/secret-scanning.md.
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createPublicKey,
  hkdfSync,
  randomBytes,
  verify as cryptoVerify,
  type KeyObject,
} from 'node:crypto';
import { z } from 'zod';
import {
  publicKeyDocumentSchema,
  WEBHOOK_KEY_ID_HEADER_MAX,
  WEBHOOK_SIGNATURE_HEADER_MAX,
  type LeakFeedbackItem,
  type SecretMatch,
} from '../contract/webhooks.js';
import { lookupDigest, maskApiKey, scanForLiveKeys } from './api-keys.js';

// ---------------------------------------------------------------------------------------
// Configuration (read by the API and by the worker; every variable is in docs/configuration.md)
// ---------------------------------------------------------------------------------------

/** Workflow of one delivery: `leak-revocation-<hex sha256 of the raw body>` (workflows/leak-revocation.ts). */
export const LEAK_WORKFLOW_PREFIX = 'leak-revocation-';
export const LEAK_WORKFLOW_TYPE = 'leakRevocationWorkflow';

export const DEFAULT_KEYS_URL = 'https://api.github.com/meta/public_keys/secret_scanning';

const flag = z
  .enum(['true', 'false', '1', '0', ''])
  .optional()
  .transform((v) => v === 'true' || v === '1');
const httpUrl = z
  .string()
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'must be an http:// or https:// URL');

const leakEnvSchema = z.object({
  SVC_SECRET_SCANNING_KEYS_URL: httpUrl.default(DEFAULT_KEYS_URL),
  SVC_SMTP_URL: z
    .string()
    .refine((u) => /^smtps?:\/\/[^\s]+$/i.test(u), 'must be an smtp:// or smtps:// URL')
    .optional(),
  SVC_SMTP_USER: z.string().optional(),
  SVC_SMTP_PASSWORD: z.string().optional(),
  SVC_MAIL_FROM: z.string().min(3).default('svc security <security@localhost>'),
  /** Connection, greeting, socket and whole-send time-out of one mail attempt, in seconds. */
  SVC_SMTP_TIMEOUT: z.coerce.number().positive().max(300).default(10),
  SVC_LEAK_FEEDBACK_ENABLED: flag,
  SVC_LEAK_FEEDBACK_URL: httpUrl.optional(),
  SVC_LEAK_FEEDBACK_SEND_RAW: flag,
  SVC_API_KEY_LOOKUP_SECRET: z.string().optional(),
});

export interface LeakConfig {
  keysUrl: string;
  smtp: { url: string; user?: string; password?: string; timeoutMs: number } | null;
  mailFrom: string;
  feedback: { url: string; sendRaw: boolean } | null;
  /** Derives the key that seals raw tokens for raw feedback (both API and worker need it then). */
  lookupSecret?: string;
}

export class LeakConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LeakConfigError';
  }
}

const blankToUndefined = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(
    Object.entries(env).map(([k, v]) => [
      k,
      v === '' && k !== 'SVC_LEAK_FEEDBACK_ENABLED' && k !== 'SVC_LEAK_FEEDBACK_SEND_RAW' ? undefined : v,
    ]),
  );

export function loadLeakConfig(env: NodeJS.ProcessEnv): LeakConfig {
  const parsed = leakEnvSchema.safeParse(blankToUndefined(env));
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new LeakConfigError(`invalid configuration: ${String(first?.path.join('.'))}: ${first?.message}`);
  }
  const e = parsed.data;
  if (e.SVC_LEAK_FEEDBACK_ENABLED && !e.SVC_LEAK_FEEDBACK_URL) {
    throw new LeakConfigError('invalid configuration: SVC_LEAK_FEEDBACK_ENABLED=true needs SVC_LEAK_FEEDBACK_URL');
  }
  return {
    keysUrl: e.SVC_SECRET_SCANNING_KEYS_URL,
    smtp: e.SVC_SMTP_URL
      ? {
          url: e.SVC_SMTP_URL,
          user: e.SVC_SMTP_USER,
          password: e.SVC_SMTP_PASSWORD,
          timeoutMs: e.SVC_SMTP_TIMEOUT * 1000,
        }
      : null,
    mailFrom: e.SVC_MAIL_FROM,
    feedback:
      e.SVC_LEAK_FEEDBACK_ENABLED && e.SVC_LEAK_FEEDBACK_URL
        ? { url: e.SVC_LEAK_FEEDBACK_URL, sendRaw: e.SVC_LEAK_FEEDBACK_SEND_RAW }
        : null,
    lookupSecret: e.SVC_API_KEY_LOOKUP_SECRET,
  };
}

/** Raw tokens go to the feedback URL only when asked for AND the URL is HTTPS. */
export function rawFeedbackAllowed(feedback: LeakConfig['feedback']): boolean {
  return feedback !== null && feedback.sendRaw && /^https:\/\//i.test(feedback.url);
}

// ---------------------------------------------------------------------------------------
// Header checks (before the body is read) and signature verification
// ---------------------------------------------------------------------------------------

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const KEY_ID = /^[\x21-\x7e]+$/;

/**
 * The decoded signature, or null. The length cap applies to the header text, before any
 * decoding; the text must be canonical standard base64 (what the protocol sends).
 */
export function decodeSignatureHeader(value: string | undefined): Buffer | null {
  if (value === undefined || value.length === 0 || value.length > WEBHOOK_SIGNATURE_HEADER_MAX) return null;
  if (value.length % 4 !== 0 || !BASE64.test(value)) return null;
  const sig = Buffer.from(value, 'base64');
  if (sig.length === 0 || sig.toString('base64') !== value) return null;
  return sig;
}

export function checkKeyIdHeader(value: string | undefined): string | null {
  if (value === undefined || value.length === 0 || value.length > WEBHOOK_KEY_ID_HEADER_MAX || !KEY_ID.test(value))
    return null;
  return value;
}

/** ECDSA P-256 / SHA-256 over the raw body; the signature is DER (ASN.1) encoded. Never throws. */
export function verifyBodySignature(body: Buffer, signature: Buffer, key: KeyObject): boolean {
  try {
    return cryptoVerify('sha256', body, { key, dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------
// The key document: fetched on demand, cached, refetched once for an unknown id
// ---------------------------------------------------------------------------------------

export class SigningKeysUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SigningKeysUnavailableError';
  }
}

/** Parses the key document; keeps only P-256 public keys (anything else is skipped, never trusted). */
export function parseKeyDocument(json: unknown): Map<string, KeyObject> {
  const doc = publicKeyDocumentSchema.parse(json);
  const keys = new Map<string, KeyObject>();
  for (const k of doc.public_keys) {
    try {
      const key = createPublicKey({ key: k.key, format: 'pem' });
      if (
        key.type === 'public' &&
        key.asymmetricKeyType === 'ec' &&
        key.asymmetricKeyDetails?.namedCurve === 'prime256v1'
      ) {
        keys.set(k.key_identifier, key);
      }
    } catch {
      /* not a PEM public key: skipped */
    }
  }
  return keys;
}

export interface KeyStoreOptions {
  fetchTimeoutMs?: number;
  /** Minimum time between two fetches caused by unknown key ids (a flood of forged ids cannot hammer the key server). */
  minRefetchMs?: number;
  /** Age after which the whole document is refreshed on next use. */
  ttlMs?: number;
  /** Largest key document accepted. */
  maxBytes?: number;
  fetchImpl?: typeof fetch;
}

export class SigningKeyStore {
  private keys: Map<string, KeyObject> | null = null;
  private fetchedAt = 0;
  private lastAttempt = 0;
  private inflight: Promise<void> | null = null;
  private readonly opts: Required<KeyStoreOptions>;

  constructor(
    readonly url: string,
    opts: KeyStoreOptions = {},
  ) {
    this.opts = {
      fetchTimeoutMs: opts.fetchTimeoutMs ?? 5000,
      minRefetchMs: opts.minRefetchMs ?? 1000,
      ttlMs: opts.ttlMs ?? 3_600_000,
      maxBytes: opts.maxBytes ?? 256 * 1024,
      fetchImpl: opts.fetchImpl ?? fetch,
    };
  }

  /**
   * The key with this id, or null when the (freshly refetched) document does not have it.
   * Throws SigningKeysUnavailableError when the document cannot be fetched and no cached copy
   * can answer (fail closed: nothing verifies without a key).
   */
  async get(keyId: string): Promise<KeyObject | null> {
    const now = Date.now();
    if (this.keys === null || now - this.fetchedAt > this.opts.ttlMs) {
      try {
        await this.refresh();
      } catch (err) {
        if (this.keys === null) throw err;
        // A stale document still answers for the ids it has; unknown ids are refused below.
      }
    }
    const cached = this.keys?.get(keyId);
    if (cached) return cached;
    // Unknown id: one refetch (key rotation), unless one just happened.
    if (Date.now() - this.lastAttempt < this.opts.minRefetchMs) return null;
    await this.refresh();
    return this.keys?.get(keyId) ?? null;
  }

  private refresh(): Promise<void> {
    // Single flight: concurrent requests share one fetch.
    this.inflight ??= this.load().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async load(): Promise<void> {
    this.lastAttempt = Date.now();
    let res: Response;
    try {
      res = await this.opts.fetchImpl(this.url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(this.opts.fetchTimeoutMs),
        redirect: 'follow',
      });
    } catch (err) {
      throw new SigningKeysUnavailableError(`key document fetch failed: ${(err as Error).name}`);
    }
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      throw new SigningKeysUnavailableError(`key document fetch answered ${res.status}`);
    }
    const text = await readCapped(res, this.opts.maxBytes);
    let keys: Map<string, KeyObject>;
    try {
      keys = parseKeyDocument(JSON.parse(text));
    } catch {
      throw new SigningKeysUnavailableError('key document is malformed');
    }
    this.keys = keys;
    this.fetchedAt = Date.now();
  }
}

async function readCapped(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new SigningKeysUnavailableError('key document too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

// ---------------------------------------------------------------------------------------
// What the workflow receives per match (never the raw token)
// ---------------------------------------------------------------------------------------

export interface LeakMatchRef {
  index: number;
  /** HMAC-SHA256 lookup digest under SVC_API_KEY_LOOKUP_SECRET (what api_keys stores). */
  lookup_digest: string;
  /** Hex SHA-256 of the token: the feedback identifier. */
  token_sha256: string;
  /** Masked display form (prefix, asterisks, last 4). */
  preview: string;
  type: string;
  url: string | null;
  source: string | null;
  /** Only with raw feedback over HTTPS: the token sealed with AES-256-GCM (see sealToken). */
  sealed_token?: string;
}

export const sha256Hex = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

/** Scanner-supplied text kept for notices: any live key inside it is masked, length capped. */
export function safeText(s: string | undefined, max: number): string | null {
  if (s === undefined) return null;
  let out = s.slice(0, max);
  for (const m of scanForLiveKeys(out)) out = out.split(m.key).join(maskApiKey(m.key));
  return out;
}

export function matchRefs(matches: SecretMatch[], lookupSecret: string, sealKey: Buffer | null): LeakMatchRef[] {
  return matches.map((m, index) => {
    const ref: LeakMatchRef = {
      index,
      lookup_digest: lookupDigest(m.token, lookupSecret),
      token_sha256: sha256Hex(m.token),
      preview: maskApiKey(m.token),
      type: safeText(m.type, 256) ?? '',
      url: safeText(m.url, 2048),
      source: safeText(m.source, 256),
    };
    if (sealKey) ref.sealed_token = sealToken(m.token, sealKey);
    return ref;
  });
}

// ---------------------------------------------------------------------------------------
// Sealing raw tokens for raw feedback: workflow history only ever holds ciphertext
// ---------------------------------------------------------------------------------------

export function feedbackSealKey(lookupSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', lookupSecret, Buffer.alloc(0), 'svc-leak-feedback-raw-v1', 32));
}

export function sealToken(token: string, key: Buffer): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const ct = Buffer.concat([c.update(token, 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), ct]).toString('base64url');
}

/** The token, or null when the ciphertext does not open under this key. */
export function openToken(sealed: string, key: Buffer): string | null {
  try {
    const buf = Buffer.from(sealed, 'base64url');
    if (buf.length < 29) return null;
    const d = createDecipheriv('aes-256-gcm', key, buf.subarray(0, 12));
    d.setAuthTag(buf.subarray(12, 28));
    return Buffer.concat([d.update(buf.subarray(28)), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------
// Feedback items
// ---------------------------------------------------------------------------------------

export type LeakOutcome = 'revoked' | 'already_revoked' | 'unknown';

/**
 * One label per match: a token that matches a key of ours (revoked now or before) is a true
 * positive, an unknown token a false positive. Hashes unless raw is allowed and the token opens.
 */
export function feedbackItems(
  refs: LeakMatchRef[],
  outcomes: ReadonlyMap<number, LeakOutcome>,
  opts: { raw: boolean; sealKey: Buffer | null },
): LeakFeedbackItem[] {
  return refs.map((r) => {
    const label = outcomes.get(r.index) === 'unknown' || !outcomes.has(r.index) ? 'false_positive' : 'true_positive';
    const raw = opts.raw && opts.sealKey && r.sealed_token ? openToken(r.sealed_token, opts.sealKey) : null;
    return raw !== null
      ? { token_raw: raw, token_type: r.type, label }
      : { token_hash: r.token_sha256, token_type: r.type, label };
  });
}
