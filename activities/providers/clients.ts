// The two provider clients, built on the official SDKs: `openai` (OpenAI and every
// OpenAI-compatible server: vLLM, Ollama, LM Studio, llama.cpp) and `@anthropic-ai/sdk`.
// Each request has the fixed 30 s HTTP time-out, SDK retries off, and the caller's abort
// signal (the Temporal activity's cancellation, so a provider step past SVC_PROVIDER_TIMEOUT
// stops its HTTP request). Answers are JSON (OpenAI JSON mode) or a forced tool call
// (Anthropic), parsed with zod; every failure is a typed ProviderError.
// Each SDK is imported on its first use (session 21): this module is part of the worker's start,
// and the two SDKs cost its main thread ~14 MB of resident memory, in a deployment that may
// never configure a remote provider (docs/performance.md, "Session 21: memory margin").
import type OpenAI from 'openai';
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import {
  PROVIDER_HTTP_TIMEOUT_MS,
  providerSettings,
  type RemoteProviderSettings,
} from '../../core/providers-config.js';
import { ProviderCapabilityError, ProviderError } from './errors.js';
import { processEnv } from '../../core/config.js';
import { logger } from '../../core/logger.js';

export type RemoteProvider = 'openai' | 'anthropic';

export interface JsonRequest<T> {
  system: string;
  user: string;
  schema: z.ZodType<T>;
  /** Name and description of the answer (the Anthropic tool; the OpenAI prompt names the keys). */
  answerName: string;
  maxTokens: number;
  image?: { base64: string; mime: string };
  signal?: AbortSignal;
}

/** Placeholder key for servers that need none (the SDKs insist on a value; it is never a secret). */
const NO_KEY = 'svc-no-key';

const clients = new Map<string, OpenAI | Anthropic>();

const SDKS = {
  openai: () => import('openai'),
  anthropic: () => import('@anthropic-ai/sdk'),
} satisfies Record<RemoteProvider, () => Promise<unknown>>;

/**
 * Imports the SDK of each configured remote provider, off every request's path (the worker calls
 * it once it is ready): a deployment that configures a provider keeps its SDK loaded as before,
 * and its first call does not pay the import (0.2-0.9 s each on the loaded 2-core machine); one
 * that configures none never loads them. Resolves with the providers whose SDK is loaded; never
 * rejects (a call imports it again, and fails as it would have). A failed import is reported to
 * `onFailure` (default: a warning in the log, session 22) by provider and error class only: the
 * error's message may carry a path or whatever the failing module printed, never logged.
 */
export async function preloadConfiguredSdks(
  env: NodeJS.ProcessEnv = processEnv(),
  onFailure: (failure: SdkPreloadFailure) => void = logSdkPreloadFailure,
): Promise<RemoteProvider[]> {
  let configured: RemoteProvider[];
  try {
    const s = providerSettings(env);
    configured = (['openai', 'anthropic'] as const).filter((p) => s[p]);
  } catch {
    return [];
  }
  const loaded = await Promise.all(
    configured.map((p) =>
      SDKS[p]().then(
        () => p,
        (err: unknown) => {
          onFailure(sdkPreloadFailure(p, err));
          return null;
        },
      ),
    ),
  );
  return loaded.filter((p): p is RemoteProvider => p !== null);
}

/** What a failed SDK preload may say: the provider, the error's class and a Node error code (ERR_MODULE_NOT_FOUND), nothing of its message. */
export interface SdkPreloadFailure {
  provider: RemoteProvider;
  error_class: string;
  code?: string;
}

function sdkPreloadFailure(provider: RemoteProvider, err: unknown): SdkPreloadFailure {
  const cls = err instanceof Error ? err.constructor.name || 'Error' : typeof err;
  const code = (err as { code?: unknown } | null)?.code;
  return {
    provider,
    error_class: /^\w{1,64}$/.test(cls) ? cls : 'Error',
    ...(typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code) ? { code } : {}),
  };
}

const log = logger('providers');

function logSdkPreloadFailure(failure: SdkPreloadFailure): void {
  log.warn('provider SDK could not be preloaded; calls to this provider import it again and fail closed', {
    ...failure,
  });
}

/**
 * The provider's SDK module, imported on first use. An import that fails (a deployment without the
 * package, a broken install) is the provider's failure like any other: a ProviderError, never the
 * loader's own error (its code, e.g. ERR_MODULE_NOT_FOUND, would reach results as provider_error).
 */
