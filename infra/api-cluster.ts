// Several API processes behind one port (SVC_API_PROCESSES > 1 in the dev stack): a node
// cluster whose primary only forks and supervises; each worker runs workers/api-process.ts (the API with its in-process worker), and the
// listening socket is shared (the primary hands connections round-robin). The API holds no
// state that another process needs (jobs, audit, limits and keys live in the store and in
// Temporal), so any process can answer any request. A worker that dies is forked again after
// a backoff that doubles per crash (0.5 s up to 30 s, reset after a minute up).
import cluster, { type Worker } from 'node:cluster';
import { fileURLToPath } from 'node:url';
import { projectModuleUrl } from '../core/project-paths.js';
const count = Math.max(1, Number(process.env.SVC_API_PROCESSES ?? 1) || 1);
const log = (msg: string, extra: Record<string, unknown> = {}) =>
  process.stdout.write(`${JSON.stringify({ t: new Date().toISOString(), component: 'api-cluster', msg, ...extra })}\n`);

// The API processes run in the form this primary runs in: compiled JavaScript (the stack's
// start, infra/service-build.ts) or TypeScript through tsx, and with the V8 flags it was started
// with (infra/stack.ts API_V8_FLAGS; until session 17 they stopped at the primary).
const compiled = !import.meta.url.endsWith('.ts');
cluster.setupPrimary({
  exec: fileURLToPath(projectModuleUrl('../workers/api-process.ts', import.meta.url)),
  execArgv: compiled ? process.execArgv : ['--import', 'tsx'],
});

let stopping = false;
const backoff = new Map<number, number>(); // slot -> next delay
let listening = 0;

function fork(slot: number): void {
  const started = Date.now();
  const w: Worker = cluster.fork({ SVC_API_PROCESS_INDEX: String(slot) });
  w.once('listening', () => {
    listening++;
    if (listening === count) log('api cluster listening', { processes: count, ready: 'SVC_API_CLUSTER_READY' });
  });
  w.once('exit', (code, signal) => {
    if (stopping) return;
    const delay = Date.now() - started > 60_000 ? 500 : (backoff.get(slot) ?? 500);
    backoff.set(slot, Math.min(30_000, delay * 2));
    log('api process exited; restarting', { slot, pid: w.process.pid, code, signal, delay_ms: delay });
    setTimeout(() => !stopping && fork(slot), delay);
  });
}

for (let i = 0; i < count; i++) fork(i);

const shutdown = () => {
  stopping = true;
  for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
  setTimeout(() => process.exit(0), 4000).unref();
  cluster.on('exit', () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
  });
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
