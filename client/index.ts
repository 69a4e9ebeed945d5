// A small typed client for the service. The API key comes from the argument or, when none is
// passed, from the SVC_API_KEY environment variable (contract, Authentication 10).
export interface ClientOptions {
  baseUrl?: string;
  apiKey?: string;
  /** Request time-out in milliseconds (default 60 s). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export class SvcApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(`${status}: ${detail}`);
    this.name = 'SvcApiError';
  }
}

export interface DiagnosticResult {
  status: 'VERIFIED' | 'UNVERIFIABLE' | 'BLOCKED';
  agent_message: string;
  developer_fields: Record<string, unknown>;
  proof_ref: string | null;
  is_authoritative: boolean;
  admission?: 'ADMIT' | 'BLOCKED';
}

export class SvcClient {
  private readonly baseUrl: string;
  private readonly apiKey: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  constructor(opts: ClientOptions = {}) {
    this.baseUrl = (opts.baseUrl ?? process.env.SVC_BASE_URL ?? 'http://127.0.0.1:8000').replace(/\/+$/, '');
    this.apiKey = opts.apiKey ?? process.env.SVC_API_KEY;
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.fetchImpl = opts.fetch ?? fetch;
  }

  async request<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const h: Record<string, string> = { ...headers };
    if (this.apiKey && !h['x-api-key'] && !h.authorization) h['x-api-key'] = this.apiKey;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await this.fetchImpl(`${this.baseUrl}${path}`, {
      method,
      headers: h,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    const text = await res.text();
    const parsed: unknown = text ? JSON.parse(text) : undefined;
    if (!res.ok) {
      const detail =
        (parsed as { detail?: string })?.detail ?? (parsed as { error?: { message?: string } })?.error?.message ?? res.statusText;
      throw new SvcApiError(res.status, detail, parsed);
    }
    return parsed as T;
  }

  health() {
    return this.request<{ status: string; service: string; version: string; timestamp: string }>('GET', '/health');
  }

  verifyMath(expression: string, extra: { context?: Record<string, unknown>; tolerance?: number | string } = {}) {
    return this.request<Record<string, unknown>>('POST', '/verify/math', { expression, ...extra });
  }

  verifyCode(code: string, language = 'python') {
    return this.request<DiagnosticResult>('POST', '/verify/code', { code, language });
  }

  verifySql(query: string, schemaDdl: string, dialect = 'sqlite') {
    return this.request<DiagnosticResult>('POST', '/verify/sql', { query, schema_ddl: schemaDdl, dialect });
  }

  verifyLogic(query: string) {
    return this.request<{ status: string; model?: Record<string, string> }>('POST', '/verify/logic', { query });
  }
}
