// The Temporal payload codec: every payload a client or worker of the project sends to Temporal
// (workflow and activity inputs and results, query results, failure messages) is encrypted with
// AES-256-GCM before it leaves the process, so Temporal's history, its database file and its UI
// hold ciphertext only. docs/payload-encryption.md.
//
// Encoded payload:
//   metadata.encoding           'binary/encrypted'  (payloads with any other encoding are left as they are on decode)
//   metadata.encryption-key-id  the id of the key that encrypted it (rotation: old ids keep decrypting)
//   metadata.encryption-cipher  'AES-256-GCM'
//   data                        nonce (12 random bytes) | ciphertext | tag (16 bytes)
// The plaintext is the whole original payload (its metadata too): u32 big-endian length of a JSON
// object of base64 metadata values, that JSON, then the original data bytes. The additional
// authenticated data binds the key id, so a payload relabelled with another key id fails.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import {
  defaultPayloadConverter,
  type DataConverter,
  type LoadedDataConverter,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common';
import { failureConverter } from './temporal-failure-converter.js';
import { payloadKeyring, PayloadKeysConfigError, type PayloadKeyEnv, type PayloadKeyring } from './payload-keys.js';
import { ConfigError } from './config.js';
import { projectModuleUrl } from './project-paths.js';
import { REFUSED_PAYLOAD_MARKER } from './workflow-input-auth-types.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const CIPHER_METADATA = 'encryption-cipher';
export const CIPHER = 'AES-256-GCM';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });
const aad = (keyId: string) => Buffer.from(`svc-temporal-payload/v1:${keyId}`, 'utf8');

/** A payload that could not be decrypted (unknown key id, altered bytes, wrong key). */
export class PayloadDecryptionError extends Error {
  constructor(
    message: string,
    readonly keyId: string | null,
  ) {
    super(message);
    this.name = 'PayloadDecryptionError';
  }
}

function metadataString(p: Payload, key: string): string | null {
  const v = p.metadata?.[key];
  if (!v) return null;
  try {
    return fromUtf8.decode(v);
  } catch {
    return null;
  }
}

export function isEncryptedPayload(p: Payload): boolean {
  return metadataString(p, 'encoding') === ENCRYPTED_ENCODING;
}

