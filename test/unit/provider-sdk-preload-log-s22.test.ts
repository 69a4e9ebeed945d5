// Session 22 (issue 22, set-up hygiene): the worker preloads the SDK of each configured provider
// once it is ready (activities/providers/clients.ts preloadConfiguredSdks, called by
// workers/verification-worker.ts). A failed preload used to vanish; it is logged now, as a
// warning naming the provider and the error's class (and a Node error code), never the error's
// message, which may carry a path, a URL or a key.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const KEY = 'sk-ant-s22-preload-key';
vi.mock('openai', () => {
  throw Object.assign(new Error(`Cannot find package 'openai' imported from /srv/svc (key ${KEY})`), {
    code: 'ERR_MODULE_NOT_FOUND',
  });
});
vi.mock('@anthropic-ai/sdk', () => {
  throw new TypeError(`bad install near ${KEY}`);
});

const { preloadConfiguredSdks } = await import('../../activities/providers/clients.js');

let lines: string[] = [];
beforeEach(() => {
  lines = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  vi.stubEnv('SVC_OPENAI_BASE_URL', 'http://127.0.0.1:9/v1');
  vi.stubEnv('SVC_ANTHROPIC_API_KEY', KEY);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('a failed provider SDK preload (session 22)', () => {
  it('is reported per provider with its error class, never its message', async () => {
    const failures: unknown[] = [];
    await expect(preloadConfiguredSdks({ ...process.env }, (f) => failures.push(f))).resolves.toEqual([]);
    const byProvider = Object.fromEntries(failures.map((f) => [(f as { provider: string }).provider, f]));
    expect(Object.keys(byProvider).sort()).toEqual(['anthropic', 'openai']);
    expect(byProvider.anthropic).toMatchObject({
      provider: 'anthropic',
      error_class: expect.stringMatching(/^\w*Error$/),
    });
    expect((byProvider.openai as { error_class: string }).error_class).toMatch(/^\w*Error$/);
    expect(JSON.stringify(failures)).not.toMatch(/sk-ant|\/srv\/|Cannot find|bad install/);
  });

  it("is logged as a warning by default (the worker's call), without the key or the message", async () => {
    await preloadConfiguredSdks({ ...process.env });
    const warnings = lines
      .flatMap((l) => l.split('\n'))
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.component === 'providers' && l.level === 'warn');
    expect(warnings.map((w) => w.provider).sort()).toEqual(['anthropic', 'openai']);
    for (const w of warnings) {
      expect(w.msg).toBe('provider SDK could not be preloaded; calls to this provider import it again and fail closed');
      expect(typeof w.error_class).toBe('string');
    }
    expect(lines.join('')).not.toMatch(/sk-ant|\/srv\/|Cannot find|bad install/);
  });

  it('logs nothing when no provider is configured', async () => {
    await expect(preloadConfiguredSdks({ PATH: process.env.PATH })).resolves.toEqual([]);
    expect(lines.join('')).toBe('');
  });
});
