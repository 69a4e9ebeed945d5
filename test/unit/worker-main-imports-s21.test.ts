// What the worker's main thread loads at its start (session 21, memory margin): neither provider
// SDK (openai, @anthropic-ai/sdk: ~14 MB of its resident memory, imported on the first remote
// provider call: activities/providers/clients.ts) nor the code engine's barrel (its rules,
// tree-sitter: ~6 MB; the code activity needs only the verdict's helpers, engines/code/verdict.ts).
// ES modules are not in require's cache, so the probe records every module the ESM loader loads
// (a load hook) as well as the CommonJS ones.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every module file (ESM and CommonJS) a fresh process has loaded after importing `modules`. */
function filesLoadedBy(modules: string[], then = ''): string[] {
  const hooks = `
    const seen = [];
    export async function initialize({ port }) { port.on('message', () => port.postMessage(seen)); port.unref(); }
    export async function load(url, context, next) { seen.push(url); return next(url, context); }`;
  const script = `
    import { register, createRequire } from 'node:module';
    import { MessageChannel } from 'node:worker_threads';
    const { port1, port2 } = new MessageChannel();
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}), import.meta.url, {
      data: { port: port2 },
      transferList: [port2],
    });
    for (const m of ${JSON.stringify(modules)}) await import(m);
    ${then}
    const esm = await new Promise((resolve) => { port1.once('message', resolve); port1.postMessage('list'); });
    port1.close();
    const cjs = Object.keys(createRequire(import.meta.url).cache);
    console.log(JSON.stringify([...esm, ...cjs]));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as string[];
}

const has = (files: string[], part: string) => files.some((f) => f.includes(part));

describe("the worker's main thread (session 21)", () => {
  /** What the worker's composition root imports at its start (as test/unit/worker-main-imports.test.ts). */
  const WORKER_START = [
    path.join(ROOT, 'activities/index.ts'),
    path.join(ROOT, 'activities/sandbox/runner.ts'),
    path.join(ROOT, 'engines/sql/pg-check.ts'),
    path.join(ROOT, 'engines/logic/index.ts'),
    path.join(ROOT, 'activities/isolation/engine-pool.ts'),
  ];

  it('loads neither provider SDK nor the code engine at start (the probe sees both when they are imported)', () => {
    const atStart = filesLoadedBy(WORKER_START);
    // Not vacuous: the probe sees the activities' ES modules and packages.
    expect(has(atStart, '/activities/verify-code.ts')).toBe(true);
    expect(has(atStart, '/activities/providers/clients.ts')).toBe(true);
    expect(has(atStart, '/node_modules/mongodb/')).toBe(true);
    expect(has(atStart, '/node_modules/openai/')).toBe(false);
    expect(has(atStart, '/node_modules/@anthropic-ai/sdk/')).toBe(false);
    expect(has(atStart, '/engines/code/index.ts')).toBe(false);
    expect(has(atStart, '/node_modules/web-tree-sitter/')).toBe(false);

    const imported = filesLoadedBy(['openai', '@anthropic-ai/sdk', path.join(ROOT, 'engines/code/index.ts')]);
    expect(has(imported, '/node_modules/openai/')).toBe(true);
    expect(has(imported, '/node_modules/@anthropic-ai/sdk/')).toBe(true);
    expect(has(imported, '/node_modules/web-tree-sitter/')).toBe(true);
  }, 150_000);

  it('once ready, the worker loads the SDK of each configured provider only (preloadConfiguredSdks)', () => {
    const clients = JSON.stringify(path.join(ROOT, 'activities/providers/clients.ts'));
    const check = (env: Record<string, string>, expected: string[]) => `{
      const got = await (await import(${clients})).preloadConfiguredSdks(${JSON.stringify(env)});
      if (JSON.stringify(got) !== ${JSON.stringify(JSON.stringify(expected))}) throw new Error('preloaded ' + JSON.stringify(got));
    }`;
    // None configured: nothing loaded.
    const none = filesLoadedBy([], check({}, []));
    expect(has(none, '/activities/providers/clients.ts')).toBe(true);
    expect(has(none, '/node_modules/openai/')).toBe(false);
    expect(has(none, '/node_modules/@anthropic-ai/sdk/')).toBe(false);
    // An OpenAI-compatible server configured: its SDK only.
    const openai = filesLoadedBy([], check({ SVC_OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }, ['openai']));
    expect(has(openai, '/node_modules/openai/')).toBe(true);
    expect(has(openai, '/node_modules/@anthropic-ai/sdk/')).toBe(false);
    // Both.
    const both = filesLoadedBy(
      [],
      check({ SVC_OPENAI_API_KEY: 'sk-test', SVC_ANTHROPIC_API_KEY: 'sk-ant-test' }, ['openai', 'anthropic']),
    );
    expect(has(both, '/node_modules/openai/')).toBe(true);
    expect(has(both, '/node_modules/@anthropic-ai/sdk/')).toBe(true);
  }, 150_000);
});
