// The workflow bundle is written in ASCII only (session 17, issue 22's memory): V8 stores a string
// with one character above U+00FF at two bytes per character, and the SDK holds the whole bundle
// (code and inline source map) as one string in every isolate that loads it. The escapes must mean
// exactly what the characters meant: same values, same keys, same regular expressions.
import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { asciiOnly, workflowBundlePath } from '../../workers/workflow-bundle.js';

const nonAscii = (s: string) => [...s].filter((c) => c.charCodeAt(0) > 0x7f).length;

// Every place a non-ASCII character can stand in the bundle's code: a comment, an identifier used
// as a key, a string, a template, a regular expression (with and without `u`), an identity escape
// (`\–`), an escaped backslash before one, and a character outside the BMP.
const SAMPLE = [
  '// Baagøe — a comment',
  "const fold = { а: 'a', ꜱ: 's', 'ー': '-' };",
  "const dash = '‐‑–—';",
  'const excerpt = (t) => `${t}…`;',
  'const re = /[‐‑–—]+/g;',
  'const reU = /^[ᴀ-ᴢ]$/u;',
  "const ident = '\\–';",
  "const slash = '\\\\–';",
  "const astral = '😀';",
  "({ keys: Object.keys(fold), fold, dash, excerpt: excerpt('x'), split: 'a–b—c'.split(re), reU: reU.test('ᴍ'), ident, slash, astral, len: astral.length });",
  '//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==',
].join('\n');

describe('the workflow bundle is ASCII only (session 17)', () => {
  it('escapes every non-ASCII character of the code, and the code means the same', () => {
    const out = asciiOnly(SAMPLE);
    expect(nonAscii(SAMPLE)).toBeGreaterThan(20);
    expect(nonAscii(out)).toBe(0);
    const before = vm.runInNewContext(SAMPLE) as Record<string, unknown>;
    const after = vm.runInNewContext(out) as Record<string, unknown>;
    expect(JSON.stringify(after)).toBe(JSON.stringify(before));
    expect(after).toMatchObject({
      keys: ['а', 'ꜱ', 'ー'],
      excerpt: 'x…',
      split: ['a', 'b', 'c'],
      reU: true,
      ident: '–',
      slash: '\\–',
      astral: '😀',
      len: 2,
    });
    // The inline source map is left as it was.
    expect(out.endsWith('//# sourceMappingURL=data:application/json;base64,eyJ2ZXJzaW9uIjozfQ==')).toBe(true);
  });

  it('the bundle every worker loads is ASCII: one byte per character in V8, not two', async () => {
    const code = readFileSync(await workflowBundlePath(), 'utf8');
    // It carries agent-guards' look-alike table (engines/agent-guards/text.ts), escaped.
    expect(code).toContain("\\u0430: 'a'");
    expect(nonAscii(code)).toBe(0);
    // It still compiles as a script (what the SDK does with it in each isolate).
    expect(() => new vm.Script(code, { filename: 'bundle.js' })).not.toThrow();
  }, 300_000);
});
