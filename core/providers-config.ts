// LLM provider configuration (docs/natural-language.md, docs/configuration.md). Pure: reads an
// environment object, never the network. The API uses resolveProvider() to answer 400 for an
// unknown or unconfigured `provider`; the worker builds its clients from providerSettings().
// Raw API keys stay in the worker's environment: workflow inputs carry only the provider name.

export const PROVIDER_NAMES = ['local', 'openai', 'anthropic'] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];

type Env = Record<string, string | undefined>;

/** Fixed HTTP time-out of every provider request (contract, Limits); SDK retries are off. */
export const PROVIDER_HTTP_TIMEOUT_MS = 30_000;
export const DEFAULT_PROVIDER_TIMEOUT_SECONDS = 30;
export const DEFAULT_OPENAI_MODEL = 'gpt-4o-mini';
export const DEFAULT_ANTHROPIC_MODEL = 'claude-3-5-haiku-latest';

export interface RemoteProviderSettings {
  /** Undefined: the SDK's default endpoint. */
  baseURL: string | undefined;
  /** Undefined for self-hosted OpenAI-compatible servers that need no key. */
  apiKey: string | undefined;
  model: string;
}

export interface ProviderSettings {
  /** SVC_LLM_PROVIDER: the provider used when a request names none. */
  defaultProvider: ProviderName;
  openai: RemoteProviderSettings | null;
  anthropic: RemoteProviderSettings | null;
  /** SVC_PROVIDER_TIMEOUT in milliseconds: the provider activity's deadline. */
  timeoutMs: number;
}

const nonEmpty = (v: string | undefined): string | undefined => {
  const t = v?.trim();
  return t ? t : undefined;
};

export class ProviderConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProviderConfigError';
  }
}

/** SVC_PROVIDER_TIMEOUT in milliseconds (positive seconds, fractions allowed; default 30 s). */
export function providerTimeoutMs(env: Env): number {
  const raw = nonEmpty(env.SVC_PROVIDER_TIMEOUT);
  if (raw === undefined) return DEFAULT_PROVIDER_TIMEOUT_SECONDS * 1000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new ProviderConfigError('SVC_PROVIDER_TIMEOUT must be a positive number of seconds');
  return Math.round(n * 1000);
}

export function providerSettings(env: Env): ProviderSettings {
  const requested = nonEmpty(env.SVC_LLM_PROVIDER)?.toLowerCase() ?? 'local';
  if (!(PROVIDER_NAMES as readonly string[]).includes(requested)) {
    throw new ProviderConfigError(`SVC_LLM_PROVIDER must be one of ${PROVIDER_NAMES.join(', ')}`);
  }
  // OpenAI-compatible: a base URL alone is enough (vLLM, Ollama, LM Studio, llama.cpp need no key).
  const openaiKey = nonEmpty(env.SVC_OPENAI_API_KEY);
  const openaiUrl = nonEmpty(env.SVC_OPENAI_BASE_URL);
  const openai: RemoteProviderSettings | null =
    openaiKey || openaiUrl
      ? { baseURL: openaiUrl, apiKey: openaiKey, model: nonEmpty(env.SVC_OPENAI_MODEL) ?? DEFAULT_OPENAI_MODEL }
      : null;
  const anthropicKey = nonEmpty(env.SVC_ANTHROPIC_API_KEY);
  const anthropicUrl = nonEmpty(env.SVC_ANTHROPIC_BASE_URL);
  const anthropic: RemoteProviderSettings | null =
    anthropicKey || anthropicUrl
      ? {
          baseURL: anthropicUrl,
          apiKey: anthropicKey,
          model: nonEmpty(env.SVC_ANTHROPIC_MODEL) ?? DEFAULT_ANTHROPIC_MODEL,
        }
      : null;
  return { defaultProvider: requested as ProviderName, openai, anthropic, timeoutMs: providerTimeoutMs(env) };
}

/** The providers a request may name: `local` always, the remote ones when configured. */
export function configuredProviders(env: Env): ProviderName[] {
  const s = providerSettings(env);
  const out: ProviderName[] = ['local'];
  if (s.openai) out.push('openai');
  if (s.anthropic) out.push('anthropic');
  return out;
}

export type ResolvedProvider = { ok: true; provider: ProviderName } | { ok: false; detail: string };

/**
 * The provider a request uses: the named one (case-insensitive) when it is configured, else
 * SVC_LLM_PROVIDER. Unknown or unconfigured names give a detail listing what is available
 * (the routes answer 400 with it).
 */
export function resolveProvider(requested: string | undefined, env: Env): ResolvedProvider {
  let available: ProviderName[];
  let settings: ProviderSettings;
  try {
    settings = providerSettings(env);
    available = configuredProviders(env);
  } catch (err) {
    return { ok: false, detail: `LLM provider configuration is invalid: ${(err as Error).message}` };
  }
  const list = available.join(', ');
  const name = requested?.trim().toLowerCase();
  if (name === undefined || name === '') {
    if (available.includes(settings.defaultProvider)) return { ok: true, provider: settings.defaultProvider };
    return {
      ok: false,
      detail: `The default LLM provider '${settings.defaultProvider}' (SVC_LLM_PROVIDER) is not configured. Available providers: ${list}.`,
    };
  }
  if (!(PROVIDER_NAMES as readonly string[]).includes(name)) {
    return { ok: false, detail: `Unknown provider '${requested!.trim().slice(0, 64)}'. Available providers: ${list}.` };
  }
  if (!available.includes(name as ProviderName)) {
    return { ok: false, detail: `Provider '${name}' is not configured on this server. Available providers: ${list}.` };
  }
  return { ok: true, provider: name as ProviderName };
}
