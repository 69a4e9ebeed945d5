// The environment of every process started beside the service that is not the service itself:
// the stack's Temporal dev server, FerretDB, local SMTP sink and Temporal UI gate (infra/stack.ts,
// infra/go-runtime.ts), and the worker's PGlite process that runs callers' SQL
// (engines/sql/pg-check.ts) (session 22, issue 22: set-up hygiene; in core so that both use it). The supervisor's own environment may hold the service's settings and
// secrets (`npm run dev` takes every SVC_* of its shell, e.g. SVC_OPENAI_API_KEY; a MONGODB_URI may
// carry a password), and none of these processes reads them: they get the environment without
// them, plus their own few variables. Until session 22 only the Go processes were scrubbed
// (infra/go-runtime.ts); the SMTP sink, the UI gate and PGlite's process inherited everything.

/** A variable the service reads and no auxiliary process needs: every SVC_* and MONGODB_URI. */
export function isServiceSetting(name: string): boolean {
  return name.startsWith('SVC_') || name === 'MONGODB_URI';
}

/** `base` without the service's settings and secrets, with `own` (the process's own variables) on top. */
export function auxiliaryEnv(base: NodeJS.ProcessEnv, own: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(base)) if (!isServiceSetting(k)) env[k] = v;
  return { ...env, ...own };
}
