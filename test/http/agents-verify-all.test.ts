// Black-box rows of issue 28 item 3: POST /agents/{id}/verify checks every fenced block and
// every claim of the query; the verdict is VERIFIED only when all of it is, text no engine
// checked is reported as unverified (never under VERIFIED, never admitted), and
// verified_claim never echoes unchecked text (docs/agents.md, "Every part is checked").
import { beforeAll, describe, expect, it } from 'vitest';
import { db, newTenant, post, type Member } from './helpers.js';

const ctx = (step = 1) => ({ conversation_id: 'conv-all', step_number: step });

interface Agent {
  id: number;
  agent_id: string;
  agent_token: string;
}

let A: Member;
let agent: Agent;
const verify = (query: string, extra: Record<string, unknown> = {}) =>
  post(`/agents/${agent.id}/verify`, { query, context: ctx(), ...extra }, { 'x-agent-token': agent.agent_token });

beforeAll(async () => {
  A = await newTenant();
  const res = await post('/agents/register', { name: 'verify-all' }, { 'x-api-key': A.key });
  if (res.status !== 200) throw new Error(`register failed: ${res.status} ${res.text}`);
  agent = res.body;
});

const SAFE_BLOCK = '```python\ndef add(a, b):\n    return a + b\n```';
const RM_BLOCK = '```python\nimport os\nos.system("rm -rf /")\n```';
const REFUND = 'The refund of $25,000 is approved.';

