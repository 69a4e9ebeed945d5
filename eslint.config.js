// Lint configuration (flat config). `npm run lint`; infra/test.sh runs it beside the type check.
//
// - typescript-eslint with type information (the project service reads tsconfig.json), for the
//   rules the compiler cannot give: a promise nobody awaits (`no-floating-promises`) and a
//   promise where a plain value is expected (`no-misused-promises`, e.g. an async callback
//   passed to an API that ignores its result). Fire-and-forget is written `void promise` with a
//   comment saying why; everything else is awaited or given a `.catch`.
// - The Temporal workflow sandbox, as temporalio/samples-typescript's .eslintrc restricts it:
//   files in workflows/ run inside the deterministic sandbox, so they import no Node built-in
//   (assert excepted, as in the samples), no client/worker/activity SDK and no activity or I/O
//   code at run time; type imports are fine (they are erased), e.g. `import type { …Activities }`.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const ALLOWED_NODE_BUILTINS = new Set(['assert']);
const restrictedBuiltins = builtinModules
  .filter((m) => !ALLOWED_NODE_BUILTINS.has(m) && !m.startsWith('_'))
  .flatMap((m) => [m, `node:${m}`]);

const sandboxMessage =
  'Workflow code runs in the deterministic sandbox: import only @temporalio/workflow, workflow-safe modules and types (docs/architecture.md).';

/** Globals of the plain JavaScript files (Node worker scripts, the CLI launcher). */
const nodeGlobals = Object.fromEntries(
  [
    'process',
    'console',
    'Buffer',
    'URL',
    'URLSearchParams',
    'TextEncoder',
    'TextDecoder',
    'setTimeout',
    'clearTimeout',
    'setInterval',
    'clearInterval',
    'setImmediate',
    'clearImmediate',
    'queueMicrotask',
    'structuredClone',
    'globalThis',
    'AbortController',
    'AbortSignal',
    'performance',
    'fetch',
    'WebSocket',
    'SharedArrayBuffer',
    'Atomics',
    'WebAssembly',
  ].map((name) => [name, 'readonly']),
);

export default tseslint.config(
  {
    // Data the tests read (code fixtures are deliberately unsafe programs), generated trees and tool caches.
    ignores: ['node_modules/**', 'dist/**', '.tools/**', '.data/**', 'test/fixtures/**', '.tmp-*/**'],
  },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // The type-aware rules this configuration exists for.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      // As tsconfig (noUnusedLocals, not noUnusedParameters): a parameter kept for a signature is fine.
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // `eat('a') || eat('b')` (the translators' parsers) and `cond ? a++ : b++` are deliberate.
      '@typescript-eslint/no-unused-expressions': ['error', { allowShortCircuit: true, allowTernary: true }],
      // Control characters in regexes are what the sanitisers strip (CLI output, badges, CSV).
      'no-control-regex': 'off',
      // Reports `let x = null` before a try that assigns it: an initialiser kept for the reader.
      'no-useless-assignment': 'off',
    },
  },
  {
    // Test doubles and benchmark scripts read loosely typed JSON answers.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { globals: nodeGlobals },
  },
  {
    files: ['workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: [
            ...restrictedBuiltins.map((name) => ({ name, message: sandboxMessage })),
            ...['@temporalio/activity', '@temporalio/client', '@temporalio/worker', '@temporalio/testing'].map(
              (name) => ({
                name,
                message: sandboxMessage,
                allowTypeImports: true,
              }),
            ),
          ],
          patterns: [
            {
              // Activities, the API, the store, the workers and the stateful core modules do I/O (or read
              // the environment, or hold keys): types only. core/workflow-input-auth-types.ts is the
              // workflow-safe twin of core/workflow-input-auth.ts. A module these reach only transitively
              // is refused by the workflow bundle's build (workers/workflow-bundle.ts).
              group: [
                '**/activities',
                '**/activities/**',
                '**/api/**',
                '**/persistence/**',
                '**/workers/**',
                ...[
                  'store',
                  'config',
                  'logger',
                  'accounts',
                  'agents',
                  'api-keys',
                  'audit-log',
                  'batch-store',
                  'uploads',
                  'org-events',
                ]
                  .concat(['project-paths', 'payload-codec', 'payload-keys', 'signer', 'sealed', 'workflow-input-auth'])
                  .map((m) => `**/core/${m}.js`),
                'mongodb',
                'piscina',
                'nodemailer',
                'dockerode',
              ],
              message: sandboxMessage,
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
);
