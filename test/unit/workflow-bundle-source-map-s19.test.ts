// The workflow bundle's inline source map carries no copy of the sources' text (session 19, issue
// 22's memory at the mixed peak): the SDK holds the bundle as a string and its parsed map in every
// isolate that loads it, and reads `sourcesContent` only for `showStackTraceSources` (off here).
// The mappings stay, so a workflow's stack trace still names the TypeScript file and line.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { withoutSourcesContent, workflowBundlePath } from '../../workers/workflow-bundle.js';

const PREFIX = '//# sourceMappingURL=data:application/json;base64,';

/** The inline source map of `code`, parsed (as the SDK finds it: the base64 after the last `sourceMappingURL=data:`). */
function inlineMap(code: string): Record<string, unknown> {
  const at = code.lastIndexOf('//# sourceMappingURL=data:');
  expect(at).toBeGreaterThan(0);
  const b64 = code.indexOf('base64,', at) + 'base64,'.length;
  return JSON.parse(Buffer.from(code.slice(b64).trimEnd(), 'base64').toString('utf8')) as Record<string, unknown>;
}

describe("the workflow bundle's source map without the sources' text (session 19)", () => {
  it('drops sourcesContent and keeps the code, mappings, sources and names as they were', () => {
    const map = {
      version: 3,
      file: 'bundle.js',
      sources: ['webpack://svc/workflows/verify.ts'],
      sourcesContent: ['export async function verify() {}\n'.repeat(1000)],
      names: ['verify'],
      mappings: 'AAAA,SAASA',
    };
    const code = `const x = 1;\n${PREFIX}${Buffer.from(JSON.stringify(map)).toString('base64')}`;
    const out = withoutSourcesContent(code);
    expect(out.startsWith('const x = 1;\n')).toBe(true);
    const { sourcesContent, ...rest } = map;
    expect(sourcesContent[0]!.length).toBeGreaterThan(30_000);
    expect(inlineMap(out)).toEqual(rest);
    expect(out.length).toBeLessThan(code.length / 10);
    // A bundle without an inline map is left alone.
    expect(withoutSourcesContent('const y = 2;\n')).toBe('const y = 2;\n');
  });

  it('the bundle every worker loads has mappings for the project sources and none of their text', async () => {
    const code = readFileSync(await workflowBundlePath(), 'utf8');
    const map = inlineMap(code);
    expect(map).not.toHaveProperty('sourcesContent');
    expect(String(map.mappings).length).toBeGreaterThan(100_000);
    expect((map.sources as string[]).some((s) => s.endsWith('workflows/verify.ts'))).toBe(true);
    // 2.8 M characters with the sources' text (session 17's ASCII bundle); ~1.5 M without it.
    expect(code.length).toBeLessThan(2_000_000);
    // It still compiles as a script, and the SDK's own parse of the bundle accepts it.
    expect(() => new vm.Script(code, { filename: 'bundle.js' })).not.toThrow();
    const { parseWorkflowCode } = (await import('@temporalio/worker/lib/worker.js')) as unknown as {
      parseWorkflowCode: (c: string, p?: string) => { code: string; sourceMap: { sourcesContent?: unknown } };
    };
    const parsed = parseWorkflowCode(code, '/tmp/bundle.js');
    expect(parsed.sourceMap.sourcesContent).toBeUndefined();
  }, 300_000);
});