describe('POST /agents/{id}/verify: every block and claim (issue 28 item 3)', () => {
  it('attack 1: a safe first block does not cover a second block running os.system("rm -rf /")', async () => {
    const r = await verify(`Here is the plan.\n${SAFE_BLOCK}\nand then\n${RM_BLOCK}`);
    expect(r.status).toBe(200);
    expect(r.body.verification.admission).not.toBe('ADMIT');
    expect(r.body.verification.admission).toBe('BLOCKED');
    // Both blocks went to the code engine; the second one is the one that blocks.
    const code = r.body.verification.parts.filter((p: any) => p.engine === 'code');
    expect(code).toHaveLength(2);
    expect(code[0]).toMatchObject({ index: 2, status: 'VERIFIED', admission: 'ADMIT' });
    expect(code[1]).toMatchObject({ index: 4, status: 'VERIFIED', admission: 'BLOCKED' });
    expect(code[1].text).toContain('os.system');
    // The prose around the blocks was checked by no engine: reported, and the verdict is not VERIFIED.
    expect(r.body).toMatchObject({ status: 'UNVERIFIABLE', verified: false });
    expect(r.body.verification.unverified.map((u: any) => u.text)).toEqual(['Here is the plan', 'and then']);
    expect(r.body.verification.proof_ref).toBeNull();
  });

  it('attack 1 without prose: two code blocks, the second unsafe: not admitted, the blocking block named', async () => {
    const r = await verify(`${SAFE_BLOCK}\n${RM_BLOCK}`);
    expect(r.status).toBe(200);
    expect(r.body.verification.admission).toBe('BLOCKED');
    expect(r.body.verification.parts.map((p: any) => [p.engine, p.status, p.admission])).toEqual([
      ['code', 'VERIFIED', 'ADMIT'],
      ['code', 'VERIFIED', 'BLOCKED'],
    ]);
    expect(r.body.verification.unverified).toEqual([]);
    expect(r.body.verification.engine).toBe('code');
    const entry = await (await db()).collection('audit_logs').findOne({ _id: r.body.audit_log_id });
    expect(entry!.result).toMatchObject({ admission: 'BLOCKED' });
  });

  it('attack 2: a proven 1+1=2 does not carry "the refund of $25,000 is approved" under VERIFIED', async () => {
    for (const query of [`\`\`\`math\n1+1=2\n\`\`\`\n...${REFUND}`, `1+1=2\n...${REFUND}`, `1+1=2. ${REFUND}`]) {
      const r = await verify(query);
      expect(r.status, query).toBe(200);
      expect(r.body, query).toMatchObject({ status: 'UNVERIFIABLE', verified: false });
      expect(r.body.verification.admission, query).toBe('BLOCKED');
      expect(r.body.verification.proof_ref, query).toBeNull();
      // The checked part is reported as verified; the refund is not, and verified_claim never echoes it.
      expect(r.body.verification.verified_claim, query).toBe('1+1=2');
      expect(r.body.verification.verified_claim, query).not.toMatch(/refund/);
      expect(
        r.body.verification.parts.find((p: any) => p.engine === 'math'),
        query,
      ).toMatchObject({ status: 'VERIFIED', text: '1+1=2' });
      expect(r.body.verification.unverified.map((u: any) => u.text).join(' '), query).toMatch(
        /refund of \$25,000 is approved/,
      );
      const entry = await (await db()).collection('audit_logs').findOne({ _id: r.body.audit_log_id });
      expect(entry, query).toMatchObject({ verified: false });
      expect(entry!.result, query).toMatchObject({ status: 'UNVERIFIABLE', proof_ref: null });
    }
  });

  it('a prose claim glued to an equation on one line is not verified by implicit multiplication', async () => {
    const r = await verify('1+1=2 the refund is approved');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'UNVERIFIABLE', verified: false });
    expect(r.body.verification.verified_claim).toBe('');
    expect(r.body.verification.admission).toBe('BLOCKED');
  });

  it('prose glued after code is read by the code engine, and a scan that cannot parse it is never VERIFIED', async () => {
    const r = await verify(`import os\nprint(os.getcwd())\n${REFUND}`);
    expect(r.status).toBe(200);
    expect(r.body.verification.engine).toBe('code');
    expect(r.body.verification.parts).toHaveLength(1);
    expect(r.body.verification.parts[0].text).toContain('refund');
    expect(r.body.status).not.toBe('VERIFIED');
    expect(r.body.verification.admission).toBe('BLOCKED');
    expect(r.body.verification.verified_claim).toBe('');
  });

  it('every claim verified: VERIFIED, ADMIT, one proof_ref per part and verified_claim listing exactly what was checked', async () => {
    const r = await verify('```math\n(x+1)^2 = x^2 + 2*x + 1\n```\n2 + 3 = 5');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'VERIFIED', verified: true });
    expect(r.body.verification).toMatchObject({
      engine: 'math',
      admission: 'ADMIT',
      unverified: [],
      verified_claim: '(x+1)^2 = x^2 + 2*x + 1\n2 + 3 = 5',
    });
    expect(r.body.verification.parts).toHaveLength(2);
    for (const p of r.body.verification.parts) expect(p.proof_ref).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(r.body.verification.proof_ref).toBe(r.body.verification.parts[0].proof_ref);
  });

  it('one false claim among true ones: not VERIFIED, not admitted', async () => {
    const r = await verify('2 + 2 = 4\n3 * 3 = 10');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'UNVERIFIABLE', verified: false });
    expect(r.body.verification.admission).toBe('BLOCKED');
    expect(r.body.verification.verified_claim).toBe('2 + 2 = 4');
    expect(r.body.verification.parts.map((p: any) => p.status)).toEqual(['VERIFIED', 'UNVERIFIABLE']);
  });

  it('an unclosed fence is unverified, never code that rides along', async () => {
    const r = await verify(`1 + 1 = 2\n\`\`\`python\nimport os\nos.system("rm -rf /")`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'UNVERIFIABLE', verified: false });
    expect(r.body.verification.admission).toBe('BLOCKED');
    expect(r.body.verification.unverified).toEqual([
      expect.objectContaining({ reason: expect.stringMatching(/unclosed code fence/) }),
    ]);
    expect(r.body.verification.verified_claim).toBe('1 + 1 = 2');
  });

  it('more parts than are checked: the rest is unverified, so the verdict is not VERIFIED', async () => {
    const query = Array.from({ length: 17 }, (_, i) => `${i} + 1 = ${i + 1}`).join('\n');
    const r = await verify(query);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'UNVERIFIABLE', verified: false });
    expect(r.body.verification.parts).toHaveLength(16);
    expect(r.body.verification.unverified).toEqual([
      { index: 17, text: '16 + 1 = 17', reason: expect.stringMatching(/at most 16 parts/) },
    ]);
    expect(r.body.verification.admission).toBe('BLOCKED');
  });
});
