// mathjs's `create` and `all`, loaded without mathjs's default instance, from its CommonJS build.
//
// `import { create, all } from 'mathjs'` evaluates the package entry, which builds a complete
// default instance eagerly (every function of the library, ~30 MB of heap) before our own
// instance is made. Every engine thread, and the worker's main thread (consensus), paid for an
// instance it never uses (docs/performance.md, memory). The package's `exports` map does not
// expose its entry files, so they are loaded by path from the package's own folder (found
// through its exported package.json): the same factories, one instance fewer. Functions of an
// instance made by `create` are built lazily, on first use.
//
// The CommonJS build, not the ES modules one (session 12): the same generated code, but Node's
// ES module loader keeps per-module records for each of the ~1,200 files mathjs loads, about 6.5 MB more
// resident memory in every isolate that loads the math engine (seven: three engine threads in
// the API, three in the worker and the worker's main thread). Measured per thread, after the
// instance is made: 50 MB (ES modules) against 44 MB (CommonJS); a single bundled file was no
// better than CommonJS. Everything of mathjs goes through this module, so one copy is loaded.
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as MathJs from 'mathjs';

const require = createRequire(import.meta.url);
const cjsDir = path.join(path.dirname(require.resolve('mathjs/package.json')), 'lib', 'cjs');

const createModule = require(path.join(cjsDir, 'core', 'create.js')) as { create: typeof MathJs.create };
const allModule = require(path.join(cjsDir, 'entry', 'allFactoriesAny.js')) as { all: typeof MathJs.all };

export const create = createModule.create;
export const all = allModule.all;
