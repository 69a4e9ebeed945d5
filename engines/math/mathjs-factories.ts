// The mathjs factories an instance needs for a given set of functions, and nothing else.
//
// `create(all)` loads every module of mathjs (~300 factory files: units, matrices, statistics,
// probability, the embedded docs, ...) in every isolate that loads the math engine, although
// the engine uses only the parser and a fixed set of arithmetic and elementary functions
// (mathjs-instance.ts): it never hands user input to mathjs's own evaluation. This module loads
// the factories of the named functions and, transitively, of every dependency they declare,
// optional ones included: every function of the instance is made by the same factory with the
// same dependencies present as in `create(all)` (the `typed` conversions too, which depend on the
// data types present), so it behaves the same. Session 12, issue 22's memory goal
// (docs/performance.md, memory).
//
// The factory of a name is found in mathjs's own list of factories (lib/cjs/factoriesAny.js),
// read as text so that its ~300 requires are not run; a name it does not list fails the load.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as MathJs from 'mathjs';

const require = createRequire(import.meta.url);
const cjsDir = path.join(path.dirname(require.resolve('mathjs/package.json')), 'lib', 'cjs');

/** What `create` passes to every factory itself (core/create.js), not a factory of its own. */
const PROVIDED_BY_CREATE = new Set(['config', 'on', 'math', 'mathWithTransform', 'classes']);

type Factory = ((scope: unknown) => unknown) & { fn: string; dependencies?: string[] };

/** `createX` → the module file (relative to lib/cjs) exporting it, from factoriesAny.js's text. */
function factoryFiles(): Map<string, string> {
  const text = readFileSync(path.join(cjsDir, 'factoriesAny.js'), 'utf8');
  const vars = new Map<string, string>();
  for (const m of text.matchAll(/var (_\w+) = require\("(\.\/[^"]+)"\);/g)) vars.set(m[1]!, m[2]!);
  const files = new Map<string, string>();
  for (const m of text.matchAll(
    /exports, "(create\w+)", \{\s*enumerable: true,\s*get: function \(\) \{\s*return (_\w+)\.(create\w+);/g,
  )) {
    const file = vars.get(m[2]!);
    if (file && m[1] === m[3]) files.set(m[1]!, file);
  }
  return files;
}

/** The factory creating `name` (mathjs's naming: `createAdd` for add, `createBigNumberClass` for BigNumber). */
function factoryOf(name: string, files: Map<string, string>): Factory {
  const cap = name[0]!.toUpperCase() + name.slice(1);
  for (const key of [`create${cap}`, `create${cap}Class`]) {
    const file = files.get(key);
    if (!file) continue;
    const factory = (require(path.join(cjsDir, file)) as Record<string, Factory>)[key];
    if (factory && factory.fn === name) return factory;
  }
  throw new Error(`mathjs has no factory for ${name}`);
}

/** The factories of `names` and of everything they depend on (optional dependencies included). */
export function factoriesFor(names: readonly string[]): Record<string, Factory> {
  const files = factoryFiles();
  const out: Record<string, Factory> = {};
  const pending = [...names]; // worklist: names whose factory is not resolved yet
  const seen = new Set<string>();
  while (pending.length > 0) {
    const name = pending.pop()!;
    if (seen.has(name) || PROVIDED_BY_CREATE.has(name)) continue;
    seen.add(name);
    const factory = factoryOf(name, files);
    out[name] = factory;
    for (const dep of factory.dependencies ?? []) pending.push(dep.replace(/^\?/, ''));
  }
  return out;
}

/**
 * mathjs's `create`, from its CommonJS build, not from the package entry: `import { create } from
 * 'mathjs'` evaluates the entry, which builds a complete default instance (~30 MB of heap,
 * session 11), and the ES modules build keeps a loader record per module (about 5 MB more per
 * isolate than CommonJS for the same code; a single esbuild bundle was no better). The package's
 * `exports` map does not expose the file, so it is loaded by path from the package's folder.
 */
export const create = (require(path.join(cjsDir, 'core', 'create.js')) as { create: typeof MathJs.create }).create;
