// Keys of the Temporal payload codec (docs/payload-encryption.md), parsed from the environment:
//   SVC_TEMPORAL_PAYLOAD_KEYS        JSON object, key id -> base64 of 32 random bytes (AES-256)
//   SVC_TEMPORAL_PAYLOAD_KEY_ID      the id of the key that encrypts new payloads
//   SVC_TEMPORAL_PAYLOAD_ENCRYPTION  on (default) | off
// Every other listed key still decrypts, so keys rotate without losing history. Error messages
// name the variable and the key id, never key material.

export const PAYLOAD_KEY_BYTES = 32;
/** Key ids travel in payload metadata: short, printable, no separators that need escaping. */
export const PAYLOAD_KEY_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export class PayloadKeysConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PayloadKeysConfigError';
  }
}

export interface PayloadKeyring {
  /** off: nothing is encrypted (payloads that are encrypted still decrypt with the listed keys). */
  encryption: 'on' | 'off';
  /** Key id -> 32-byte key. */
  keys: Map<string, Buffer>;
  /** The key that encrypts; null only when encryption is off. */
  currentKeyId: string | null;
}

export interface PayloadKeyEnv {
  SVC_TEMPORAL_PAYLOAD_KEYS?: string | undefined;
  SVC_TEMPORAL_PAYLOAD_KEY_ID?: string | undefined;
  SVC_TEMPORAL_PAYLOAD_ENCRYPTION?: string | undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Parses the key list (format only; whether a key is required is decided by requirePayloadKeyring). */
export function parsePayloadKeys(raw: string | undefined): Map<string, Buffer> {
  const keys = new Map<string, Buffer>();
  if (raw === undefined || raw.trim() === '') return keys;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new PayloadKeysConfigError(
      'SVC_TEMPORAL_PAYLOAD_KEYS is not valid JSON: use {"<key id>": "<base64 of 32 bytes>"}',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new PayloadKeysConfigError(
      'SVC_TEMPORAL_PAYLOAD_KEYS must be a JSON object: {"<key id>": "<base64 of 32 bytes>"}',
    );
  }
  for (const [id, value] of Object.entries(parsed as Record<string, unknown>)) {
    if (!PAYLOAD_KEY_ID.test(id)) {
      throw new PayloadKeysConfigError(
        `SVC_TEMPORAL_PAYLOAD_KEYS: key id ${JSON.stringify(id.slice(0, 70))} must be 1-64 characters of A-Z a-z 0-9 . _ - (starting with a letter or digit)`,
      );
    }
    if (typeof value !== 'string' || !BASE64.test(value)) {
      throw new PayloadKeysConfigError(`SVC_TEMPORAL_PAYLOAD_KEYS: key '${id}' is not standard base64`);
    }
    const key = Buffer.from(value, 'base64');
    if (key.length !== PAYLOAD_KEY_BYTES) {
      throw new PayloadKeysConfigError(
        `SVC_TEMPORAL_PAYLOAD_KEYS: key '${id}' is ${key.length} bytes; AES-256 needs exactly ${PAYLOAD_KEY_BYTES}`,
      );
    }
    keys.set(id, key);
  }
  return keys;
}

/**
 * The keyring a Temporal client or worker runs with. Encryption on (the default) without a key
 * refuses to start: a process never silently writes plaintext history.
 */
export function payloadKeyring(env: PayloadKeyEnv): PayloadKeyring {
  const mode = (env.SVC_TEMPORAL_PAYLOAD_ENCRYPTION ?? 'on').trim() || 'on';
  if (mode !== 'on' && mode !== 'off') {
    throw new PayloadKeysConfigError(
      `SVC_TEMPORAL_PAYLOAD_ENCRYPTION must be 'on' or 'off', not ${JSON.stringify(mode.slice(0, 20))}`,
    );
  }
  const keys = parsePayloadKeys(env.SVC_TEMPORAL_PAYLOAD_KEYS);
  const id = env.SVC_TEMPORAL_PAYLOAD_KEY_ID?.trim() || undefined;
  if (mode === 'off') {
    if (id !== undefined && !keys.has(id))
      throw new PayloadKeysConfigError(`SVC_TEMPORAL_PAYLOAD_KEY_ID '${id}' is not in SVC_TEMPORAL_PAYLOAD_KEYS`);
    return { encryption: 'off', keys, currentKeyId: null };
  }
  if (keys.size === 0) {
    throw new PayloadKeysConfigError(
      'SVC_TEMPORAL_PAYLOAD_KEYS is not set: Temporal clients and workers refuse to start without a payload encryption key ' +
        '(workflow history would hold customer data in plaintext). Set SVC_TEMPORAL_PAYLOAD_KEYS and SVC_TEMPORAL_PAYLOAD_KEY_ID, ' +
        'or SVC_TEMPORAL_PAYLOAD_ENCRYPTION=off (see docs/payload-encryption.md)',
    );
  }
  if (id === undefined) {
    if (keys.size === 1) return { encryption: 'on', keys, currentKeyId: [...keys.keys()][0] as string };
    throw new PayloadKeysConfigError(
      'SVC_TEMPORAL_PAYLOAD_KEY_ID is not set: with several keys in SVC_TEMPORAL_PAYLOAD_KEYS, name the one that encrypts',
    );
  }
  if (!keys.has(id))
    throw new PayloadKeysConfigError(
      `SVC_TEMPORAL_PAYLOAD_KEY_ID '${id.slice(0, 70)}' is not in SVC_TEMPORAL_PAYLOAD_KEYS`,
    );
  return { encryption: 'on', keys, currentKeyId: id };
}
