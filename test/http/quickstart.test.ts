// A quick start that always works (issue 27, point 6): the README's commands and every script in
// examples/ run twice against the test stack (the second run signs in after the signup's 409),
// verify the README's claim, show the X-Workflow-Id, and mint a key that can only verify.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, get, randomIp, uniqueEmail } from './helpers.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const PYTHON = join(ROOT, '.tools', 'venv-qwed-client-7.3.0', 'bin', 'python');
const PASSWORD = 'a long passphrase 42';

let curlRoot = '';
beforeAll(() => {
  curlRoot = mkdtempSync(join(tmpdir(), 'svc-quickstart-'));
});
afterAll(() => {
  if (curlRoot) rmSync(curlRoot, { recursive: true, force: true });
});

/**
 * The stack trusts 127.0.0.1 as a proxy: curl (through its own config file, the README is run
 * unchanged) names a client address of its own for each run, so neither this file's dozen sign-ups
 * and sign-ins nor other files' share one per-address limit (10 a minute).
 */
const env = (extra: Record<string, string>) => {
  const curlHome = mkdtempSync(join(curlRoot, 'run-'));
  writeFileSync(join(curlHome, '.curlrc'), `header = "X-Forwarded-For: ${randomIp()}"\n`);
  return { ...process.env, CURL_HOME: curlHome, ...extra };
};

/** A key that can verify but not administrate. */
async function expectVerifyOnly(key: string) {
  const admin = await get('/admin/compliance/export/csv', { 'x-api-key': key });
  expect(admin.status).toBe(403);
  expect(admin.body.detail).toBe("API key lacks the required scope 'admin:all'.");
}

describe("README's three commands", () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block =
    /<!-- quickstart:begin[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- quickstart:end -->/.exec(readme)?.[1] ?? '';

  it('list their prerequisites and ask for a verify-only key', () => {
    expect(block).toContain('"scopes":["verify:read"]');
    expect(block).not.toContain('admin:all');
    expect(readme).toMatch(/Prerequisites:.*`curl` and `jq`/);
  });

  it('work twice in a row (signup, then signin after the 409)', async () => {
    const email = uniqueEmail('readme');
    const script =
      block.replace('http://127.0.0.1:8000', apiUrl()).replace('me@example.com', email) + '\necho "KEY=$KEY"\n';
    for (const round of [1, 2]) {
      const { stdout } = await run('bash', ['-c', script], { env: env({}), timeout: 60_000 });
      expect(stdout, `round ${round}`).toMatch(/^HTTP\/1\.1 200/m);
      expect(stdout).toMatch(/^x-workflow-id: verify-math-\S+/im);
      expect(stdout).toContain('"status":"VERIFIED"');
      const key = /^KEY=(svc_\S+)$/m.exec(stdout)?.[1];
      expect(key, stdout).toBeDefined();
      await expectVerifyOnly(key as string);
    }
  });
});

describe('examples/', () => {
  it('quickstart.sh (curl only) works twice and prints the workflow id and the key', async () => {
    const email = uniqueEmail('qs');
    for (const round of [1, 2]) {
      const { stdout, stderr } = await run(join(ROOT, 'examples', 'quickstart.sh'), [], {
        env: env({ SVC_URL: apiUrl(), SVC_EMAIL: email, SVC_PASSWORD: PASSWORD }),
        timeout: 60_000,
      });
      expect(stdout, `round ${round}`).toMatch(/^X-Workflow-Id: verify-math-\S+$/m);
      expect(stdout).toMatch(/^status: VERIFIED$/m);
      if (round === 2) expect(stderr).toContain('already exists, signing in');
      const key = /^export SVC_API_KEY=(svc_\S+)$/m.exec(stdout)?.[1];
      expect(key).toBeDefined();
      await expectVerifyOnly(key as string);
    }
  });

  it('quickstart.sh fails with the reason when the password is wrong', async () => {
    const email = uniqueEmail('qsbad');
    await run(join(ROOT, 'examples', 'quickstart.sh'), [], {
      env: env({ SVC_URL: apiUrl(), SVC_EMAIL: email, SVC_PASSWORD: PASSWORD }),
      timeout: 60_000,
    });
    const bad = await run(join(ROOT, 'examples', 'quickstart.sh'), [], {
      env: env({ SVC_URL: apiUrl(), SVC_EMAIL: email, SVC_PASSWORD: 'another long passphrase' }),
      timeout: 60_000,
    }).catch((e) => e);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('could not sign up or sign in (HTTP 401)');
    expect(bad.stderr).toContain('Incorrect email or password.');
  });

  it('verify.ts (TypeScript client) works twice', async () => {
    const email = uniqueEmail('ts');
    for (const round of [1, 2]) {
      const { stdout } = await run(join(ROOT, 'node_modules', '.bin', 'tsx'), [join(ROOT, 'examples', 'verify.ts')], {
        env: env({ SVC_BASE_URL: apiUrl(), SVC_EMAIL: email, SVC_PASSWORD: PASSWORD }),
        timeout: 90_000,
      });
      expect(stdout, `round ${round}`).toMatch(/^status: VERIFIED$/m);
      expect(stdout).toMatch(/^proof_ref: sha256:[0-9a-f]{64}$/m);
    }
  });

  it('verify_math.py (the reference Python client) works with the key quickstart.sh printed', async () => {
    expect(existsSync(PYTHON), `${PYTHON} missing: run infra/install-tools.sh qwed-client`).toBe(true);
    const qs = await run(join(ROOT, 'examples', 'quickstart.sh'), [], {
      env: env({ SVC_URL: apiUrl(), SVC_EMAIL: uniqueEmail('py'), SVC_PASSWORD: PASSWORD }),
      timeout: 60_000,
    });
    const key = /^export SVC_API_KEY=(svc_\S+)$/m.exec(qs.stdout)?.[1] as string;
    for (const round of [1, 2]) {
      const { stdout } = await run(PYTHON, [join(ROOT, 'examples', 'verify_math.py')], {
        env: env({ SVC_BASE_URL: apiUrl(), SVC_API_KEY: key }),
        timeout: 60_000,
      });
      expect(stdout, `round ${round}`).toMatch(/^status: VERIFIED$/m);
    }
    const none = await run(PYTHON, [join(ROOT, 'examples', 'verify_math.py')], {
      env: env({ SVC_BASE_URL: apiUrl(), SVC_API_KEY: '' }),
      timeout: 60_000,
    }).catch((e) => e);
    expect(none.stderr).toContain('SVC_API_KEY is not set');
  });
});
