// The API process's young generation (session 20, issue 22's memory margin): infra/stack.ts
// API_V8_FLAGS caps its main thread's semi-spaces at 8 MB (4 MB in the first cut: it cost +1.0 ms of
// the API's CPU per verification on a quiet machine), where V8 lets them grow to 16 MB each
// under a load whose objects survive (node's diagnostic report showed the API's main isolate
// committing 34 MB of new space, idle and at the mixed peak). A child node under the same flags
// allocates with a high survival rate (what makes V8 grow the semi-spaces to their maximum) and
// reports its new space; the control row, without the cap, shows that the probe does grow it.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { API_V8_FLAGS } from '../../infra/stack.js';

const PROBE = `
const v8 = require('node:v8');
let keep = [];
for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; }
const ns = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');
process.stdout.write(String(ns.space_size + keep.length * 0));
`;

/** The new space's size (both semi-spaces) of a node started with `flags` after the probe's allocations. */
function newSpaceBytes(flags: string): number {
  const args = [...flags.split(/\s+/).filter(Boolean), '-e', PROBE];
  return Number(execFileSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 }));
}

const MB = 2 ** 20;

describe("the API's young generation (session 20)", () => {
  it('the stack gives the API --max-semi-space-size=8', () => {
    expect(API_V8_FLAGS.split(/\s+/)).toContain('--max-semi-space-size=8');
  });

  it("under the API's flags the new space stays within two 8 MB semi-spaces", () => {
    const bytes = newSpaceBytes(API_V8_FLAGS);
    expect(bytes).toBeGreaterThan(0);
    expect(bytes).toBeLessThanOrEqual(2 * 8 * MB);
  });

  it('without the cap the same allocations grow it past that (the probe can fail)', () => {
    const uncapped = API_V8_FLAGS.split(/\s+/)
      .filter((f) => !f.startsWith('--max-semi-space-size'))
      .join(' ');
    expect(newSpaceBytes(uncapped)).toBeGreaterThan(2 * 8 * MB);
  });
});
