// Messages between the pool (main thread) and z3-worker.mjs. The worker is plain JS, so
// these types document (and the pool enforces) what it sends.

import type { SortName } from './operators.js';

export interface WorkerSolveRequest {
  type: 'solve';
  id: number;
  smtlib: string;
  variables: Array<{ symbol: string; sort: SortName }>;
  /** Z3 `timeout` parameter for this check, in ms. */
  solverTimeoutMs: number;
  /** Optional: one assert per named conjunct; after an `unsat`, the worker tracks each assert
   *  in a second check (within what is left of solverTimeoutMs) to extract an unsat core. */
  coreSmtlib?: string;
  /** Number of asserts in coreSmtlib (the core is dropped if Z3 parses another count). */
  coreCount?: number;
}

export type WorkerModelValue =
  | { kind: 'numeral'; text: string }
  | { kind: 'bool'; value: boolean }
  /** Anything else (e.g. an algebraic number `root-obj`), as Z3 prints it. */
  | { kind: 'other'; text: string };

export interface WorkerMemory {
  /** Z3's own estimate of bytes it has allocated (back to a small baseline after each release). */
  z3AllocBytes: number;
  /** V8 heap used by this worker's isolate. */
  heapUsedBytes: number;
  /** Z3's pthreads this worker holds (each a nested worker: its own isolate and WASM instance). */
  pthreads: number;
}

export type WorkerMessage =
  | { type: 'ready'; z3Version: string }
  | ({
      type: 'result';
      id: number;
      status: 'sat' | 'unsat' | 'unknown';
      reasonUnknown: string | null;
      model: Record<string, WorkerModelValue> | null;
      solveMs: number;
      /** After `unsat` with coreSmtlib: 0-based indices of the asserts in Z3's (minimized)
       *  unsat core; null when no core was requested or it could not be extracted in time. */
      unsatCore?: number[] | null;
      /** The worker asks to be replaced (after unknown/timeout its Z3 state is not trusted). */
      recycle: boolean;
    } & WorkerMemory)
  | { type: 'failure'; id: number; message: string };

export interface WorkerInit {
  /** Z3 global `memory_max_size` (MB), kept below the fixed 2 GiB WASM heap. */
  z3MemoryMaxMb: number;
}
