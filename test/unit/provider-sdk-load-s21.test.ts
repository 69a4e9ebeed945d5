// Session 21 review: the provider SDKs are imported on first use (activities/providers/clients.ts).
// An import that fails (a deployment without the package, a broken install) must fail closed as a
// typed ProviderError, `provider_unavailable`, like any other provider failure: not the loader's
// own error, whose code (ERR_MODULE_NOT_FOUND) and message (file paths) would otherwise reach a
// fact or image result's `provider_error` and reasoning. Before session 21 such a worker did not start.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const loaderError = (pkg: string) =>
  Object.assign(new Error(`Cannot find package '${pkg}' imported from /srv/svc/activities/providers/clients.ts`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
vi.mock('openai', () => {
  throw loaderError('openai');
});
vi.mock('@anthropic-ai/sdk', () => {
  throw loaderError('@anthropic-ai/sdk');
});

const { askJson, preloadConfiguredSdks } = await import('../../activities/providers/clients.js');
const { ProviderError, judgeEntailment } = await import('../../activities/providers/index.js');
const { runFact } = await import('../../activities/verify-fact.js');
const { z } = await import('zod');

beforeEach(() => {
  vi.stubEnv('SVC_OPENAI_BASE_URL', 'http://127.0.0.1:9/v1');
  vi.stubEnv('SVC_ANTHROPIC_API_KEY', 'sk-ant-test-key');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('a provider SDK that cannot be loaded (session 21 review)', () => {
  it('a call fails as provider_unavailable, a ProviderError whose message names no path or loader code', async () => {
    for (const provider of ['openai', 'anthropic'] as const) {
      const err = await askJson(provider, {
        system: 's',
        user: 'u',
        schema: z.object({ ok: z.boolean() }),
        answerName: 'answer',
        maxTokens: 10,
      }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err, provider).toBeInstanceOf(ProviderError);
      expect(err).toMatchObject({
        code: 'provider_unavailable',
        provider,
        message: `The ${provider} SDK could not be loaded on this worker.`,
      });
      expect(String((err as Error).message)).not.toMatch(/ERR_MODULE|\/srv\/|sk-ant/);
    }
  });

  it('a fact check reports provider_unavailable and rests on the deterministic signals', async () => {
    const r = await runFact(
      { judge: (p, claim, context) => judgeEntailment(p as 'openai', claim, context), providerTimeoutMs: 10_000 },
      { claim: 'The sky is green.', context: 'The sky is blue.', provider: 'anthropic' },
    );
    expect(r).toMatchObject({ provider_used: 'anthropic', provider_error: 'provider_unavailable' });
    expect((r as { verdict?: string }).verdict).not.toBe('VERIFIED');
  });

  it('the preload never rejects and reports no provider loaded', async () => {
    await expect(preloadConfiguredSdks({ ...process.env })).resolves.toEqual([]);
  });
});
