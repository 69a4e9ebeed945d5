// Pure parts of the leaked-key intake (core/secret-scanning.ts): header checks, signature
// verification, the key store's caching/refetch/fail-closed rules, sealing and feedback items.
import { describe, expect, it } from 'vitest';
import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import {
  SigningKeyStore,
  SigningKeysUnavailableError,
  checkKeyIdHeader,
  decodeSignatureHeader,
  feedbackItems,
  feedbackSealKey,
  loadLeakConfig,
  LeakConfigError,
  matchRefs,
  openToken,
  parseKeyDocument,
  rawFeedbackAllowed,
  sealToken,
  verifyBodySignature,
} from '../../core/secret-scanning.js';
import { generateApiKey, lookupDigest, maskApiKey } from '../../core/api-keys.js';

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (k: ReturnType<typeof p256>) => k.publicKey.export({ format: 'pem', type: 'spki' }).toString();
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('signature header', () => {
  it('accepts canonical base64 up to 1024 characters, refuses anything else before decoding', () => {
    const sig = randomBytes(70).toString('base64');
    expect(decodeSignatureHeader(sig)?.toString('base64')).toBe(sig);
    expect(decodeSignatureHeader(undefined)).toBeNull();
    expect(decodeSignatureHeader('')).toBeNull();
    expect(decodeSignatureHeader('A'.repeat(1024))).not.toBeNull();
    expect(decodeSignatureHeader('A'.repeat(1028))).toBeNull();
    expect(decodeSignatureHeader('not base64!')).toBeNull();
    expect(decodeSignatureHeader(sig.replace(/=+$/, '') + '===')).toBeNull();
    expect(decodeSignatureHeader(randomBytes(70).toString('base64url').replace(/=+$/, '') + '-_')).toBeNull();
  });

  it('key id: printable, at most 256 characters', () => {
    expect(checkKeyIdHeader('a'.repeat(64))).toBe('a'.repeat(64));
    expect(checkKeyIdHeader('a'.repeat(257))).toBeNull();
    expect(checkKeyIdHeader('a b')).toBeNull();
    expect(checkKeyIdHeader(undefined)).toBeNull();
  });
});

describe('signature verification', () => {
  const k = p256();
  const body = Buffer.from('[{"token":"x","type":"t"}]');
  const sig = sign('sha256', body, k.privateKey);
  const key = parseKeyDocument({ public_keys: [{ key_identifier: 'id', key: pem(k), is_current: true }] }).get('id')!;

  it('verifies the exact body and nothing else', () => {
    expect(verifyBodySignature(body, sig, key)).toBe(true);
    expect(verifyBodySignature(body.subarray(0, body.length - 1), sig, key)).toBe(false);
    expect(verifyBodySignature(Buffer.concat([body, Buffer.from(' ')]), sig, key)).toBe(false);
    expect(verifyBodySignature(body, sign('sha256', body, p256().privateKey), key)).toBe(false);
    expect(verifyBodySignature(body, Buffer.from('garbage'), key)).toBe(false);
  });

  it('keeps only P-256 public keys from the document', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 })
      .publicKey.export({ format: 'pem', type: 'spki' })
      .toString();
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .publicKey.export({ format: 'pem', type: 'spki' })
      .toString();
    const keys = parseKeyDocument({
      public_keys: [
        { key_identifier: 'ok', key: pem(k) },
        { key_identifier: 'rsa', key: rsa },
        { key_identifier: 'p384', key: p384 },
        { key_identifier: 'junk', key: 'not a pem' },
      ],
    });
    expect([...keys.keys()]).toEqual(['ok']);
    expect(() => parseKeyDocument({ keys: [] })).toThrow();
  });
});

describe('SigningKeyStore', () => {
  const a = p256();
  const b = p256();
  function server(docs: () => unknown, status = () => 200) {
    let calls = 0;
    const fetchImpl = (async () => {
      calls++;
      const s = status();
      return new Response(s === 200 ? JSON.stringify(docs()) : 'down', { status: s });
    }) as unknown as typeof fetch;
    return { fetchImpl, calls: () => calls };
  }

  it('caches, refetches once for an unknown id (rotation), and throttles refetches', async () => {
    let published = [{ key_identifier: 'a', key: pem(a) }];
    const s = server(() => ({ public_keys: published }));
    const store = new SigningKeyStore('http://keys.test/', { fetchImpl: s.fetchImpl, minRefetchMs: 2000 });
    expect(await store.get('a')).not.toBeNull();
    expect(await store.get('a')).not.toBeNull();
    expect(s.calls()).toBe(1);
    expect(await store.get('b')).toBeNull(); // within the throttle: no fetch
    expect(s.calls()).toBe(1);
    await new Promise((r) => setTimeout(r, 2050));
    published = [...published, { key_identifier: 'b', key: pem(b) }];
    expect(await store.get('b')).not.toBeNull();
    expect(s.calls()).toBe(2);
  });

  it('fails closed when the document cannot be fetched and nothing is cached', async () => {
    const s = server(
      () => ({}),
      () => 503,
    );
    const store = new SigningKeyStore('http://keys.test/', { fetchImpl: s.fetchImpl });
    await expect(store.get('a')).rejects.toBeInstanceOf(SigningKeysUnavailableError);
    const malformed = new SigningKeyStore('http://keys.test/', { fetchImpl: server(() => ({ nope: 1 })).fetchImpl });
    await expect(malformed.get('a')).rejects.toBeInstanceOf(SigningKeysUnavailableError);
  });

  it('keeps answering for cached ids while the key server is down; unknown ids then fail closed', async () => {
    let up = true;
    const s = server(
      () => ({ public_keys: [{ key_identifier: 'a', key: pem(a) }] }),
      () => (up ? 200 : 500),
    );
    const store = new SigningKeyStore('http://keys.test/', { fetchImpl: s.fetchImpl, minRefetchMs: 0 });
    expect(await store.get('a')).not.toBeNull();
    up = false;
    expect(await store.get('a')).not.toBeNull();
    await expect(store.get('zzz')).rejects.toBeInstanceOf(SigningKeysUnavailableError);
  });
});

