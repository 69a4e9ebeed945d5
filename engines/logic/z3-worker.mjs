// Z3 worker thread (plain ESM JavaScript so it runs unchanged under node, tsx and vitest).
// One solve at a time: the z3-solver WASM build allows a single async call per module
// instance. Every solve gets a fresh Z3 context that is deleted afterwards, which frees
// every solver/model/AST made in it; the fixed 2 GiB WASM heap otherwise fills up.
// Messages: see worker-protocol.ts.
import { parentPort, workerData } from 'node:worker_threads';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { init } = require('z3-solver');

const Z3_L_FALSE = -1;
const Z3_L_TRUE = 1;

const { Z3, em } = await init();
// Make Z3 give up (unknown) before it exhausts the WASM heap, where it would hang.
Z3.global_param_set('memory_max_size', String(workerData.z3MemoryMaxMb));
const z3Version = Z3.get_full_version();

/**
 * Z3's check, run synchronously on this thread (session 18). z3-solver's `solver_check` is an
 * async call that starts a pthread of its own for every check (a nested worker, its own V8
 * isolate instantiating the WASM module) and resolves when it ends; this thread only waits
 * meanwhile. Calling the C export here runs the same check with one pthread fewer per Z3 worker
 * (the pthread Z3 itself starts for its `timeout` parameter stays, so a check still ends as
 * unknown/timeout at its budget, and the pool still terminates this thread at the deadline).
 * An API error is left in the context, as every other call here reads it.
 */
function check(ctx, solver) {
  const r = em._Z3_solver_check(ctx, solver);
  const err = Z3.get_error_code(ctx);
  if (err !== 0) throw new Error(`Z3 check failed: ${Z3.get_error_msg(ctx, err)}`);
  return r;
}

function memory() {
  return {
    z3AllocBytes: Number(Z3.get_estimated_alloc_size()),
    heapUsedBytes: process.memoryUsage().heapUsed,
    pthreads: (em?.PThread?.runningWorkers?.length ?? 0) + (em?.PThread?.unusedWorkers?.length ?? 0),
  };
}

function sortOf(ctx, sort) {
  if (sort === 'Int') return Z3.mk_int_sort(ctx);
  if (sort === 'Real') return Z3.mk_real_sort(ctx);
  if (sort === 'Bool') return Z3.mk_bool_sort(ctx);
  throw new Error(`unknown sort ${sort}`);
}

function readModel(ctx, solver, variables) {
  const model = Z3.solver_get_model(ctx, solver);
  Z3.model_inc_ref(ctx, model);
  try {
    const out = {};
    for (const { symbol, sort } of variables) {
      const c = Z3.mk_const(ctx, Z3.mk_string_symbol(ctx, symbol), sortOf(ctx, sort));
      const v = Z3.model_eval(ctx, model, c, true);
      if (v === null) throw new Error(`model_eval failed for ${symbol}`);
      if (sort === 'Bool') {
        const b = Z3.get_bool_value(ctx, v);
        out[symbol] =
          b === Z3_L_TRUE || b === Z3_L_FALSE
            ? { kind: 'bool', value: b === Z3_L_TRUE }
            : { kind: 'other', text: Z3.ast_to_string(ctx, v) };
      } else if (Z3.is_numeral_ast(ctx, v)) {
        out[symbol] = { kind: 'numeral', text: Z3.get_numeral_string(ctx, v) };
      } else {
        out[symbol] = { kind: 'other', text: Z3.ast_to_string(ctx, v) };
      }
    }
    return out;
  } finally {
    Z3.model_dec_ref(ctx, model);
  }
}

/** Below this, no core check is attempted (the UNSAT answer stands without a core). */
const MIN_CORE_BUDGET_MS = 50;
/**
 * The core check's own budget: at most twice the solve (plus 100 ms) and never above 1 s, so an
 * UNSAT answer never waits for the whole solve budget on its core.
 */
const MAX_CORE_BUDGET_MS = 1000;

/**
 * Second check, after an unsat: the conjunct-split text is parsed into a scratch solver, and
 * each of its asserts is re-asserted into a tracking solver under a fresh Boolean `core!i`
 * (assert_and_track), with core minimization. Returns the 0-based indices of the asserts in
 * the core, or null (count mismatch, no unsat within the budget).
 */
