// A fresh clone's `npm run dev` must leave package-lock.json as committed (issue 27): the install
// step runs `npm ci` (infra/install-tools.sh), which needs the lockfile in step with package.json
// and complete, i.e. listing every optional package of every platform. A lockfile missing them is
// what `npm install` used to rewrite on every fresh clone.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8'));
const packages: Record<string, any> = lock.packages;

/** Where node would find `dep` from the package at `from` (nested node_modules first, then up). */
function resolve(from: string, dep: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir ? `${dir}/` : ''}node_modules/${dep}`;
    if (packages[candidate]) return candidate;
    if (!dir) return undefined;
    const i = dir.lastIndexOf('/node_modules/');
    dir = i < 0 ? '' : dir.slice(0, i);
  }
}

describe('package-lock.json', () => {
  it('is in step with package.json (name, version, every dependency range)', () => {
    const root = packages[''];
    expect(lock.lockfileVersion).toBe(3);
    expect([lock.name, lock.version]).toEqual([pkg.name, pkg.version]);
    expect(root.dependencies ?? {}).toEqual(pkg.dependencies ?? {});
    expect(root.devDependencies ?? {}).toEqual(pkg.devDependencies ?? {});
    expect(root.optionalDependencies ?? {}).toEqual(pkg.optionalDependencies ?? {});
  });

  it('lists every dependency and optional dependency of every package, other platforms included', () => {
    const missing: string[] = [];
    for (const [at, p] of Object.entries(packages)) {
      for (const dep of [...Object.keys(p.dependencies ?? {}), ...Object.keys(p.optionalDependencies ?? {})]) {
        if (!resolve(at, dep) && !p.peerDependenciesMeta?.[dep]?.optional) missing.push(`${at || '(root)'} -> ${dep}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the install step uses npm ci, never a lockfile-writing npm install', () => {
    const script = readFileSync(join(ROOT, 'infra', 'install-tools.sh'), 'utf8');
    expect(script).toMatch(/\bnpm ci --no-audit/);
    expect(script).not.toMatch(/\bnpm install --no-audit/);
  });
});
