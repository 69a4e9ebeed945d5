// The young generation of every thread this process starts without limits of its own: the
// Temporal SDK's workflow threads (one per Worker) and the Z3 threads. V8 let each grow to
// about 34 MB under load (semi-spaces of 16 MB); capped here at 2 MB semi-spaces, as the engine
// threads' 8 MB young generation (activities/isolation/engine-pool.ts). The flag is read when an
// isolate is created, so it applies to the threads started after this module is evaluated
// (imported first by the composition roots) and not to the main thread, whose CPU per request
// a 2 MB cap raised by ~20 % in the bench (docs/performance.md, memory). Session 20: the API's
// main thread runs with 4 MB semi-spaces from its command line (infra/stack.ts API_V8_FLAGS).
import v8 from 'node:v8';

export const THREAD_SEMI_SPACE_MB = 2;

v8.setFlagsFromString(`--max-semi-space-size=${THREAD_SEMI_SPACE_MB}`);