async function unsatCore(ctx, text, expected, budgetMs) {
  const scratch = Z3.mk_solver(ctx);
  Z3.solver_inc_ref(ctx, scratch);
  Z3.solver_from_string(ctx, scratch, text);
  const err = Z3.get_error_code(ctx);
  if (err !== 0) throw new Error(`Z3 rejected the conjunct SMT-LIB text: ${Z3.get_error_msg(ctx, err)}`);
  const asserts = Z3.solver_get_assertions(ctx, scratch);
  Z3.ast_vector_inc_ref(ctx, asserts);
  const n = Z3.ast_vector_size(ctx, asserts);
  if (n !== expected) {
    Z3.ast_vector_dec_ref(ctx, asserts);
    Z3.solver_dec_ref(ctx, scratch);
    return { core: null, unknown: false };
  }
  const tracker = Z3.mk_solver(ctx);
  Z3.solver_inc_ref(ctx, tracker);
  const params = Z3.mk_params(ctx);
  Z3.params_inc_ref(ctx, params);
  Z3.params_set_uint(ctx, params, Z3.mk_string_symbol(ctx, 'timeout'), Math.max(1, budgetMs));
  Z3.params_set_bool(ctx, params, Z3.mk_string_symbol(ctx, 'core.minimize'), true);
  Z3.solver_set_params(ctx, tracker, params);
  Z3.params_dec_ref(ctx, params);
  const bool = Z3.mk_bool_sort(ctx);
  const byName = new Map();
  for (let i = 0; i < n; i++) {
    const name = `core!${i}`;
    byName.set(name, i);
    Z3.solver_assert_and_track(
      ctx,
      tracker,
      Z3.ast_vector_get(ctx, asserts, i),
      Z3.mk_const(ctx, Z3.mk_string_symbol(ctx, name), bool),
    );
  }
  Z3.ast_vector_dec_ref(ctx, asserts);
  Z3.solver_dec_ref(ctx, scratch);
  const r = check(ctx, tracker);
  if (r !== Z3_L_FALSE) return { core: null, unknown: r !== Z3_L_TRUE };
  const core = Z3.solver_get_unsat_core(ctx, tracker);
  Z3.ast_vector_inc_ref(ctx, core);
  const out = [];
  for (let i = 0; i < Z3.ast_vector_size(ctx, core); i++) {
    const idx = byName.get(Z3.ast_to_string(ctx, Z3.ast_vector_get(ctx, core, i)));
    if (idx === undefined) {
      Z3.ast_vector_dec_ref(ctx, core);
      Z3.solver_dec_ref(ctx, tracker);
      return { core: null, unknown: false };
    }
    out.push(idx);
  }
  Z3.ast_vector_dec_ref(ctx, core);
  Z3.solver_dec_ref(ctx, tracker);
  out.sort((a, b) => a - b);
  return { core: out, unknown: false };
}

