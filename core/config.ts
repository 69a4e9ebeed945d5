// Service configuration, read once from the environment and validated with zod.
// Every variable is documented in docs/configuration.md; names follow the contract (SVC_*).
import path from 'node:path';
import { z } from 'zod';
import { parseVerifyKeys, VerifyKeysConfigError } from './attestation-keys.js';
import { parsePayloadKeys, PayloadKeysConfigError } from './payload-keys.js';

const seconds = (def: number) =>
  z.coerce
    .number()
    .refine((n) => Number.isFinite(n) && n > 0, 'must be a positive number of seconds')
    .default(def);

const positiveInt = (def: number) => z.coerce.number().int().min(1).default(def);

const envSchema = z.object({
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  MONGODB_URI: z.string().default('mongodb://127.0.0.1:27017/svc'),
  TEMPORAL_ADDRESS: z.string().default('127.0.0.1:7233'),
  TEMPORAL_NAMESPACE: z.string().default('default'),
  SVC_TASK_QUEUE: z.string().default('svc-verification'),
  /**
   * on (default): the API process runs a worker for the eager-start engines (math, process, RAG)
   * on `<SVC_TASK_QUEUE>-eager`, sharing its Temporal connection (workers/api-process.ts,
   * docs/performance.md). off: every workflow goes through the standalone workers' queue.
   */
  SVC_API_WORKER: z.enum(['on', 'off']).default('on'),

  SVC_JWT_SECRET_KEY: z.string().optional(),
  SVC_API_KEY_LOOKUP_SECRET: z.string().optional(),
  SVC_AUDIT_SECRET_KEY: z.string().optional(),
  /** PKCS#8 PEM of the ES256 attestation key (literal newlines or \n escapes). */
  SVC_ATTESTATION_SIGNING_KEY_PEM: z.string().optional(),
  /** Deployment identifier: the `iss` of every attestation. */
  SVC_DEPLOYMENT_ID: z.string().default('svc-local'),
  /** Extra ES256 public keys attestations verify with (JSON array of JWKs or PEMs; see core/attestation-keys.ts). */
  SVC_ATTESTATION_VERIFY_KEYS: z.string().optional(),
  /** Comma-separated user ids of platform operators (GET /metrics, /metrics/prometheus). Unset: nobody. */
  SVC_METRICS_OPERATOR_USER_IDS: z.string().default(''),

  SVC_PROVIDER_TIMEOUT: seconds(30),
  SVC_Z3_TIMEOUT: seconds(15),
  SVC_CODE_VERIFY_TIMEOUT: seconds(10),
  SVC_MATH_TIMEOUT: seconds(5),
  SVC_BATCH_ITEM_TIMEOUT: seconds(60),
  SVC_BATCH_MAX_JOBS: positiveInt(1000),
  /**
   * A job whose workflow does not exist this long after its slot was claimed was never started
   * (its API process died between the admission and the start; its POST never answered): the
   * background sweep deletes it and frees its slot (docs/batch.md, "Session 16").
   */
  SVC_BATCH_ORPHAN_SECONDS: z.coerce
    .number()
    .refine((n) => Number.isFinite(n) && n >= 10 && n <= 3600, 'must be a number of seconds from 10 to 3600')
    .default(60),
  /** Session 18: per-POST debug spans of POST /verify/batch (api/batch-post-trace.ts; with SVC_LOG_LEVEL=debug). */
  SVC_BATCH_POST_TRACE: z.enum(['on', 'off']).default('off'),
  /**
   * Session 23: audit entry and attestation ids start with the run's start time (`time_ordered_ids`,
   * core/time-ordered-id.ts). On by default; `0`/`false` lets a rolling deploy start the API with
   * it off until every worker runs session 23's code (docs/store-access.md §17).
   */
  SVC_AUDIT_TIME_ORDERED_IDS: z
    .string()
    .default('1')
    .refine((v) => ['1', 'true', '0', 'false'].includes(v.trim().toLowerCase()), {
      message:
        'must be 1/true (on, the default) or 0/false (off, during a rolling deploy before every worker runs session 23)',
    })
    .transform((v) => ['1', 'true'].includes(v.trim().toLowerCase())),
  /**
   * Session 24: a math verification's and a batch math item's proof rides in its audit entry
   * beside the attestation record (docs/store-access.md §18). On by default; `0`/`false` keeps
   * them in `proofs`, so that API processes of session 23, which read only `proofs`, still find
   * them during a rolling deploy. Read by every process that runs the math activities.
   */
  SVC_PROOF_IN_AUDIT_ENTRY: z
    .string()
    .default('1')
    .refine((v) => ['1', 'true', '0', 'false'].includes(v.trim().toLowerCase()), {
      message:
        'must be 1/true (on, the default) or 0/false (off, during a rolling deploy before every API process runs session 24)',
    })
    .transform((v) => ['1', 'true'].includes(v.trim().toLowerCase())),
  /** How long POST /verify/batch waits for the job before answering 202 with a snapshot (0: answer at once). */
  SVC_BATCH_WAIT_SECONDS: z.coerce
    .number()
    .refine((n) => Number.isFinite(n) && n >= 0 && n <= 60, 'must be a number of seconds from 0 to 60')
    .default(5),
  SVC_SANDBOX_MAX_CONCURRENT: positiveInt(4),
  SVC_SANDBOX_ACQUIRE_TIMEOUT: seconds(10),
  /** Extra time a request waits for its workflow beyond the engine deadline (queueing, store writes). */
  SVC_WORKFLOW_GRACE: seconds(5),
  /** How long a tool call that needs approval waits for a person's decision before it is denied (docs/approvals.md). */
  SVC_APPROVAL_TIMEOUT: seconds(900),
  /** How long an admitted or approved action has to report its outcome before it is flagged (docs/approvals.md). */
  SVC_ACTION_OUTCOME_TIMEOUT: seconds(3600),
  /** Body read deadline for JSON routes, in seconds (contract: 10). */
  SVC_BODY_READ_TIMEOUT: seconds(10),
  SVC_UPLOAD_READ_TIMEOUT: seconds(30),
  /** How engine activities run: auto (per engine), normal or local for all (see docs/architecture.md). */
  SVC_ACTIVITY_MODE: z.enum(['auto', 'normal', 'local']).default('auto'),
  /**
   * API-key lookup cache of each API process, in seconds (docs/performance.md): the staleness
   * bound for key, user and organization changes made outside the process. 0 turns it off.
   */
  SVC_API_KEY_CACHE_TTL: z.coerce
    .number()
    .refine((n) => Number.isFinite(n) && n >= 0 && n <= 60, 'must be a number of seconds from 0 to 60')
    .default(5),
  /** Anonymous /auth/* requests per minute per client IP; below 1 refuses start-up. */
  SVC_RATE_LIMIT_PER_IP: z.coerce.number().int().min(1, 'SVC_RATE_LIMIT_PER_IP must be at least 1').default(10),
  /** Comma-separated IPs/CIDRs whose X-Forwarded-For is honoured (rightmost hop). */
  SVC_AUTH_TRUSTED_PROXIES: z.string().default(''),
  SVC_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),

  /** Temporal payload encryption (docs/payload-encryption.md): JSON {key id: base64 32-byte key}. */
  SVC_TEMPORAL_PAYLOAD_KEYS: z.string().optional(),
  /** The key id that encrypts new payloads (the others still decrypt). */
  SVC_TEMPORAL_PAYLOAD_KEY_ID: z.string().optional(),
  /**
   * HMAC key proving that the API made a workflow's input (core/workflow-input-auth.ts): the API
   * signs every start, the workers check before anything runs. API and workers only (never the
   * codec server); both refuse to start without it. At least 32 characters (32 random bytes, hex).
   */
  SVC_WORKFLOW_INPUT_KEY: z.string().optional(),
  /** on (default): clients and workers refuse to start without a key. off: plaintext history (not for production). */
  SVC_TEMPORAL_PAYLOAD_ENCRYPTION: z.enum(['on', 'off']).default('on'),
  /** The codec server (api/codec-server.ts): operators' Temporal UI and CLI decode payloads through it. */
  SVC_CODEC_SERVER_HOST: z.string().default('127.0.0.1'),
  SVC_CODEC_SERVER_PORT: z.coerce.number().int().min(0).max(65535).default(8234),
  /** Comma-separated browser origins allowed to call the codec server (the Temporal UI's origin). */
  SVC_CODEC_SERVER_CORS_ORIGINS: z.string().default(''),
});

