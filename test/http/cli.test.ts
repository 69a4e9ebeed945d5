// Black-box: the `svc` CLI as a subprocess (the CLI as `npx svc` runs it, built once by
// cli-run.ts) against the real stack. Exit codes are the contract of docs/cli.md.
import { beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { newTenant, type Member } from './helpers.js';
// The CLI as its own process per run, built once per file (cli-run.ts; session 18: this file still
// ran every call through bin/svc.mjs's tsx loader, ~0.4 s more CPU per run; the shim itself is run
// by cli-ux's terminal row and mcp's stdio rows).
import { svc } from './cli-run.js';

let t: Member;
const keyEnv = () => ({ SVC_API_KEY: t.key });

beforeAll(async () => {
  t = await newTenant('enterprise');
});

describe('svc verify', () => {
  it('math identity: VERIFIED, exit 0, human and --json output', async () => {
    const human = await svc(['verify', 'math', '(x+1)^2 = x^2+2*x+1'], { env: keyEnv() });
    expect(human.stderr).toBe('');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^math: VERIFIED \(verified\)/);
    expect(human.stdout).toMatch(/proof_ref: sha256:[0-9a-f]{64}/);

    const json = await svc(['verify', 'math', '(x+1)^2 = x^2+2*x+1', '--json'], { env: keyEnv() });
    expect(json.code).toBe(0);
    const body = JSON.parse(json.stdout);
    expect(body).toMatchObject({
      status: 'VERIFIED',
      is_valid: true,
      is_authoritative: true,
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
    });
  });

  it('a false identity is not verified: exit 1, never 0', async () => {
    const r = await svc(['verify', 'math', '(x+1)^2 = x^2+1', '--json'], { env: keyEnv() });
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ status: 'UNVERIFIABLE', is_valid: false, proof_ref: null });
  });

  it('code with os.system from stdin: admission BLOCKED, exit 2', async () => {
    const code = 'import os\nos.system("rm -rf /tmp/x")\n';
    const json = await svc(['verify', 'code', '-', '--language', 'python', '--json'], { env: keyEnv(), stdin: code });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({ admission: 'BLOCKED', developer_fields: { is_valid: false } });
    const human = await svc(['verify', 'code', '-'], { env: keyEnv(), stdin: code });
    expect(human.code).toBe(2);
    expect(human.stdout).toMatch(/admission: BLOCKED/);
  });

  it('input the service refuses: exit 65 with the service detail printed', async () => {
    const r = await svc(['verify', 'sql', '-', '--schema-ddl', 'CREATE TABLE t (id INT);', '--dialect', 'klingon'], {
      env: keyEnv(),
      stdin: 'SELECT id FROM t',
    });
    expect(r.code).toBe(65);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^svc: HTTP 400 invalid_field: .*unsupported dialect 'klingon'/);
    const json = await svc(
      ['verify', 'sql', '-', '--schema-ddl', 'CREATE TABLE t (id INT);', '--dialect', 'klingon', '--json'],
      { env: keyEnv(), stdin: 'SELECT id FROM t' },
    );
    expect(json.code).toBe(65);
    expect(JSON.parse(json.stdout)).toMatchObject({
      error: {
        kind: 'service',
        status: 400,
        detail: expect.stringContaining("unsupported dialect 'klingon'"),
        exit_code: 65,
      },
    });
  });

  it('a bad command line is a usage error (64); a missing key is 77, never a pass', async () => {
    const unknown = await svc(['verify', 'poetry', 'x'], { env: keyEnv() });
    expect(unknown.code).toBe(64);
    expect(unknown.stderr).toMatch(/unknown verify kind 'poetry'/);
    const noKey = await svc(['verify', 'math', '1+1 = 2']);
    expect(noKey.code).toBe(77);
    expect(noKey.stderr).toMatch(/^svc: HTTP 401 unauthenticated: /);
  });
});

