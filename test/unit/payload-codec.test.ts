// The Temporal payload codec (core/payload-codec.ts) and its key configuration (core/payload-keys.ts).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  ENCRYPTED_ENCODING,
  KEY_ID_METADATA,
  PayloadDecryptionError,
  payloadCodecFor,
  temporalDataConverter,
} from '../../core/payload-codec.js';
import { payloadKeyring } from '../../core/payload-keys.js';
import { ConfigError, loadConfig } from '../../core/config.js';
import { generateSecrets } from '../../infra/secrets.js';

const b64key = () => randomBytes(32).toString('base64');
const KEY_A = b64key();
const KEY_B = b64key();
const env = (keys: Record<string, string>, id?: string, encryption?: string) => ({
  SVC_TEMPORAL_PAYLOAD_KEYS: JSON.stringify(keys),
  SVC_TEMPORAL_PAYLOAD_KEY_ID: id,
  SVC_TEMPORAL_PAYLOAD_ENCRYPTION: encryption,
});
const SECRET = "API_KEY = 'svc_live_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg'";
const payload = (v: unknown) => defaultPayloadConverter.toPayload(v) as Payload;
const meta = (p: Payload, k: string) => Buffer.from(p.metadata?.[k] ?? new Uint8Array()).toString('utf8');

describe('AES-256-GCM payload codec', () => {
  const codecA = payloadCodecFor(env({ a: KEY_A }, 'a'));

  it('round-trips payloads, metadata included, and leaves no plaintext in the encoded bytes', async () => {
    const inputs = [
      payload({ code: SECRET, language: 'python' }),
      payload(null),
      payload('x'.repeat(100_000)),
      { metadata: { encoding: new TextEncoder().encode('binary/null') } },
    ];
    const encoded = await codecA.encode(inputs);
    for (const e of encoded) {
      expect(meta(e, 'encoding')).toBe(ENCRYPTED_ENCODING);
      expect(meta(e, KEY_ID_METADATA)).toBe('a');
      expect(Buffer.from(e.data as Uint8Array).toString('latin1')).not.toContain('svc_live_');
      expect(Buffer.from(e.data as Uint8Array).toString('latin1')).not.toContain('json/plain');
    }
    const decoded = await codecA.decode(encoded);
    expect(decoded.map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      { code: SECRET, language: 'python' },
      null,
      'x'.repeat(100_000),
      undefined,
    ]);
    expect(meta(decoded[0] as Payload, 'encoding')).toBe('json/plain');
  });

  it('uses a fresh nonce per payload: the same value encrypts differently each time', async () => {
    const [x, y] = await codecA.encode([payload(SECRET), payload(SECRET)]);
    expect(Buffer.from(x!.data!).equals(Buffer.from(y!.data!))).toBe(false);
    expect(Buffer.from(x!.data!).subarray(0, 12).equals(Buffer.from(y!.data!).subarray(0, 12))).toBe(false);
  });

  it('leaves payloads of other encodings untouched on decode, and never double-encrypts', async () => {
    const plain = payload({ a: 1 });
    expect(await codecA.decode([plain])).toEqual([plain]);
    const once = await codecA.encode([plain]);
    expect(await codecA.encode(once)).toEqual(once);
  });

  it('rotation: encrypt with A, rotate to B (A kept), both decode; new payloads use B', async () => {
    const underA = await codecA.encode([payload('written under A')]);
    const rotated = payloadCodecFor(env({ a: KEY_A, b: KEY_B }, 'b'));
    expect(rotated.currentKeyId).toBe('b');
    const underB = await rotated.encode([payload('written under B')]);
    expect(meta(underB[0] as Payload, KEY_ID_METADATA)).toBe('b');
    expect((await rotated.decode([...underA, ...underB])).map((p) => defaultPayloadConverter.fromPayload(p))).toEqual([
      'written under A',
      'written under B',
    ]);
    // A process that only knows A cannot read B's payloads: it fails closed, naming the key id.
    await expect(codecA.decode(underB)).rejects.toThrow(
      new PayloadDecryptionError("payload encrypted with unknown key id 'b'", 'b'),
    );
  });

  it('fails closed on altered ciphertext, a relabelled key id, a wrong key under the same id, or truncation', async () => {
    const [good] = await codecA.encode([payload(SECRET)]);
    const flipped = Buffer.from(good!.data!);
    flipped[20] = (flipped[20] as number) ^ 1;
    await expect(codecA.decode([{ ...good, data: new Uint8Array(flipped) }])).rejects.toThrow(
      /does not authenticate under key 'a'/,
    );
    const both = payloadCodecFor(env({ a: KEY_A, b: KEY_A }, 'a'));
    const relabelled = {
      metadata: { ...good!.metadata, [KEY_ID_METADATA]: new TextEncoder().encode('b') },
      data: good!.data,
    };
    await expect(both.decode([relabelled])).rejects.toThrow(/does not authenticate under key 'b'/);
    await expect(payloadCodecFor(env({ a: KEY_B }, 'a')).decode([good!])).rejects.toThrow(PayloadDecryptionError);
    await expect(codecA.decode([{ ...good, data: good!.data!.subarray(0, 20) }])).rejects.toThrow(/truncated/);
  });

  it('encryption off: encodes nothing, but still decrypts what the listed keys encrypted', async () => {
    const [enc] = await codecA.encode([payload('old')]);
    const off = payloadCodecFor(env({ a: KEY_A }, undefined, 'off'));
    expect(off.currentKeyId).toBeNull();
    const p = payload('new');
    expect(await off.encode([p])).toEqual([p]);
    expect(defaultPayloadConverter.fromPayload((await off.decode([enc!]))[0] as Payload)).toBe('old');
    expect(payloadCodecFor({ SVC_TEMPORAL_PAYLOAD_ENCRYPTION: 'off' }).currentKeyId).toBeNull();
  });

  it('the shared data converter carries the codec and the encoded-attributes failure converter', () => {
    const dc = temporalDataConverter(env({ a: KEY_A }, 'a'));
    expect(dc.payloadCodecs).toHaveLength(1);
    expect(dc.payloadCodecs[0]).toBeInstanceOf(AesGcmPayloadCodec);
    expect(dc.failureConverterPath).toMatch(/temporal-failure-converter\.ts$/);
    expect(
      (dc.failureConverter as unknown as { options: { encodeCommonAttributes: boolean } }).options
        .encodeCommonAttributes,
    ).toBe(true);
  });
});

