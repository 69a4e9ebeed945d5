// What the worker's main thread loads (issue 22, memory): the activities and the pools' classes,
// never the engines that run in the engine threads. The SQL parser (node-sql-parser) and SQLite
// (better-sqlite3) cost ~20 MB of the main thread's resident memory; the SQL activity needs only
// PostgreSQL's check (engines/sql/pg-request.ts), not the engine's barrel (docs/performance.md).
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The npm packages a fresh process has loaded after importing what the worker's composition root imports. */
function packagesLoadedBy(modules: string[], then = ''): string[] {
  const script = `
    import { createRequire } from 'node:module';
    for (const m of ${JSON.stringify(modules)}) await import(m);
    ${then}
    const pk = new Set();
    for (const k of Object.keys(createRequire(import.meta.url).cache)) {
      const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)/.exec(k);
      if (m) pk.add(m[1]);
    }
    console.log(JSON.stringify([...pk].sort()));`;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120_000,
  });
  return JSON.parse(out.trim().split('\n').pop() as string) as string[];
}

describe("the worker's main thread", () => {
  /** What the worker's composition root imports at its start. */
  const WORKER_START = [
    path.join(ROOT, 'activities/index.ts'),
    path.join(ROOT, 'activities/sandbox/runner.ts'),
    path.join(ROOT, 'engines/sql/pg-check.ts'),
    path.join(ROOT, 'engines/logic/index.ts'),
    path.join(ROOT, 'activities/isolation/engine-pool.ts'),
  ];
  // The three rows about the start share one probe (session 18: each ran its own, a fresh process
  // transforming the whole activity graph through tsx; the same modules, so the same packages).
  let atStart: string[] | undefined;
  const loadedAtStart = () => (atStart ??= packagesLoadedBy(WORKER_START));
  it('loads neither the SQL parser nor SQLite: the structural SQL engine runs in the engine threads', () => {
    const loaded = loadedAtStart();
    // The probe sees the activities' packages (not vacuous): the store driver and Temporal's.
    expect(loaded).toContain('mongodb');
    expect(loaded).toContain('@temporalio/activity');
    expect(loaded).not.toContain('node-sql-parser');
    expect(loaded).not.toContain('better-sqlite3');
  }, 150_000);

  it('loads no mathjs: consensus and natural language run their math in the engine threads', () => {
    const loaded = loadedAtStart();
    expect(loaded).toContain('mongodb');
    // The engine threads' module does load it (the probe would see it: not vacuous).
    expect(packagesLoadedBy([path.join(ROOT, 'activities/consensus/pure-math.ts')])).toContain('mathjs');
    expect(loaded).not.toContain('mathjs');
    expect(loaded).not.toContain('decimal.js');
  }, 150_000);

  // Session 16: dockerode (with gRPC/protobufjs/ssh2 for BuildKit), sharp (libvips) and nodemailer
  // load on the first sandbox run, image or leak notice, never at the worker's start. sharp is ES
  // modules (not in require's cache): its native binding, @img/sharp-<platform>, is what is seen.
  const sharpLoaded = (pk: string[]) => pk.some((p) => p.startsWith('@img/sharp-'));

  it('loads neither dockerode, sharp nor nodemailer at start', () => {
    const loaded = loadedAtStart();
    expect(loaded).toContain('mongodb');
    expect(loaded).not.toContain('dockerode');
    expect(sharpLoaded(loaded)).toBe(false);
    expect(loaded).not.toContain('nodemailer');
  }, 150_000);

  it('loads dockerode on the first sandbox use and sharp on the first image (the probe sees them)', () => {
    // A 1x1 PNG; Docker at a socket that does not exist (the sandbox answers "unavailable").
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
    const loaded = packagesLoadedBy(
      WORKER_START,
      `process.env.DOCKER_HOST = 'unix:///nonexistent/docker.sock';
      const runner = await import(${JSON.stringify(path.join(ROOT, 'activities/sandbox/runner.ts'))});
      if ((await runner.sandboxAvailable(2000)) !== false) throw new Error('sandbox available?');
      const image = await import(${JSON.stringify(path.join(ROOT, 'activities/verify-image.ts'))});
      const m = await image.measureImage(Buffer.from('${png}', 'base64'), 'png');
      if (m.measurements?.width !== 1) throw new Error('not measured: ' + JSON.stringify(m));`,
    );
    expect(loaded).toContain('dockerode');
    expect(sharpLoaded(loaded)).toBe(true);
  }, 150_000);
});

describe("the API's main thread", () => {
  // Session 16: the MCP SDK (ES modules, so not in require's cache) loads on the first POST /mcp;
  // ajv, which only the SDK loads (CommonJS), is what the probe sees of it.
  it('loads no MCP SDK at start (its ajv is absent until the first POST /mcp)', () => {
    const loaded = packagesLoadedBy([path.join(ROOT, 'api/app.ts'), path.join(ROOT, 'api/server.ts')]);
    expect(loaded).toContain('koa');
    expect(loaded).not.toContain('ajv');
    expect(packagesLoadedBy([path.join(ROOT, 'api/mcp/server.ts')])).toContain('ajv');
  }, 150_000);
});