export type ServiceConfig = z.infer<typeof envSchema>;

/**
 * The process environment: read here and nowhere else in the service (test/unit/env-reads.test.ts).
 * The composition roots (workers/, api/server.ts) read it and pass it, or what they parse from
 * it, down as parameters; the few settings read on every call (provider keys, the sandbox's
 * Docker host and image) come through here too, live, so a changed environment takes effect.
 */
export function processEnv(): NodeJS.ProcessEnv {
  return process.env;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw new ConfigError(`invalid configuration: ${String(first?.path.join('.'))}: ${first?.message}`);
  }
  const cfg = parsed.data;
  if (cfg.SVC_ATTESTATION_SIGNING_KEY_PEM) {
    cfg.SVC_ATTESTATION_SIGNING_KEY_PEM = cfg.SVC_ATTESTATION_SIGNING_KEY_PEM.replace(/\\n/g, '\n');
  }
  try {
    parseVerifyKeys(cfg.SVC_ATTESTATION_VERIFY_KEYS);
  } catch (err) {
    if (err instanceof VerifyKeysConfigError)
      throw new ConfigError(`invalid configuration: SVC_ATTESTATION_VERIFY_KEYS: ${err.message}`);
    throw err;
  }
  try {
    parsePayloadKeys(cfg.SVC_TEMPORAL_PAYLOAD_KEYS);
  } catch (err) {
    if (err instanceof PayloadKeysConfigError) throw new ConfigError(`invalid configuration: ${err.message}`);
    throw err;
  }
  return cfg;
}