describe('svc batch', () => {
  it('submits JSON lines and writes one result line per item to --out', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
    const items = path.join(dir, 'items.jsonl');
    const out = path.join(dir, 'results.jsonl');
    writeFileSync(
      items,
      [
        JSON.stringify({ query: '(a+b)^2 = a^2+2*a*b+b^2', type: 'math' }),
        '',
        JSON.stringify({ query: '2*x = x', type: 'math' }),
        JSON.stringify({ query: 'SELECT id FROM t', type: 'sql', params: { schema_ddl: 'CREATE TABLE t (id INT);' } }),
      ].join('\n'),
    );
    const r = await svc(['batch', items, '--out', out, '--poll-ms', '200'], { env: keyEnv() });
    const lines = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines.map((l) => l.line)).toEqual([1, 3, 4]);
    expect(new Set(lines.map((l) => l.job_id)).size).toBe(1);
    expect(lines[0]).toMatchObject({
      status: 'completed',
      outcome: 'verified',
      result: { status: 'VERIFIED', proof_ref: expect.stringMatching(/^sha256:/) },
    });
    expect(lines[1]).toMatchObject({
      status: 'completed',
      outcome: 'not_verified',
      result: { status: 'UNVERIFIABLE' },
    });
    expect(lines[2]).toMatchObject({
      type: 'sql',
      status: 'completed',
      outcome: 'verified',
      result: { status: 'VERIFIED', admission: 'ADMIT' },
    });
    // One item not verified: the whole run is not a pass.
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('3 items: 2 verified, 1 not verified, 0 blocked, 0 error\n');
  });

  it('refuses a malformed items file before submitting (65)', async () => {
    const r = await svc(['batch', '-'], { env: keyEnv(), stdin: '{"query": "1+1"}\nnot json\n' });
    expect(r.code).toBe(65);
    expect(r.stderr).toMatch(/line 2: not JSON/);
  });
});

describe('svc keys and health', () => {
  it('create, list and revoke a key with the access token', async () => {
    const env = { SVC_ACCESS_TOKEN: t.token };
    const created = await svc(['keys', 'create', 'cli key', '--json'], { env });
    expect(created.code).toBe(0);
    const key = JSON.parse(created.stdout);
    expect(key).toMatchObject({ id: expect.any(String), name: 'cli key', key: expect.stringMatching(/^svc_live_/) });

    // The new key works.
    const math = await svc(['verify', 'math', '1+1 = 2', '--json'], { env: { SVC_API_KEY: key.key } });
    expect(math.code).toBe(0);

    const listed = await svc(['keys', 'list', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((k: { id: string }) => k.id)).toContain(key.id);
    const human = await svc(['keys', 'list'], { env });
    expect(human.stdout).toContain(key.id);
    expect(human.stdout).not.toContain(key.key);

    const revoked = await svc(['keys', 'revoke', key.id], { env });
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked key ${key.id}`);
    const after = await svc(['keys', 'list', '--json'], { env });
    expect(JSON.parse(after.stdout).map((k: { id: string }) => k.id)).not.toContain(key.id);
    const dead = await svc(['verify', 'math', '1+1 = 2'], { env: { SVC_API_KEY: key.key } });
    expect(dead.code).toBe(77);

    const again = await svc(['keys', 'revoke', key.id], { env });
    expect(again.code).toBe(65);
    expect(again.stderr).toMatch(/HTTP 404 not_found: API key not found\./);
    const noToken = await svc(['keys', 'list']);
    expect(noToken.code).toBe(64);
  });

  it('health: exit 0 with the service identity', async () => {
    const h = await svc(['health']);
    expect(h.code).toBe(0);
    expect(h.stdout).toMatch(/: healthy \(/);
    const j = await svc(['health', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ status: 'healthy', version: expect.any(String) });
    const down = await svc(['health'], { env: { SVC_BASE_URL: 'http://127.0.0.1:9' } });
    expect(down.code).toBe(69);
  });
});
