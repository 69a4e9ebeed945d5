// Issue 24, session 12 (breadth): every family of the issue's list run through several surface
// forms per language (test/unit/code-s12-breadth-variants.ts, generator-style: one row per
// variant), with controls that must stay admitted. Every miss is printed before the assertion,
// so a failing run names each variant the scanner no longer finds.
import { describe, expect, it } from 'vitest';
import { scanCode, type Issue } from '../../engines/code/index.js';
import { VARIANTS, type Variant } from './code-s12-breadth-variants.js';

const KINDS = new Set(['shell_execution', 'dynamic_code_execution', 'unsafe_deserialization']);

async function outcome(v: Variant): Promise<{ ok: boolean; why: string }> {
  const out = await scanCode(v.code, v.language);
  const issues = ((out.developerFields as { issues?: Issue[] }).issues ?? []).filter(
    (i) => i.severity === 'critical' && KINDS.has(i.type),
  );
  const ok = v.type === 'safe' ? issues.length === 0 : issues.some((i) => i.line_number === v.line);
  const why = `${out.kind}; ${issues.map((i) => `${i.type}@${i.line_number}`).join(' ') || 'no critical finding'}`;
  return { ok, why };
}

describe('issue 24, session 12: family × surface form, every language', () => {
  it('the table covers every language and every family kind, with controls', () => {
    const languages = new Set(VARIANTS.map((v) => v.language));
    expect([...languages].sort()).toEqual([
      'bash',
      'go',
      'java',
      'javascript',
      'php',
      'python',
      'ruby',
      'tsx',
      'typescript',
    ]);
    for (const kind of [...KINDS, 'safe']) expect(VARIANTS.some((v) => v.type === kind)).toBe(true);
    expect(VARIANTS.length).toBeGreaterThan(200);
  });

  it('every dangerous variant gets a critical finding on its line; every control is admitted', async () => {
    const misses: string[] = [];
    for (const v of VARIANTS) {
      const { ok, why } = await outcome(v);
      if (!ok)
        misses.push(
          `${v.family} [${v.language}] line ${v.line}: ${JSON.stringify(v.code.split('\n')[v.line - 1])} -> ${why}`,
        );
    }
    if (misses.length > 0) console.log(`misses (${misses.length}/${VARIANTS.length}):\n${misses.join('\n')}`);
    expect(misses).toEqual([]);
  });
});
