// An operator path in dev (issue 27, point 5), in a real browser: Debian's headless chromium
// (infra/install-tools.sh chromium) signs in at the codec server's page with an operator's access
// token, opens the verification's workflow in the Temporal UI (behind its read-only gate) and
// sees the decrypted input; a browser that did not sign in does not. Driven over the DevTools
// protocol by test/http/browser/ui-decode.mjs (no npm browser package).
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newTenant, post, randomIp, stackEnv } from './helpers.js';
import { seedDevOperator } from '../../infra/dev-operator.js';
import { codecServerPort } from '../../infra/stack.js';

const run = promisify(execFile);
const DRIVER = join(import.meta.dirname, 'browser', 'ui-decode.mjs');
const uiUrl = () => `http://127.0.0.1:${inject('ports').temporalUi}`;
const codecUrl = () => `http://127.0.0.1:${codecServerPort(inject('ports'))}`;
const EXPRESSION = `(x+1)^2 = x^2 + 2*x + 1 + 0*${randomBytes(3).toString('hex').replace(/[a-f]/g, '7')}`;

let workflowId = '';
let operatorToken = '';
beforeAll(async () => {
  // Installed by the test command (infra/install-tools.sh chromium); never skipped.
  expect(() => execFileSync('chromium', ['--version'])).not.toThrow();
  const t = await newTenant();
  const res = await post('/verify/math', { expression: EXPRESSION }, { 'x-api-key': t.key });
  expect(res.status).toBe(200);
  workflowId = res.headers.get('x-workflow-id') as string;
  expect(workflowId).toMatch(/^verify-math-/);
  const op = {
    userId: inject('codecOperatorId'),
    email: `uiop-${randomBytes(4).toString('hex')}@svc.local`,
    password: `uiop-${randomBytes(12).toString('base64url')}`,
  };
  await seedDevOperator(stackEnv().MONGODB_URI as string, op);
  const signin = await post(
    '/auth/signin',
    { email: op.email, password: op.password },
    { 'x-forwarded-for': randomIp() },
  );
  expect(signin.status).toBe(200);
  operatorToken = signin.body.access_token;
}, 120_000);

async function browse(token: string, waitMs = 60_000) {
  const { stdout } = await run(
    process.execPath,
    [
      '--experimental-websocket',
      '--no-warnings',
      DRIVER,
      codecUrl(),
      uiUrl(),
      workflowId,
      token,
      EXPRESSION,
      String(waitMs),
    ],
    { timeout: 170_000, maxBuffer: 8 * 1024 * 1024 },
  );
  return JSON.parse(stdout.trim().split('\n').pop() as string) as {
    signedIn: string | null;
    status: string;
    text: string;
    error?: string;
  };
}

describe('the Temporal UI in a headless browser', () => {
  it('shows the decrypted input to an operator who signed in at the codec server', async () => {
    const r = await browse(operatorToken);
    expect(r.error).toBeUndefined();
    expect(r.signedIn).toBe('Signed in: the Temporal UI can now decode payloads.');
    expect(r.status, r.text.slice(0, 3000)).toBe('found');
    expect(r.text).toContain(EXPRESSION);
  }, 180_000);

  it('shows no plaintext to a browser that did not sign in', async () => {
    // The signed-in row decodes within seconds; 20 s after the workflow is on screen is ample.
    const r = await browse('-', 20_000);
    expect(r.error).toBeUndefined();
    expect(r.status).toBe('absent');
    expect(r.text).not.toContain(EXPRESSION);
    expect(r.text).toContain(workflowId);
  }, 180_000);
});
