// Local secrets: generated once into a git-ignored env file (dev) or per test run.
// Production never uses this file: it reads the same variables from its environment.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { generateApiKey, TEST_PREFIX } from '../core/api-keys.js';

export const SECRET_KEYS = [
  'SVC_JWT_SECRET_KEY',
  'SVC_API_KEY_LOOKUP_SECRET',
  'SVC_AUDIT_SECRET_KEY',
  'SVC_ATTESTATION_SIGNING_KEY_PEM',
  'SVC_A2A_SIGNING_KEY_PEM',
  'SVC_TEMPORAL_PAYLOAD_KEYS',
  'SVC_TEMPORAL_PAYLOAD_KEY_ID',
  'SVC_A2A_API_KEYS',
  'SVC_WORKFLOW_INPUT_KEY',
  'SVC_DEV_OPERATOR_USER_ID',
  'SVC_DEV_OPERATOR_PASSWORD',
] as const;

export function generateSecrets(): Record<string, string> {
  const pem = () =>
    generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return {
    SVC_JWT_SECRET_KEY: randomBytes(32).toString('hex'),
    SVC_API_KEY_LOOKUP_SECRET: randomBytes(32).toString('hex'),
    SVC_AUDIT_SECRET_KEY: randomBytes(32).toString('hex'),
    SVC_ATTESTATION_SIGNING_KEY_PEM: pem(),
    SVC_A2A_SIGNING_KEY_PEM: pem(),
    ...payloadKeySecrets(),
    // The API's proof on every workflow input (core/workflow-input-auth.ts): API and workers only.
    SVC_WORKFLOW_INPUT_KEY: randomBytes(32).toString('hex'),
    // One demo gateway key (a non-production svc_test_ key) for the agent `demo-agent`.
    SVC_A2A_API_KEYS: JSON.stringify({ [generateApiKey(TEST_PREFIX)]: 'demo-agent' }),
    // The dev stack's platform operator (infra/dev-operator.ts); unused by test stacks.
    SVC_DEV_OPERATOR_USER_ID: `usr_devop${randomBytes(8).toString('hex')}`,
    SVC_DEV_OPERATOR_PASSWORD: `devop-${randomBytes(12).toString('base64url')}`,
  };
}

/** A fresh Temporal payload key (docs/payload-encryption.md): its id encrypts, the JSON lists it. */
export function payloadKeySecrets(): { SVC_TEMPORAL_PAYLOAD_KEYS: string; SVC_TEMPORAL_PAYLOAD_KEY_ID: string } {
  const id = `local-${randomBytes(4).toString('hex')}`;
  return {
    SVC_TEMPORAL_PAYLOAD_KEYS: JSON.stringify({ [id]: randomBytes(32).toString('base64') }),
    SVC_TEMPORAL_PAYLOAD_KEY_ID: id,
  };
}

/** Parses a dotenv-style file of KEY="value" lines (values JSON-quoted so PEM newlines survive). */
export function readEnvFile(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (!m) continue;
    const raw = m[2] ?? '';
    out[m[1] as string] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  return out;
}

/** Returns the secrets in `file`, generating any that are missing (existing ones are kept). */
export function ensureSecretsFile(file: string): Record<string, string> {
  const existing = existsSync(file) ? readEnvFile(file) : {};
  const missing = SECRET_KEYS.filter((k) => !existing[k]);
  if (missing.length === 0) return existing;
  const fresh = generateSecrets();
  const merged: Record<string, string> = { ...existing };
  for (const k of missing) merged[k] = fresh[k] as string;
  // The payload key id and key list are a pair: a kept list keeps its key id (history stays readable).
  if (missing.includes('SVC_TEMPORAL_PAYLOAD_KEY_ID') && !missing.includes('SVC_TEMPORAL_PAYLOAD_KEYS')) {
    merged.SVC_TEMPORAL_PAYLOAD_KEY_ID =
      Object.keys(JSON.parse(merged.SVC_TEMPORAL_PAYLOAD_KEYS as string) as object)[0] ?? '';
  } else if (missing.includes('SVC_TEMPORAL_PAYLOAD_KEYS')) {
    merged.SVC_TEMPORAL_PAYLOAD_KEY_ID = fresh.SVC_TEMPORAL_PAYLOAD_KEY_ID as string;
  }
  const body = Object.entries(merged)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join('\n');
  writeFileSync(
    file,
    `# Generated local secrets (git-ignored). Production reads these from its environment.\n${body}\n`,
    { mode: 0o600 },
  );
  return merged;
}