async function loadSdk<P extends RemoteProvider>(provider: P): Promise<Awaited<ReturnType<(typeof SDKS)[P]>>> {
  try {
    return (await SDKS[provider]()) as Awaited<ReturnType<(typeof SDKS)[P]>>;
  } catch {
    throw new ProviderError(
      'provider_unavailable',
      provider,
      `The ${provider} SDK could not be loaded on this worker.`,
    );
  }
}

function settingsOf(provider: RemoteProvider): RemoteProviderSettings {
  const s = providerSettings(processEnv())[provider];
  if (!s) throw new ProviderCapabilityError(provider, `Provider '${provider}' is not configured on this worker.`);
  return s;
}

async function openaiClient(s: RemoteProviderSettings): Promise<OpenAI> {
  const id = `openai|${s.baseURL ?? ''}`;
  let c = clients.get(id) as OpenAI | undefined;
  if (!c) {
    const { default: OpenAISdk } = await loadSdk('openai');
    c = new OpenAISdk({
      apiKey: s.apiKey ?? NO_KEY,
      baseURL: s.baseURL,
      timeout: PROVIDER_HTTP_TIMEOUT_MS,
      maxRetries: 0,
    });
    clients.set(id, c);
  }
  return c;
}

async function anthropicClient(s: RemoteProviderSettings): Promise<Anthropic> {
  const id = `anthropic|${s.baseURL ?? ''}`;
  let c = clients.get(id) as Anthropic | undefined;
  if (!c) {
    const { default: AnthropicSdk } = await loadSdk('anthropic');
    c = new AnthropicSdk({
      apiKey: s.apiKey ?? NO_KEY,
      baseURL: s.baseURL,
      timeout: PROVIDER_HTTP_TIMEOUT_MS,
      maxRetries: 0,
    });
    clients.set(id, c);
  }
  return c;
}

/** The model name a provider uses (for reports; never a secret). */
export function modelOf(provider: RemoteProvider): string {
  return settingsOf(provider).model;
}

/** Maps an SDK or network error to a ProviderError whose message carries no secret. */
function mapSdkError(provider: RemoteProvider, err: unknown, withImage: boolean, signal?: AbortSignal): ProviderError {
  if (err instanceof ProviderError) return err;
  if (signal?.aborted)
    return new ProviderError(
      'provider_timeout',
      provider,
      `The ${provider} provider call was cancelled at its deadline.`,
    );
  const e = err as { name?: string; status?: number; message?: string };
  const name = `${e?.name ?? ''} ${(err as object | null)?.constructor?.name ?? ''}`;
  if (/Timeout/i.test(name))
    return new ProviderError('provider_timeout', provider, `The ${provider} provider did not answer in time.`);
  if (/Abort/i.test(name))
    return new ProviderError(
      'provider_timeout',
      provider,
      `The ${provider} provider call was cancelled at its deadline.`,
    );
  if (typeof e?.status === 'number') {
    if (
      withImage &&
      (e.status === 400 || e.status === 415 || e.status === 422) &&
      /image|vision|multimodal|modalit/i.test(e.message ?? '')
    ) {
      return new ProviderCapabilityError(provider, `The configured ${provider} model cannot read images.`);
    }
    if (e.status >= 500 || e.status === 429)
      return new ProviderError('provider_unavailable', provider, `The ${provider} provider answered HTTP ${e.status}.`);
    return new ProviderError('provider_http_error', provider, `The ${provider} provider answered HTTP ${e.status}.`);
  }
  return new ProviderError('provider_unavailable', provider, `The ${provider} provider could not be reached.`);
}

function parseAnswer<T>(provider: RemoteProvider, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    const where = first?.path.length ? first.path.join('.') : 'answer';
    throw new ProviderError(
      'malformed_answer',
      provider,
      `The ${provider} answer does not match the expected shape (${where}: ${first?.message ?? 'invalid'}).`,
    );
  }
  return parsed.data;
}

/** Keys of a zod object schema, to name them in the JSON-mode prompt. */
function jsonShapeHint(schema: z.ZodType<unknown>): string {
  try {
    return JSON.stringify(z.toJSONSchema(schema as z.ZodType));
  } catch {
    return '{}';
  }
}

