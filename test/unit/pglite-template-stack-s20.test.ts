// Session 20: the stack builds PGlite's template while it starts (infra/stack.ts
// preparePgTemplate, engines/sql/pg-template.ts), before the worker and the API run. A private
// stack whose cache folder (SVC_SQL_PG_DATADIR_CACHE) starts empty: after up() the template is
// there, and the worker's first postgresql check over HTTP copies it (never initdb in the
// worker's process group, inside whatever load runs). On the base the worker ran initdb itself.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Stack, testPorts } from '../../infra/stack.js';
import { dataDirTemplate, liveDataDirs } from '../../engines/sql/pg-check.js';
import { pgTemplateLock } from '../../engines/sql/pg-template.js';

const cache = mkdtempSync(path.join(tmpdir(), 'svc-pg-template-stack-'));
// Beside the suite's own stack (its offset + 25: no other stack of the suite uses these ports).
const OFFSET = Number(process.env.SVC_TEST_PORT_OFFSET ?? 0) + 25;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let stack: Stack;

beforeAll(async () => {
  stack = new Stack({
    profile: `test-pglite-template-${OFFSET}`,
    ports: testPorts(OFFSET),
    fresh: true,
    env: { SVC_SQL_PG_DATADIR_CACHE: cache, SVC_LOG_LEVEL: 'info', SVC_AUTH_TRUSTED_PROXIES: '127.0.0.1,::1' },
  });
  // A loaded machine can take minutes to start the worker (test/http/global-setup.ts).
  stack.worker.spec.readyTimeoutMs = Math.max(stack.worker.spec.readyTimeoutMs, 600_000);
  await stack.up();
}, 900_000);

afterAll(async () => {
  await stack?.down();
  rmSync(cache, { recursive: true, force: true });
  rmSync(stack?.dataDir ?? '', { recursive: true, force: true });
}, 120_000);

describe("the stack builds PGlite's template at its start (session 20)", () => {
  it('from an empty cache folder: the template is there once the stack is up, built by initdb, nothing half-built beside it', () => {
    expect(existsSync(path.join(dataDirTemplate(cache), 'PG_VERSION'))).toBe(true);
    expect(existsSync(pgTemplateLock(cache))).toBe(false);
    const notes = readFileSync(path.join(stack.dataDir, 'logs', 'pglite-template.log'), 'utf8')
      .trim()
      .split('\n');
    expect(notes).toHaveLength(1);
    expect(JSON.parse(notes[0]!.slice(notes[0]!.indexOf(' ') + 1))).toMatchObject({
      outcome: 'built',
      source: 'initdb',
    });
  });

  it("the worker's first postgresql check copies the template: PostgreSQL's verdict, no initdb in the worker", async () => {
    const json = { 'content-type': 'application/json' };
    const su = (await (
      await fetch(`${stack.apiUrl}/auth/signup`, {
        method: 'POST',
        headers: json,
        body: JSON.stringify({
          email: `pg-template-${Date.now()}@example.test`,
          password: 'template test password 1',
          organization_name: 'pg template',
        }),
      })
    ).json()) as { access_token: string };
    const keyRes = await fetch(`${stack.apiUrl}/auth/api-keys`, {
      method: 'POST',
      headers: { ...json, authorization: `Bearer ${su.access_token}` },
      body: JSON.stringify({ name: 'pg template' }),
    });
    expect(keyRes.status).toBe(200);
    const { key } = (await keyRes.json()) as { key: string };
    const body = {
      query: 'SELECT w_state, count(*) FROM warehouse GROUP BY w_state',
      schema_ddl: 'CREATE TABLE warehouse (w_warehouse_sk integer, w_state text);',
      dialect: 'postgresql',
    };
    // Readiness, not timing: on a slow machine the first answers may be the fail-closed one.
    const deadline = Date.now() + 240_000;
    for (;;) {
      const res = await fetch(`${stack.apiUrl}/verify/sql`, {
        method: 'POST',
        headers: { ...json, 'x-api-key': key },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      const out = (await res.json()) as { status: string; developer_fields: Record<string, unknown> };
      if (out.developer_fields.postgres_check === 'accepted') {
        expect(out).toMatchObject({
          status: 'VERIFIED',
          developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
        });
        break;
      }
      expect(out.developer_fields).toMatchObject({
        constraint_id: 'sql_verifier.engine_not_run',
        postgres_check: 'not_run',
      });
      if (Date.now() > deadline) throw new Error('PGlite never answered');
      await sleep(1000);
    }
    const starts = readFileSync(stack.worker.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"PGlite started"'))
      .map((l) => (JSON.parse(l) as { dataDir?: string }).dataDir);
    expect(starts).toEqual(['copied']);
    // Its copy lives under the shared cache folder, named by the worker's process.
    expect(existsSync(liveDataDirs(cache))).toBe(true);
  }, 300_000);

  it('a template that cannot be built is logged and the start goes on (the worker builds on demand); SVC_SQL_PG_TEMPLATE_AT_START=0 skips it', async () => {
    const file = path.join(cache, 'a-file');
    writeFileSync(file, 'not a folder');
    const other = (env: Record<string, string>) =>
      new Stack({ profile: `test-pglite-template-${OFFSET}-b`, ports: testPorts(OFFSET + 1), fresh: true, env });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      const s = other({ SVC_SQL_PG_DATADIR_CACHE: path.join(file, 'cache') });
      const r = await s.preparePgTemplate();
      expect(r.outcome).toBe('failed');
      expect(r.reason).toMatch(/ENOTDIR/);
      expect(warn).toHaveBeenCalledWith(
        expect.stringMatching(
          /^\[stack\] PGlite's template was not built \(.*ENOTDIR.*\); the worker builds it on its first postgresql check$/,
        ),
      );
      expect(readFileSync(path.join(s.dataDir, 'logs', 'pglite-template.log'), 'utf8')).toContain('"outcome":"failed"');
      const empty = mkdtempSync(path.join(tmpdir(), 'svc-pg-template-off-'));
      try {
        const off = other({ SVC_SQL_PG_DATADIR_CACHE: empty, SVC_SQL_PG_TEMPLATE_AT_START: '0' });
        expect((await off.preparePgTemplate()).outcome).toBe('skipped');
        expect(existsSync(dataDirTemplate(empty))).toBe(false);
      } finally {
        rmSync(empty, { recursive: true, force: true });
      }
      rmSync(s.dataDir, { recursive: true, force: true });
    } finally {
      warn.mockRestore();
    }
  });
});