async function solve(msg) {
  const cfg = Z3.mk_config();
  const ctx = Z3.mk_context_rc(cfg);
  Z3.del_config(cfg);
  let release = true;
  try {
    const solver = Z3.mk_solver(ctx);
    Z3.solver_inc_ref(ctx, solver);
    const params = Z3.mk_params(ctx);
    Z3.params_inc_ref(ctx, params);
    Z3.params_set_uint(ctx, params, Z3.mk_string_symbol(ctx, 'timeout'), Math.max(1, Math.floor(msg.solverTimeoutMs)));
    Z3.solver_set_params(ctx, solver, params);
    Z3.params_dec_ref(ctx, params);
    Z3.solver_from_string(ctx, solver, msg.smtlib);
    const err = Z3.get_error_code(ctx);
    if (err !== 0) throw new Error(`Z3 rejected the SMT-LIB text: ${Z3.get_error_msg(ctx, err)}`);
    const t0 = performance.now();
    const r = check(ctx, solver);
    const solveMs = performance.now() - t0;
    let status = 'unknown';
    let reasonUnknown = null;
    let model = null;
    let unsatCoreIndices = null;
    if (r === Z3_L_TRUE) {
      status = 'sat';
      model = readModel(ctx, solver, msg.variables);
    } else if (r === Z3_L_FALSE) {
      status = 'unsat';
      if (typeof msg.coreSmtlib === 'string') {
        const left = Math.min(
          Math.floor(msg.solverTimeoutMs - solveMs),
          MAX_CORE_BUDGET_MS,
          Math.floor(2 * solveMs) + 100,
        );
        if (left >= MIN_CORE_BUDGET_MS) {
          try {
            const c = await unsatCore(ctx, msg.coreSmtlib, msg.coreCount, left);
            unsatCoreIndices = c.core;
            // An unknown in the core check leaves Z3's state untrusted, as below.
            if (c.unknown) release = false;
          } catch {
            // The UNSAT answer stands; only the core is missing. Do not trust this Z3 state.
            unsatCoreIndices = null;
            release = false;
          }
        }
      }
    } else {
      reasonUnknown = Z3.solver_get_reason_unknown(ctx, solver);
      // After a timeout or memory-out Z3's internal state is not trusted (deleting the
      // context has been seen to fault); skip cleanup and let the pool replace this worker.
      release = false;
    }
    if (release) Z3.solver_dec_ref(ctx, solver);
    return { status, reasonUnknown, model, solveMs, unsatCore: unsatCoreIndices, recycle: !release };
  } catch (e) {
    release = false;
    throw e;
  } finally {
    if (release) Z3.del_context(ctx);
  }
}

/**
 * Emscripten starts Z3's pthreads (each a nested worker instantiating the 35 MB WASM module)
 * lazily, inside a caller's solve. Start a few during start-up instead. Uses Emscripten's
 * PThread pool, so it is skipped if a future z3-solver build does not expose it.
 */
async function prestartPthreadsAsync(n) {
  const pt = em && em.PThread;
  if (!pt || typeof pt.allocateUnusedWorker !== 'function' || typeof pt.loadWasmModuleToWorker !== 'function') return;
  const before = new Set(pt.unusedWorkers);
  for (let i = before.size; i < n; i++) pt.allocateUnusedWorker();
  await Promise.all(pt.unusedWorkers.filter((w) => !before.has(w)).map((w) => pt.loadWasmModuleToWorker(w)));
}

let busy = false;
parentPort.on('message', async (msg) => {
  if (msg.type !== 'solve') return;
  if (busy) {
    parentPort.postMessage({ type: 'failure', id: msg.id, message: 'worker busy' });
    return;
  }
  busy = true;
  try {
    const result = await solve(msg);
    parentPort.postMessage({ type: 'result', id: msg.id, ...result, ...memory() });
  } catch (e) {
    parentPort.postMessage({ type: 'failure', id: msg.id, message: e instanceof Error ? e.message : String(e) });
  } finally {
    busy = false;
  }
});

// The first check starts Z3's pthreads (nested workers loading the WASM module) and the
// first use of each theory compiles its WASM code: pay that during start-up, not in the
// first caller's solve.
const WARM_UP = [
  '(declare-const a Int)',
  '(declare-const b Int)',
  '(declare-const r Real)',
  '(declare-const p Bool)',
  '(assert (and (> a 5) (< b 10) (= (+ a b) 12) (= (* 3.0 r) 1.0) (or p (> (* a a) 30)) (= (mod a 3) (div b 2))))',
  '(assert (forall ((n Int)) (=> (> n 0) (> (+ n a) 5))))',
].join('\n');
// Two: Z3's own (its timeout's timer, and one more it starts on a first check); the check itself
// needs none since session 18 (check() above; z3-solver's async check took a third).
await prestartPthreadsAsync(2);
for (let i = 0; i < 4; i++) {
  const w = await solve({
    smtlib: WARM_UP,
    variables: [
      { symbol: 'a', sort: 'Int' },
      { symbol: 'r', sort: 'Real' },
      { symbol: 'p', sort: 'Bool' },
    ],
    solverTimeoutMs: 10_000,
  });
  // A Z3 that cannot solve this is unusable: fail start-up (the pool sees a start failure).
  if (w.status !== 'sat') throw new Error(`Z3 warm-up solve returned ${w.status} (${w.reasonUnknown ?? ''})`);
}
parentPort.postMessage({ type: 'ready', z3Version });
