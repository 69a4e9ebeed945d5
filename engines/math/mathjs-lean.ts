// mathjs's `create` and `all`, loaded without mathjs's default instance.
//
// `import { create, all } from 'mathjs'` evaluates the package entry, which builds a complete
// default instance eagerly (every function of the library, ~30 MB of heap) before our own
// instance is made. Every engine thread, and the worker's main thread (consensus), paid for an
// instance it never uses (docs/performance.md, memory). The package's `exports` map does not
// expose its entry files, so they are imported by file URL from the package's own folder (found
// through its exported package.json): the same modules the entry would load, the same
// factories, one instance fewer. Functions of an instance made by `create` are built lazily, on
// first use.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as MathJs from 'mathjs';

const esmDir = path.join(path.dirname(createRequire(import.meta.url).resolve('mathjs/package.json')), 'lib', 'esm');
const esm = (file: string) => pathToFileURL(path.join(esmDir, file)).href;

const [createModule, allModule] = (await Promise.all([
  import(esm('core/create.js')),
  import(esm('entry/allFactoriesAny.js')),
])) as [{ create: typeof MathJs.create }, { all: typeof MathJs.all }];

export const create = createModule.create;
export const all = allModule.all;
