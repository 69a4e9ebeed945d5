// The client's transport: one place that sends a request, retries the retryable answers
// (429 and 503, honouring Retry-After within bounds) and turns every other non-2xx answer into
// a typed SvcApiError. Nothing here ever turns an error into a success: a request either
// resolves with the service's 2xx body (or a verdict the endpoint sends with 403, see
// `verdictOn403`) or rejects.

export interface RetryPolicy {
  /** Attempts in all, the first one included (default 4). 1 disables retries. */
  maxAttempts: number;
  /** Upper bound on the sum of all waits between attempts, in ms (default 30 s). A Retry-After beyond what is left gives up at once. */
  maxTotalWaitMs: number;
  /** Back-off when the answer names no wait: base * 2^(retry-1), in ms (default 500). */
  baseDelayMs: number;
  /** Cap on one computed back-off step, in ms (default 8 s). Does not shorten an explicit Retry-After. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxAttempts: 4,
  maxTotalWaitMs: 30_000,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
};

/** The statuses worth another attempt: rate limited, or the service said it is busy. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export interface ClientOptions {
  /** Base URL (default SVC_BASE_URL, else http://127.0.0.1:8000). A hosted base ends in /v1. */
  baseUrl?: string;
  /** API key (default SVC_API_KEY). Sent as X-API-Key on key-authenticated endpoints. */
  apiKey?: string;
  /** Bearer access token for /auth/me, /auth/api-keys and /audit/* (default SVC_ACCESS_TOKEN). */
  accessToken?: string;
  /** Per-attempt time-out in milliseconds (default 60 s). */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof fetch;
  /** Waits between attempts; replaceable in tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Called before each wait (attempt number just failed, wait in ms, status). */
  onRetry?: (info: { attempt: number; waitMs: number; status: number }) => void;
  /** Called with every answer's status and headers (the CLI's --verbose shows X-Workflow-Id). */
  onResponse?: (info: { method: string; path: string; status: number; headers: Headers }) => void;
}

/** A non-2xx answer from the service. `detail` is the service's own message. */
export class SvcApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(`${status}: ${detail}`);
    this.name = 'SvcApiError';
  }

  /** The machine-readable code when the body carries one (`SVC-005`, `SVC-AGENT-CTX-001`). */
  get code(): string | undefined {
    const b = this.body as { code?: unknown; error?: { code?: unknown } } | undefined;
    const code = b?.error?.code ?? b?.code;
    return typeof code === 'string' ? code : undefined;
  }

  /** Whether waiting and trying again may help (429, 503). */
  get retryable(): boolean {
    return RETRYABLE_STATUSES.has(this.status);
  }
}

/** The service could not be reached, or an attempt timed out: there is no answer at all. */
export class SvcNetworkError extends Error {
  constructor(
    message: string,
    cause: unknown,
    readonly timedOut: boolean,
  ) {
    super(message, { cause });
    this.name = 'SvcNetworkError';
  }
}

/**
 * Retry-After as milliseconds from `now`: delta-seconds or an HTTP-date (RFC 9110 10.2.3).
 * A date in the past is 0; anything unparseable is null (the caller falls back to back-off).
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | null {
  if (value == null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  // Only the date forms: a bare number with a sign or fraction is not a valid Retry-After.
  if (!/[A-Za-z]/.test(v)) return null;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now);
}

/** The SVC-005 body names its own wait (`error.details.retry_after`, seconds). */
function bodyRetryAfter(body: unknown): number | null {
  const s = (body as { error?: { details?: { retry_after?: unknown } } } | undefined)?.error?.details?.retry_after;
  return typeof s === 'number' && Number.isFinite(s) && s >= 0 ? s * 1000 : null;
}

export function errorDetail(body: unknown, fallback: string): string {
  const b = body as { detail?: unknown; error?: { message?: unknown } } | undefined;
  if (typeof b?.detail === 'string') return b.detail;
  if (typeof b?.error?.message === 'string') return b.error.message;
  return fallback;
}

export type Auth = 'none' | 'key' | 'jwt' | 'agent' | 'key-or-jwt';