async function askOpenAI<T>(req: JsonRequest<T>): Promise<T> {
  const s = settingsOf('openai');
  const client = await openaiClient(s);
  const userContent: OpenAI.Chat.Completions.ChatCompletionContentPart[] | string = req.image
    ? [
        { type: 'text', text: req.user },
        { type: 'image_url', image_url: { url: `data:${req.image.mime};base64,${req.image.base64}` } },
      ]
    : req.user;
  let completion: OpenAI.Chat.Completions.ChatCompletion;
  try {
    completion = await client.chat.completions.create(
      {
        model: s.model,
        temperature: 0,
        max_tokens: req.maxTokens,
        response_format: { type: 'json_object' },
        messages: [
          {
            role: 'system',
            content: `${req.system}\nAnswer with one JSON object only, matching this JSON Schema: ${jsonShapeHint(req.schema)}`,
          },
          { role: 'user', content: userContent },
        ],
      },
      { signal: req.signal, timeout: PROVIDER_HTTP_TIMEOUT_MS, maxRetries: 0 },
    );
  } catch (err) {
    throw mapSdkError('openai', err, req.image !== undefined, req.signal);
  }
  const choice = completion?.choices?.[0];
  if (!choice || !choice.message)
    throw new ProviderError('malformed_answer', 'openai', 'The openai answer has no message.');
  if (choice.message.refusal) throw new ProviderError('refused', 'openai', 'The openai model refused to answer.');
  if (choice.finish_reason === 'content_filter')
    throw new ProviderError('refused', 'openai', 'The openai content filter stopped the answer.');
  if (choice.finish_reason === 'length')
    throw new ProviderError('truncated', 'openai', 'The openai answer was cut off at its token limit.');
  const content = choice.message.content;
  if (typeof content !== 'string' || content.trim() === '')
    throw new ProviderError('malformed_answer', 'openai', 'The openai answer is empty.');
  let value: unknown;
  try {
    value = JSON.parse(content);
  } catch {
    throw new ProviderError('malformed_answer', 'openai', 'The openai answer is not valid JSON.');
  }
  return parseAnswer('openai', req.schema, value);
}

async function askAnthropic<T>(req: JsonRequest<T>): Promise<T> {
  const s = settingsOf('anthropic');
  const client = await anthropicClient(s);
  const content: Anthropic.Messages.ContentBlockParam[] = [];
  if (req.image) {
    content.push({
      type: 'image',
      source: {
        type: 'base64',
        media_type: req.image.mime as 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp',
        data: req.image.base64,
      },
    });
  }
  content.push({ type: 'text', text: req.user });
  const inputSchema = z.toJSONSchema(req.schema as z.ZodType) as Anthropic.Messages.Tool.InputSchema;
  let message: Anthropic.Messages.Message;
  try {
    message = await client.messages.create(
      {
        model: s.model,
        max_tokens: req.maxTokens,
        system: req.system,
        messages: [{ role: 'user', content }],
        tools: [
          {
            name: req.answerName,
            description: `Report the ${req.answerName.replace(/_/g, ' ')}.`,
            input_schema: inputSchema,
          },
        ],
        tool_choice: { type: 'tool', name: req.answerName },
      },
      { signal: req.signal, timeout: PROVIDER_HTTP_TIMEOUT_MS, maxRetries: 0 },
    );
  } catch (err) {
    throw mapSdkError('anthropic', err, req.image !== undefined, req.signal);
  }
  if (message?.stop_reason === 'refusal')
    throw new ProviderError('refused', 'anthropic', 'The anthropic model refused to answer.');
  if (message?.stop_reason === 'max_tokens')
    throw new ProviderError('truncated', 'anthropic', 'The anthropic answer was cut off at its token limit.');
  const blocks = Array.isArray(message?.content) ? message.content : [];
  const tool = blocks.find((b) => b.type === 'tool_use' && b.name === req.answerName) as
    Anthropic.Messages.ToolUseBlock | undefined;
  if (!tool)
    throw new ProviderError('malformed_answer', 'anthropic', 'The anthropic answer has no tool call with the answer.');
  return parseAnswer('anthropic', req.schema, tool.input);
}

/** One JSON answer from a remote provider, parsed against `req.schema`. Throws ProviderError. */
export async function askJson<T>(provider: RemoteProvider, req: JsonRequest<T>): Promise<T> {
  return provider === 'openai' ? askOpenAI(req) : askAnthropic(req);
}
