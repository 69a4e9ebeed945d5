// A run cut at its deadline (session 15, docs/isolation.md): the other organization keeps a
// thread, and the organization whose run was cut is served again once its thread is replaced.
// Black-box, in the worker's engine pool (the API's pool holds the cut run's slot until the
// replacement is ready instead of keeping a spare thread; no math input reaches its 5 s deadline
// over HTTP, so that path is proven in test/unit/engine-pool-s15.test.ts): A's code scan is cut at
// its 10 s deadline (its thread terminated); B's scan right after it, while the replacement
// loads, and A's own next scan are both answered with their verdicts.
import { beforeAll, describe, expect, it } from 'vitest';
import { newTenant, post, type Member } from './helpers.js';

let a: Member;
let b: Member;
const SAFE = { code: 'import re\npattern = re.compile(r"a+")\nprint(pattern.match("aa"))\n', language: 'python' };
const safeVerdict = {
  status: 'VERIFIED',
  admission: 'ADMIT',
  developer_fields: { constraint_id: 'code_verifier.code_safe', is_safe: true },
};

beforeAll(async () => {
  [a, b] = await Promise.all([newTenant(), newTenant()]);
  // Both threads have loaded the code scanner (first use) before the attack.
  await Promise.all([
    post('/verify/code', SAFE, { 'x-api-key': a.key }),
    post('/verify/code', SAFE, { 'x-api-key': b.key }),
  ]);
}, 120_000);

describe('a run cut at its deadline', () => {
  it("A's scan is cut at its deadline; B's scan during the replacement, then A's next, get their verdicts", async () => {
    const started = Date.now();
    const attack = await post('/verify/code', { code: `${'lambda: '.repeat(50_000)}1` }, { 'x-api-key': a.key });
    expect(attack.status).toBe(503);
    expect(attack.body).toEqual({
      detail: 'Code verification timed out.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect(Date.now() - started).toBeLessThan(14_000);
    // A's thread is being replaced now; B takes the other slot and the live thread.
    const [bRes, aRes] = await Promise.all([
      post('/verify/code', SAFE, { 'x-api-key': b.key }),
      post('/verify/code', SAFE, { 'x-api-key': a.key }),
    ]);
    expect({ status: bRes.status, body: bRes.body }).toMatchObject({ status: 200, body: safeVerdict });
    // A waited for its own replacement thread, within its deadline.
    expect({ status: aRes.status, body: aRes.body }).toMatchObject({ status: 200, body: safeVerdict });
  }, 90_000);
});