export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  auth: Auth;
  query?: Record<string, unknown>;
  json?: unknown;
  form?: FormData;
  /** A body sent byte for byte (the webhook intake, whose signature covers the raw bytes). */
  rawBody?: string;
  headers?: Record<string, string>;
  /** An agent token for `auth: 'agent'`. */
  agentToken?: string;
  /**
   * Endpoints that send a BLOCKED verdict with HTTP 403 (logic, stats): such a body is the
   * verdict and is returned, not thrown. Any other 403 still throws.
   */
  verdictOn403?: boolean;
  /** Response body kind (default json). */
  as?: 'json' | 'text';
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Transport {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;
  readonly accessToken: string | undefined;
  readonly timeoutMs: number;
  readonly retry: RetryPolicy;
  private readonly fetchImpl: typeof fetch;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly onRetry: ClientOptions['onRetry'];
  private readonly onResponse: ClientOptions['onResponse'];

  constructor(opts: ClientOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? process.env.SVC_BASE_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');
    this.apiKey = opts.apiKey ?? (process.env.SVC_API_KEY || undefined);
    this.accessToken = opts.accessToken ?? (process.env.SVC_ACCESS_TOKEN || undefined);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.retry = { ...DEFAULT_RETRY, ...opts.retry };
    if (!(this.retry.maxAttempts >= 1)) throw new RangeError('retry.maxAttempts must be at least 1');
    this.fetchImpl = opts.fetch ?? fetch;
    this.sleep = opts.sleep ?? defaultSleep;
    this.onRetry = opts.onRetry;
    this.onResponse = opts.onResponse;
  }

  private headersFor(spec: RequestSpec): Record<string, string> {
    const h: Record<string, string> = { accept: spec.as === 'text' ? '*/*' : 'application/json', ...spec.headers };
    const wantKey = spec.auth === 'key' || spec.auth === 'key-or-jwt';
    const wantJwt = spec.auth === 'jwt' || spec.auth === 'key-or-jwt';
    if (wantKey && this.apiKey && !h['x-api-key'] && !h.authorization) h['x-api-key'] = this.apiKey;
    if (wantJwt && this.accessToken && !h.authorization) h.authorization = `Bearer ${this.accessToken}`;
    if (spec.auth === 'agent' && spec.agentToken) h['x-agent-token'] = spec.agentToken;
    if (spec.json !== undefined) h['content-type'] = 'application/json';
    return h;
  }

  private url(spec: RequestSpec): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(spec.query ?? {})) {
      if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') q.set(k, String(v));
      else if (v !== undefined && v !== null)
        throw new TypeError(`query parameter '${k}' must be a string, number or boolean`);
    }
    const qs = q.toString();
    return `${this.baseUrl}${spec.path}${qs ? `?${qs}` : ''}`;
  }

  async send<T>(spec: RequestSpec): Promise<T> {
    const headers = this.headersFor(spec);
    const url = this.url(spec);
    // The body is built once; a FormData can be sent again on a retry.
    const body = spec.form ?? spec.rawBody ?? (spec.json === undefined ? undefined : JSON.stringify(spec.json));
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetchImpl(url, {
          method: spec.method,
          headers,
          body,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (err) {
        const timedOut = (err as Error)?.name === 'TimeoutError' || (err as Error)?.name === 'AbortError';
        throw new SvcNetworkError(
          timedOut
            ? `no answer from ${this.baseUrl} within ${this.timeoutMs} ms`
            : `cannot reach ${this.baseUrl}: ${(err as Error)?.message ?? String(err)}`,
          err,
          timedOut,
        );
      }
      this.onResponse?.({ method: spec.method, path: spec.path, status: res.status, headers: res.headers });
      const text = await res.text();
      let parsed: unknown = undefined;
      if (spec.as === 'text' && res.ok) return text as T;
      if (text) {
        try {
          parsed = JSON.parse(text);
        } catch {
          // A 2xx that is not JSON where JSON was promised is not a result: never a pass.
          if (res.ok) throw new SvcApiError(res.status, 'response is not JSON', text);
          parsed = text;
        }
      }
      if (res.ok) return parsed as T;
      if (res.status === 403 && spec.verdictOn403 && (parsed as { status?: unknown } | undefined)?.status === 'BLOCKED')
        return parsed as T;
      const error = new SvcApiError(res.status, errorDetail(parsed, res.statusText || `HTTP ${res.status}`), parsed);
      if (!RETRYABLE_STATUSES.has(res.status) || attempt >= this.retry.maxAttempts) throw error;
      const named = parseRetryAfter(res.headers.get('retry-after')) ?? bodyRetryAfter(parsed);
      const wait = named ?? Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** (attempt - 1));
      // Give up rather than wait past the budget: the caller gets the service's own error.
      if (waited + wait > this.retry.maxTotalWaitMs) throw error;
      this.onRetry?.({ attempt, waitMs: wait, status: res.status });
      waited += wait;
      await this.sleep(wait);
    }
  }
}