describe('payload key configuration', () => {
  it('refuses to start without a key unless encryption is explicitly off', () => {
    expect(() => payloadCodecFor({})).toThrow(ConfigError);
    expect(() => payloadCodecFor({})).toThrow(
      /SVC_TEMPORAL_PAYLOAD_KEYS is not set.*SVC_TEMPORAL_PAYLOAD_ENCRYPTION=off/,
    );
    expect(() => temporalDataConverter({ SVC_TEMPORAL_PAYLOAD_KEYS: '{}' })).toThrow(/is not set/);
  });

  it.each([
    ['not JSON', '{a:', /not valid JSON/],
    ['an array', '[]', /must be a JSON object/],
    [
      'a short key',
      JSON.stringify({ a: randomBytes(16).toString('base64') }),
      /key 'a' is 16 bytes; AES-256 needs exactly 32/,
    ],
    ['a non-base64 key', JSON.stringify({ a: 'not base64!' }), /key 'a' is not standard base64/],
    ['a bad key id', JSON.stringify({ 'a b': KEY_A }), /key id "a b" must be/],
  ])('rejects %s, without echoing key material', (_, raw, re) => {
    let msg = '';
    try {
      payloadKeyring({ SVC_TEMPORAL_PAYLOAD_KEYS: raw, SVC_TEMPORAL_PAYLOAD_KEY_ID: 'a' });
    } catch (err) {
      msg = (err as Error).message;
    }
    expect(msg).toMatch(re);
    expect(msg).not.toContain(KEY_A);
    // loadConfig checks the format at start-up too.
    expect(() => loadConfig({ SVC_TEMPORAL_PAYLOAD_KEYS: raw })).toThrow(ConfigError);
  });

  it('needs the encrypting key id to be listed; one key needs no id; several do', () => {
    expect(() => payloadKeyring(env({ a: KEY_A }, 'b'))).toThrow(
      "SVC_TEMPORAL_PAYLOAD_KEY_ID 'b' is not in SVC_TEMPORAL_PAYLOAD_KEYS",
    );
    expect(payloadKeyring(env({ a: KEY_A })).currentKeyId).toBe('a');
    expect(() => payloadKeyring(env({ a: KEY_A, b: KEY_B }))).toThrow(/name the one that encrypts/);
    expect(() => payloadKeyring(env({ a: KEY_A }, 'a', 'maybe'))).toThrow(/must be 'on' or 'off'/);
    expect(() => loadConfig({ SVC_TEMPORAL_PAYLOAD_ENCRYPTION: 'maybe' })).toThrow(ConfigError);
  });

  it('the local stacks generate a usable key', async () => {
    const s = generateSecrets();
    const codec = payloadCodecFor(s);
    expect(codec.currentKeyId).toBe(s.SVC_TEMPORAL_PAYLOAD_KEY_ID);
    expect(
      defaultPayloadConverter.fromPayload((await codec.decode(await codec.encode([payload(1)])))[0] as Payload),
    ).toBe(1);
  });
});