function serialize(p: Payload): Buffer {
  const meta: Record<string, string> = {};
  for (const [k, v] of Object.entries(p.metadata ?? {})) if (v) meta[k] = Buffer.from(v).toString('base64');
  const header = Buffer.from(JSON.stringify(meta), 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32BE(header.length, 0);
  const data = p.data ?? new Uint8Array(0);
  return Buffer.concat([len, header, data]);
}

function deserialize(buf: Buffer): Payload {
  if (buf.length < 4) throw new Error('truncated payload');
  const n = buf.readUInt32BE(0);
  if (4 + n > buf.length) throw new Error('truncated payload');
  const meta = JSON.parse(buf.subarray(4, 4 + n).toString('utf8')) as Record<string, string>;
  const metadata: Record<string, Uint8Array> = {};
  for (const [k, v] of Object.entries(meta)) metadata[k] = new Uint8Array(Buffer.from(v, 'base64'));
  return { metadata, data: new Uint8Array(buf.subarray(4 + n)) };
}

export interface CodecOptions {
  /**
   * Workers: a payload this codec did not encrypt is never decoded. Its bytes are dropped and a
   * refusal marker `{"svc_refused_payload": …}` stands in its place, so the workflow input check
   * (core/workflow-input-auth.ts) fails the workflow at once instead of running on plaintext
   * that anyone who reaches the Temporal frontend can write. (Throwing here would fail the
   * workflow task instead, which Temporal retries forever.) Only with encryption on.
   */
  refuseUnencrypted?: boolean;
}

/** What a refusing codec decodes an unencrypted payload to: JSON `{"svc_refused_payload": "<reason>"}`. */
export const REFUSED_PAYLOAD: Payload = {
  metadata: { encoding: utf8.encode('json/plain') },
  data: utf8.encode(
    JSON.stringify({ [REFUSED_PAYLOAD_MARKER]: 'payload not encrypted by the payload codec: not read' }),
  ),
};

export class AesGcmPayloadCodec implements PayloadCodec {
  constructor(
    private readonly keyring: PayloadKeyring,
    private readonly options: CodecOptions = {},
  ) {}

  /** The key id new payloads are encrypted with (null: encryption off). */
  get currentKeyId(): string | null {
    return this.keyring.encryption === 'on' ? this.keyring.currentKeyId : null;
  }

  encryptOne(p: Payload): Payload {
    const keyId = this.currentKeyId;
    if (keyId === null || isEncryptedPayload(p)) return p;
    const key = this.keyring.keys.get(keyId) as Buffer;
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(keyId));
    const body = Buffer.concat([cipher.update(serialize(p)), cipher.final()]);
    return {
      metadata: {
        encoding: utf8.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: utf8.encode(keyId),
        [CIPHER_METADATA]: utf8.encode(CIPHER),
      },
      data: new Uint8Array(Buffer.concat([nonce, body, cipher.getAuthTag()])),
    };
  }

  decryptOne(p: Payload): Payload {
    if (!isEncryptedPayload(p))
      return this.options.refuseUnencrypted && this.keyring.encryption === 'on' ? REFUSED_PAYLOAD : p;
    const keyId = metadataString(p, KEY_ID_METADATA);
    const key = keyId === null ? undefined : this.keyring.keys.get(keyId);
    if (keyId === null || !key) {
      throw new PayloadDecryptionError(
        `payload encrypted with ${keyId === null ? 'no key id' : `unknown key id '${keyId.slice(0, 70)}'`}`,
        keyId,
      );
    }
    const data = Buffer.from(p.data ?? new Uint8Array(0));
    if (data.length < NONCE_BYTES + TAG_BYTES)
      throw new PayloadDecryptionError('encrypted payload is truncated', keyId);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, NONCE_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(aad(keyId));
      decipher.setAuthTag(data.subarray(data.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(data.subarray(NONCE_BYTES, data.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return deserialize(plain);
    } catch {
      throw new PayloadDecryptionError(`encrypted payload does not authenticate under key '${keyId}'`, keyId);
    }
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.encryptOne(p));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((p) => this.decryptOne(p));
  }
}

/** The codec for this process's configuration; ConfigError (refuse to start) when a key is required and missing. */
export function payloadCodecFor(env: PayloadKeyEnv, options: CodecOptions = {}): AesGcmPayloadCodec {
  try {
    return new AesGcmPayloadCodec(payloadKeyring(env), options);
  } catch (err) {
    if (err instanceof PayloadKeysConfigError) throw new ConfigError(`invalid configuration: ${err.message}`);
    throw err;
  }
}

/** Failure messages and stack traces go into an (encrypted) payload too: they can quote user input. */
export const FAILURE_CONVERTER_PATH = fileURLToPath(
  projectModuleUrl('./temporal-failure-converter.ts', import.meta.url),
);

/**
 * The data converter of EVERY Temporal client and worker of the project:
 * `new Client({ connection, dataConverter: temporalDataConverter(cfg) })`,
 * `Worker.create({ ..., dataConverter: temporalDataConverter(cfg) })`.
 * Both forms in one object: clients take the loaded converters as they are (no module loading,
 * so it also works inside test runners), workers load the failure converter by path because the
 * workflow bundle needs it too. Workers pass `{ refuseUnencrypted: true }`.
 */
export function temporalDataConverter(
  env: PayloadKeyEnv,
  options: CodecOptions = {},
): DataConverter & LoadedDataConverter {
  return {
    payloadConverter: defaultPayloadConverter,
    failureConverter,
    payloadCodecs: [payloadCodecFor(env, options)],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}
