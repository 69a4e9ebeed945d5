// The compiled twin of the service (infra/service-build.ts) that the stack's processes run: it
// holds every entry point, the files the code opens or starts by path, and nothing that points
// back at a TypeScript file it does not have.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { compiledServiceDir, serviceArgs } from '../../infra/service-build.js';
import { PROJECT_ROOT, projectModuleUrl } from '../../core/project-paths.js';

const dir = compiledServiceDir();

function walk(rel: string, out: string[] = []): string[] {
  for (const e of readdirSync(path.join(dir, rel), { withFileTypes: true })) {
    const child = path.join(rel, e.name);
    if (e.isDirectory()) walk(child, out);
    else out.push(child);
  }
  return out;
}

describe('compiled service tree', () => {
  it('is complete, under dist/service of the project, and reused for the same sources', () => {
    expect(existsSync(path.join(dir, '.complete'))).toBe(true);
    expect(path.dirname(dir)).toBe(path.join(PROJECT_ROOT, 'dist', 'service'));
    expect(compiledServiceDir()).toBe(dir);
  });

  it('holds every entry point the stack starts, as JavaScript', () => {
    for (const entry of [
      'api/server.ts',
      'workers/api-process.ts',
      'workers/verification-worker.ts',
      'api/codec-server.ts',
      'infra/smtp-sink.ts',
      'infra/api-cluster.ts',
    ]) {
      const [file] = serviceArgs(entry, {});
      expect(file).toBe(path.join(dir, entry.replace(/\.ts$/, '.js')));
      expect(existsSync(file as string)).toBe(true);
    }
  });

  it('SVC_RUN_FROM_SOURCE=1 runs the source through tsx', () => {
    expect(serviceArgs('api/server.ts', { SVC_RUN_FROM_SOURCE: '1' })).toEqual([
      '--import',
      'tsx',
      path.join(PROJECT_ROOT, 'api', 'server.ts'),
    ]);
  });

  it('every file a compiled module names by URL beside itself exists in the tree (worker scripts, Python programs, the sandbox recipe)', () => {
    const refs: string[] = [];
    for (const file of walk('.').filter((f) => f.endsWith('.js') || f.endsWith('.mjs'))) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      for (const m of text.matchAll(/new URL\(\s*["'`]([^"'`$]+)["'`]\s*,\s*import\.meta\.url\s*\)/g)) {
        const target = path.resolve(path.dirname(path.join(dir, file)), m[1] as string);
        refs.push(path.relative(dir, target));
        expect(existsSync(target), `${file} names ${m[1]}`).toBe(true);
      }
    }
    // The scan found the references it is there for.
    expect(refs).toEqual(
      expect.arrayContaining([
        'activities/isolation/engine-worker.mjs',
        'activities/consensus/exact_arith.py',
        'engines/logic/z3-worker.mjs',
        'infra/sandbox',
      ]),
    );
  });

  it('the engine threads load the compiled task module beside their script', () => {
    expect(existsSync(path.join(dir, 'activities', 'isolation', 'engine-tasks.js'))).toBe(true);
    expect(readFileSync(path.join(dir, 'activities', 'isolation', 'engine-worker.mjs'), 'utf8')).toContain(
      "new URL('./engine-tasks.js', import.meta.url)",
    );
  });
});

describe('projectModuleUrl', () => {
  it('keeps .ts beside a source module and names the .js twin beside a compiled one', () => {
    expect(projectModuleUrl('../engines/agent-guards/worker.ts', pathToFileURL('/p/activities/a.ts').href).href).toBe(
      'file:///p/engines/agent-guards/worker.ts',
    );
    expect(
      projectModuleUrl('../engines/agent-guards/worker.ts', pathToFileURL('/p/dist/service/h/activities/a.js').href)
        .href,
    ).toBe('file:///p/dist/service/h/engines/agent-guards/worker.js');
  });
});