/**
 * The API server's start-up rules (contract, Authentication 5): it refuses to start when the
 * API-key lookup secret is missing or equals the JWT secret. The message says which.
 */
export function assertServerSecrets(cfg: ServiceConfig): void {
  if (!cfg.SVC_API_KEY_LOOKUP_SECRET) {
    throw new ConfigError(
      'SVC_API_KEY_LOOKUP_SECRET is not set: the server refuses to start without the API-key lookup secret',
    );
  }
  if (cfg.SVC_JWT_SECRET_KEY && cfg.SVC_API_KEY_LOOKUP_SECRET === cfg.SVC_JWT_SECRET_KEY) {
    throw new ConfigError('SVC_API_KEY_LOOKUP_SECRET equals SVC_JWT_SECRET_KEY: the two secrets must differ');
  }
}

/** The task queue of the eager-start engines: the API's in-process worker and the standalone workers poll it. */
export function eagerTaskQueue(cfg: Pick<ServiceConfig, 'SVC_TASK_QUEUE'>): string {
  return `${cfg.SVC_TASK_QUEUE}-eager`;
}

/** A pool size or cap from the environment: unset or blank is undefined, anything but a positive integer is refused at start. */
export function positiveIntEnv(name: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new RangeError(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return n;
}

/** The /verify/sql engine's PostgreSQL (PGlite) check: its switch and deadlines (engines/sql/pg-check.ts takes them as parameters). */
export interface SqlEngineConfig {
  pgCheck: {
    enabled: boolean;
    bootWaitMs: number;
    timeoutMs: number;
    idleReleaseMs: number;
    dataDirCache?: string;
    dataDirOnDisk?: boolean;
    v8Flags?: string[];
  };
}

/**
 * SVC_SQL_PG_CHECK (`0`/`false`: off), SVC_SQL_PG_BOOT_WAIT_MS (7000, never past the request's
 * budget), SVC_SQL_PG_CHECK_TIMEOUT_MS (4000), SVC_SQL_PG_IDLE_RELEASE_MS (300000; `0`: PGlite is
 * never released), SVC_SQL_PG_DATADIR_CACHE (`.data/pglite`; `0`: none), SVC_SQL_PG_DATADIR_ON_DISK
 * (on; `0`/`false`: PostgreSQL's files in PGlite's memory, as until session 18), SVC_SQL_PG_V8_FLAGS
 * (PGlite's process's V8 flags, space-separated; unset: pg-check.ts's PG_PROCESS_V8_FLAGS, empty:
 * V8's defaults): docs/configuration.md.
 */
export function loadSqlEngineConfig(env: NodeJS.ProcessEnv = process.env): SqlEngineConfig {
  const ms = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return fallback;
    const v = Number(raw);
    if (!Number.isFinite(v) || v <= 0)
      throw new ConfigError(
        `invalid configuration: ${name} must be a positive number of milliseconds, got ${JSON.stringify(raw)}`,
      );
    return v;
  };
  const flag = env.SVC_SQL_PG_CHECK;
  const cacheDir = env.SVC_SQL_PG_DATADIR_CACHE?.trim();
  const onDisk = env.SVC_SQL_PG_DATADIR_ON_DISK?.trim();
  const v8Flags = env.SVC_SQL_PG_V8_FLAGS?.trim().split(/\s+/).filter(Boolean);
  const badFlag = v8Flags?.find((f) => !/^--[a-z0-9][a-z0-9_-]*(=[A-Za-z0-9_.,:-]+)?$/.test(f));
  if (badFlag !== undefined)
    throw new ConfigError(
      `invalid configuration: SVC_SQL_PG_V8_FLAGS must be V8 flags such as --liftoff-only, got ${JSON.stringify(badFlag)}`,
    );
  return {
    pgCheck: {
      enabled: flag !== '0' && flag !== 'false',
      bootWaitMs: ms('SVC_SQL_PG_BOOT_WAIT_MS', 7_000),
      timeoutMs: ms('SVC_SQL_PG_CHECK_TIMEOUT_MS', 4_000),
      // PGlite holds ~200 MB; started on the first postgresql check, stopped after this idle time.
      idleReleaseMs: env.SVC_SQL_PG_IDLE_RELEASE_MS?.trim() === '0' ? 0 : ms('SVC_SQL_PG_IDLE_RELEASE_MS', 300_000),
      // Where a first start leaves PostgreSQL's fresh data directory, so later processes skip
      // initdb (its ~700 MB peak; engines/sql/pg-check.ts). Relative to the working directory.
      // Session 18: and PostgreSQL's files on disk there (a copy per start), not in PGlite's memory.
      ...(cacheDir === '0'
        ? {}
        : {
            dataDirCache: path.resolve(cacheDir || '.data/pglite'),
            dataDirOnDisk: onDisk !== '0' && onDisk !== 'false',
          }),
      // Unset: the engine's own flags (PG_PROCESS_V8_FLAGS); set, even empty, replaces them.
      ...(v8Flags === undefined ? {} : { v8Flags }),
    },
  };
}