describe('what the workflow receives', () => {
  const secret = 'lookup-secret-for-tests';
  it('digest, hash and preview per match; never the raw token unless sealed', () => {
    const key = generateApiKey();
    const [ref] = matchRefs(
      [{ token: key, type: 'svc_live_api_key', url: `https://x.test/${key}`, source: 'content' }],
      secret,
      null,
    );
    expect(ref).toEqual({
      index: 0,
      lookup_digest: lookupDigest(key, secret),
      token_sha256: sha256(key),
      preview: maskApiKey(key),
      type: 'svc_live_api_key',
      url: `https://x.test/${maskApiKey(key)}`,
      source: 'content',
    });
    expect(JSON.stringify(ref)).not.toContain(key);
  });

  it('seals raw tokens with AES-GCM under a key derived from the lookup secret', () => {
    const k = feedbackSealKey(secret);
    const sealed = sealToken('svc_live_abc', k);
    expect(sealed).not.toContain('svc_live_abc');
    expect(openToken(sealed, k)).toBe('svc_live_abc');
    expect(openToken(sealed, feedbackSealKey('other secret'))).toBeNull();
    expect(openToken(sealed.slice(0, -2) + 'AA', k)).toBeNull();
  });
});

describe('feedback', () => {
  const secret = 'lookup-secret-for-tests';
  const sealKey = feedbackSealKey(secret);
  const known = generateApiKey();
  const unknown = 'svc_live_notours';
  const refs = matchRefs(
    [
      { token: known, type: 't' },
      { token: unknown, type: 't' },
    ],
    secret,
    sealKey,
  );
  const outcomes = new Map([
    [0, 'revoked' as const],
    [1, 'unknown' as const],
  ]);

  it('raw only when asked for AND the URL is HTTPS', () => {
    expect(rawFeedbackAllowed({ url: 'https://fb.test/', sendRaw: true })).toBe(true);
    expect(rawFeedbackAllowed({ url: 'http://fb.test/', sendRaw: true })).toBe(false);
    expect(rawFeedbackAllowed({ url: 'https://fb.test/', sendRaw: false })).toBe(false);
    expect(rawFeedbackAllowed(null)).toBe(false);
  });

  it('labels: a key of ours is true_positive, an unknown token false_positive; hashes by default', () => {
    expect(feedbackItems(refs, outcomes, { raw: false, sealKey })).toEqual([
      { token_hash: sha256(known), token_type: 't', label: 'true_positive' },
      { token_hash: sha256(unknown), token_type: 't', label: 'false_positive' },
    ]);
    expect(feedbackItems(refs, outcomes, { raw: true, sealKey })).toEqual([
      { token_raw: known, token_type: 't', label: 'true_positive' },
      { token_raw: unknown, token_type: 't', label: 'false_positive' },
    ]);
    // No sealed copy (the API did not allow raw): hashes even if the worker would.
    const unsealed = matchRefs([{ token: known, type: 't' }], secret, null);
    expect(feedbackItems(unsealed, outcomes, { raw: true, sealKey })).toEqual([
      { token_hash: sha256(known), token_type: 't', label: 'true_positive' },
    ]);
  });
});

describe('configuration', () => {
  it('defaults, and refuses feedback without a URL or a non-SMTP mail URL', () => {
    const cfg = loadLeakConfig({});
    expect(cfg.keysUrl).toBe('https://api.github.com/meta/public_keys/secret_scanning');
    expect(cfg.smtp).toBeNull();
    expect(cfg.feedback).toBeNull();
    expect(loadLeakConfig({ SVC_SMTP_URL: 'smtps://u:p@mail.test:465' }).smtp).toMatchObject({
      url: 'smtps://u:p@mail.test:465',
      timeoutMs: 10_000,
    });
    expect(() => loadLeakConfig({ SVC_LEAK_FEEDBACK_ENABLED: 'true' })).toThrow(LeakConfigError);
    expect(() => loadLeakConfig({ SVC_SMTP_URL: 'http://mail.test' })).toThrow(LeakConfigError);
    expect(() => loadLeakConfig({ SVC_SECRET_SCANNING_KEYS_URL: 'file:///etc/passwd' })).toThrow(LeakConfigError);
    expect(
      loadLeakConfig({
        SVC_LEAK_FEEDBACK_ENABLED: 'true',
        SVC_LEAK_FEEDBACK_URL: 'https://fb.test/',
        SVC_LEAK_FEEDBACK_SEND_RAW: 'true',
      }).feedback,
    ).toEqual({
      url: 'https://fb.test/',
      sendRaw: true,
    });
  });
});
