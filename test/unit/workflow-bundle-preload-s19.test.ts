// The workflow bundle preloads the agent guards' text helpers (session 19, workers/workflow-bundle.ts
// WORKFLOW_PRELOAD_MODULES): with the SDK's reusable V8 context, a module reached by a run's
// `importWorkflows()` is evaluated afresh for every run, and these helpers bring re2js's tables and
// eight RE2 compilations into every verification's run. Preloaded, they are evaluated once per
// workflow thread, in the shared module cache, before any run exists.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WORKFLOW_PRELOAD_MODULES, workflowBundlePath } from '../../workers/workflow-bundle.js';

/** The body of the bundle's generated `preloadModules` function (the SDK's entrypoint). */
function preloadBody(code: string): string {
  const m = /exports\.preloadModules = function preloadModules\(\) \{([\s\S]*?)\n\}/.exec(code);
  if (!m) throw new Error('the bundle has no preloadModules entry');
  return m[1] as string;
}

describe('workflow bundle: modules evaluated once per workflow thread (session 19)', () => {
  it('the text helpers are the preloaded module, and they are pure enough for the shared cache', () => {
    expect(WORKFLOW_PRELOAD_MODULES[0]).toBe('engines/agent-guards/text.ts');
    // Pure helpers only: no workflow module (those call the workflow API at module level, per run).
    expect(WORKFLOW_PRELOAD_MODULES.filter((m) => m.startsWith('workflows/'))).toEqual([]);
  });

  it("the built bundle's preloadModules requires them (so re2js lands in the shared module cache)", async () => {
    const code = readFileSync(await workflowBundlePath(), 'utf8');
    for (const m of WORKFLOW_PRELOAD_MODULES) expect(preloadBody(code)).toContain(`"./${m}"`);
    // The agent workflow still reaches the same module (one module id, resolved from the shared cache).
    expect(code.match(/^\/\*\*\*\/ "\.\/engines\/agent-guards\/text\.ts"/gm)).toHaveLength(1);
    expect(code).toMatch(/^\/\*\*\*\/ "[^"]*node_modules\/re2js\/build\/index\.js"/m);
  });

  it("the preloaded module survives the SDK's freeze of its exports and answers the same every time", async () => {
    const text = await import('../../engines/agent-guards/text.js');
    // As the SDK's reusable context does to a shared module's exports: the exports object and each
    // exported function or object frozen (functions' own properties and Sets' contents are not walked).
    const exports = { ...text } as Record<string, unknown>;
    for (const v of Object.values(exports))
      if (v && (typeof v === 'object' || typeof v === 'function')) Object.freeze(v);
    Object.freeze(exports);
    const mask = exports.maskKeyShaped as typeof text.maskKeyShaped;
    const sample = 'token svclive1234abcd and AKIA0123456789ABCDEF here';
    const first = mask(sample);
    expect(first).not.toContain('svclive1234abcd');
    for (let i = 0; i < 3; i++) expect(mask(sample)).toBe(first);
    expect((exports.SMALL_CAPS as Set<string>).has('\u1d00')).toBe(text.SMALL_CAPS.has('\u1d00'));
  });
});
