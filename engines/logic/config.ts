// Configuration of the Z3 pool, read from the environment the worker's composition root passes
// (the engine itself reads none). Invalid values throw (fail fast at start) rather than silently
// falling back.

export const DEFAULT_Z3_TIMEOUT_MS = 15_000;
export const DEFAULT_POOL_SIZE = 2;

function positiveNumber(name: string, raw: string): number {
  const v = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(v) || v <= 0) {
    throw new Error(`${name} must be a positive number, got ${JSON.stringify(raw)}`);
  }
  return v;
}

/** SVC_Z3_TIMEOUT, in seconds (fractions allowed); default 15 s. Returned in ms. */
export function readZ3TimeoutMs(env: NodeJS.ProcessEnv): number {
  const raw = env.SVC_Z3_TIMEOUT;
  if (raw === undefined) return DEFAULT_Z3_TIMEOUT_MS;
  return Math.round(positiveNumber('SVC_Z3_TIMEOUT', raw) * 1000);
}

/** SVC_Z3_POOL_SIZE: number of Z3 worker threads, integer 1..64; default 2. */
export function readPoolSize(env: NodeJS.ProcessEnv): number {
  const raw = env.SVC_Z3_POOL_SIZE;
  if (raw === undefined) return DEFAULT_POOL_SIZE;
  const v = positiveNumber('SVC_Z3_POOL_SIZE', raw);
  if (!Number.isInteger(v) || v > 64)
    throw new Error(`SVC_Z3_POOL_SIZE must be an integer from 1 to 64, got ${JSON.stringify(raw)}`);
  return v;
}

/**
 * SVC_Z3_ORG_CONCURRENCY: Z3 workers one organization may occupy at once (fairness across
 * organizations, docs/isolation.md); default half the pool, rounded up. Capped at the pool size.
 */
export function readOrgConcurrency(poolSize: number, env: NodeJS.ProcessEnv): number {
  const raw = env.SVC_Z3_ORG_CONCURRENCY;
  if (raw === undefined) return defaultOrgConcurrency(poolSize);
  const v = positiveNumber('SVC_Z3_ORG_CONCURRENCY', raw);
  if (!Number.isInteger(v))
    throw new Error(`SVC_Z3_ORG_CONCURRENCY must be a positive integer, got ${JSON.stringify(raw)}`);
  return Math.min(v, poolSize);
}

/** Default SVC_Z3_ORG_CONCURRENCY: half the pool, rounded up. */
export function defaultOrgConcurrency(poolSize: number): number {
  return Math.max(1, Math.ceil(poolSize / 2));
}

/**
 * The worker keeps one Z3 worker warm; the others start when a solve that may run finds none idle
 * (a second organization's query while the first holds its share) and stop after five minutes idle (as PGlite).
 * Each is ~75 MB resident; a cold start costs the query that needs it 1-3 s of its deadline
 * (docs/performance.md, memory; docs/isolation.md).
 */
export const Z3_WARM_WORKERS = 1;
export const Z3_IDLE_RELEASE_MS = 300_000;

/**
 * Session 17: the warm worker too stops after five minutes without a solve (as PGlite's process),
 * returning its ~65-75 MB (its thread, Z3's three pthreads with an isolate each, the WASM memory
 * it touched); the next solve starts one, paying its cold start out of its own deadline
 * (docs/performance.md "Session 17: the worker and its pools"). SVC_Z3_WARM_IDLE_RELEASE_MS
 * (milliseconds; `0`: the warm worker is kept for the worker's life, as before).
 */
export const Z3_WARM_IDLE_RELEASE_MS = 300_000;

/** SVC_Z3_WARM_IDLE_RELEASE_MS: milliseconds, `0` keeps the warm worker; default Z3_WARM_IDLE_RELEASE_MS. */
export function readWarmIdleReleaseMs(env: NodeJS.ProcessEnv): number {
  const raw = env.SVC_Z3_WARM_IDLE_RELEASE_MS;
  if (raw === undefined) return Z3_WARM_IDLE_RELEASE_MS;
  if (raw.trim() === '0') return 0;
  const v = positiveNumber('SVC_Z3_WARM_IDLE_RELEASE_MS', raw);
  if (!Number.isInteger(v))
    throw new Error(`SVC_Z3_WARM_IDLE_RELEASE_MS must be a whole number of milliseconds, got ${JSON.stringify(raw)}`);
  return v;
}

/** The Z3 pool's limits from `env` (the worker's composition root). */
export function logicPoolOptions(env: NodeJS.ProcessEnv): {
  size: number;
  defaultTimeoutMs: number;
  perOrgCap: number;
  warmWorkers: number;
  idleReleaseMs: number;
  warmIdleReleaseMs: number;
} {
  const size = readPoolSize(env);
  return {
    size,
    defaultTimeoutMs: readZ3TimeoutMs(env),
    perOrgCap: readOrgConcurrency(size, env),
    warmWorkers: Math.min(size, Z3_WARM_WORKERS),
    idleReleaseMs: Z3_IDLE_RELEASE_MS,
    warmIdleReleaseMs: readWarmIdleReleaseMs(env),
  };
}
