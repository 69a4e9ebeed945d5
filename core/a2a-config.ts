// Configuration of the agent-to-agent gateway (docs/a2a-gateway.md, docs/configuration.md),
// read from the environment and validated at start-up (API and worker).
import { createHash, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from './config.js';

const schema = z.object({
  /** JSON object: gateway key → agent id. Unset or `{}`: every request is 401. */
  SVC_A2A_API_KEYS: z.string().optional(),
  SVC_A2A_SIGNING_KEY_PEM: z.string().optional(),
  SVC_A2A_DEPLOYMENT_ID: z.string().min(1).max(200).default('svc-local'),
  SVC_A2A_ENGINE_TIMEOUT_SECONDS: z.coerce
    .number()
    .refine((n) => Number.isFinite(n) && n > 0 && n <= 60, 'must be > 0 and at most 60 seconds')
    .default(5),
  /** Largest `payload` (its JSON, in bytes); larger payloads get the verdict blocked/size_limit, bodies over it + 64 KiB get 413. */
  SVC_A2A_MAX_PAYLOAD_BYTES: z.coerce.number().int().min(1024).max(900_000).default(524_288),
});

export interface A2aConfig {
  /** sha256(key) → agent id: lookups compare digests in constant time, raw keys are not kept. */
  keys: Map<string, string>;
  signingKeyPem: string | undefined;
  deploymentId: string;
  engineTimeoutSeconds: number;
  maxPayloadBytes: number;
}

export const A2A_ENVELOPE_BYTES = 64 * 1024;

const digest = (k: string) => createHash('sha256').update(k, 'utf8').digest('hex');

export function loadA2aConfig(env: NodeJS.ProcessEnv): A2aConfig {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${String(first?.path.join('.'))}: ${first?.message}`);
  }
  const c = parsed.data;
  const keys = new Map<string, string>();
  if (c.SVC_A2A_API_KEYS && c.SVC_A2A_API_KEYS.trim() !== '') {
    let obj: unknown;
    try {
      obj = JSON.parse(c.SVC_A2A_API_KEYS);
    } catch {
      throw new ConfigError(
        'invalid configuration: SVC_A2A_API_KEYS must be a JSON object mapping gateway key to agent id',
      );
    }
    if (!obj || typeof obj !== 'object' || Array.isArray(obj))
      throw new ConfigError(
        'invalid configuration: SVC_A2A_API_KEYS must be a JSON object mapping gateway key to agent id',
      );
    for (const [k, v] of Object.entries(obj as Record<string, unknown>)) {
      if (k.length < 16)
        throw new ConfigError('invalid configuration: SVC_A2A_API_KEYS: every key must have at least 16 characters');
      if (typeof v !== 'string' || v.length === 0 || v.length > 256)
        throw new ConfigError('invalid configuration: SVC_A2A_API_KEYS: every agent id must be a non-empty string');
      keys.set(digest(k), v);
    }
  }
  return {
    keys,
    signingKeyPem: c.SVC_A2A_SIGNING_KEY_PEM?.replace(/\\n/g, '\n'),
    deploymentId: c.SVC_A2A_DEPLOYMENT_ID,
    engineTimeoutSeconds: c.SVC_A2A_ENGINE_TIMEOUT_SECONDS,
    maxPayloadBytes: c.SVC_A2A_MAX_PAYLOAD_BYTES,
  };
}

/** The agent a presented key belongs to, or null. Constant-time over the configured digests. */
export function agentForKey(cfg: A2aConfig, presented: string | undefined): string | null {
  if (!presented || cfg.keys.size === 0) return null;
  const d = Buffer.from(digest(presented), 'hex');
  let found: string | null = null;
  for (const [k, agent] of cfg.keys) {
    if (timingSafeEqual(Buffer.from(k, 'hex'), d)) found = agent;
  }
  return found;
}
