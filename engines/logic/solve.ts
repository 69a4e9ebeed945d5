// solveLogic: DSL query -> Z3 (in the worker pool) -> independent check of any model.
//
// Caller-input problems are thrown as typed errors (LogicBlockedError 403,
// LogicSyntaxError / LogicTypeError 400). Everything that goes wrong after the input was
// accepted is an ERROR result ("Internal verification error"); SAT is only reported after
// the model has been checked by the evaluator in evaluator.ts.

import { createRequire } from 'node:module';
import { compileLogicQuery, type CompiledLogicQuery } from './compile.js';
import { looksLikeDsl } from './detect.js';
import { LogicBlockedError, LogicSyntaxError } from './errors.js';
import { checkModel, type ModelValue } from './evaluator.js';
import { LOGIC_LIMITS } from './limits.js';
import type { SortName } from './operators.js';
import { getLogicPool, type LogicPool, type PoolOutcome } from './pool.js';
import { Rational } from './rational.js';
import { getModelTamperHook } from './test-hooks.js';

/** Unsat cores are computed for at most this many named conjuncts (docs/logic-dsl.md). */
export const MAX_CORE_CONJUNCTS = 64;

export const INTERNAL_VERIFICATION_ERROR = 'Internal verification error' as const;
export const LOGIC_DSL_VERSION = '1';

const Z3_BINDING_VERSION: string = (createRequire(import.meta.url)('z3-solver/package.json') as { version: string })
  .version;

export interface LogicProof {
  engine: 'svc-logic';
  dsl_version: string;
  /** Canonical DSL (S-expression form) of what was solved. */
  normalized_query: string;
  /** The SMT-LIB2 text given verbatim to Z3. */
  smtlib2: string;
  variables: Array<{ name: string; sort: SortName; smt_symbol: string; declared: boolean }>;
  solver: { name: 'z3'; version: string; binding: string; deadline_ms: number };
  result: 'sat' | 'unsat';
  /** UNSAT only: Z3's minimized unsat core over the named conjuncts (null if not extracted). */
  unsat_core?: UnsatCoreEntry[] | null;
  /** SAT only: the model that was independently checked. */
  model?: Record<string, string>;
  /** SAT only. */
  independent_check?: {
    evaluator: 'svc-logic-exact-rational';
    /** `full`: every constraint evaluated to true; `quantifier_free_parts`: some constraints
     *  contain FORALL/EXISTS over Int/Real that cannot be enumerated and were not contradicted. */
    coverage: 'full' | 'quantifier_free_parts';
    constraints_total: number;
    constraints_unchecked_quantified: number;
  };
}

/** One conjunct of an unsat core (conjuncts: top-level constraints, top-level ANDs flattened). */
export interface UnsatCoreEntry {
  /** 1-based conjunct number in query order. */
  index: number;
  /** 0-based character offset of the conjunct's operator (or atom) in the query. */
  position: number;
  /** Canonical DSL text of the conjunct. */
  constraint: string;
}

export type LogicErrorReason =
  | 'solver_timeout'
  | 'solver_unknown'
  | 'solver_failure'
  | 'deadline_exceeded'
  | 'worker_crashed'
  | 'worker_start_failed'
  | 'queue_full'
  | 'pool_shut_down'
  | 'model_unreadable'
  | 'independent_check_failed'
  | 'independent_check_inconclusive';

export type LogicResult =
  | { status: 'SAT'; model: Record<string, string>; proof: LogicProof }
  | { status: 'UNSAT'; unsatCore: UnsatCoreEntry[] | null; proof: LogicProof }
  | { status: 'ERROR'; error: typeof INTERNAL_VERIFICATION_ERROR; reason: LogicErrorReason; detail: string }
  /** Not DSL: needs an LLM translation step first (the lead maps this to a fail-closed response). */
  | { status: 'NATURAL_LANGUAGE'; reason: string };

export interface SolveLogicOptions {
  /** Deadline for the solve, queue time included. Default: the pool's (SVC_Z3_TIMEOUT, 15 s). */
  timeoutMs?: number;
  /** Pool to use. Default: getLogicPool(). */
  pool?: LogicPool;
  /** Organization of the caller: the pool shares its workers fairly across organizations. */
  orgId?: string | null;
}

function errorResult(reason: LogicErrorReason, detail: string): LogicResult {
  return { status: 'ERROR', error: INTERNAL_VERIFICATION_ERROR, reason, detail };
}

/**
 * Solves a DSL query. Resolves SAT (checked model), UNSAT, ERROR or NATURAL_LANGUAGE.
 * Rejects with LogicBlockedError / LogicSyntaxError / LogicTypeError for caller input,
 * RangeError for an invalid timeoutMs.
 */
export async function solveLogic(query: string, opts: SolveLogicOptions = {}): Promise<LogicResult> {
  if (typeof query !== 'string') throw new TypeError('query must be a string');
  if (query.length > LOGIC_LIMITS.maxQueryLength) {
    throw new LogicBlockedError('input_too_long', `query longer than ${LOGIC_LIMITS.maxQueryLength} characters`, null);
  }
  if (query.trim() === '') throw new LogicSyntaxError('empty query (position 0)', 0);
  if (!looksLikeDsl(query)) {
    return { status: 'NATURAL_LANGUAGE', reason: 'the query is not in the logic DSL and needs a translation step' };
  }
  const compiled = compileLogicQuery(query);
  const pool = opts.pool ?? getLogicPool();
  const timeoutMs = opts.timeoutMs ?? pool.defaultTimeoutMs;
  const outcome = await pool.solve(
    {
      smtlib: compiled.smtlib,
      variables: compiled.variables.map((v) => ({ symbol: v.smtSymbol, sort: v.sort })),
      // One conjunct is its own core: no second check needed.
      // Large conjunctions get no core: tracking hundreds of literals with minimisation can take
      // the whole budget (and a recycled Z3 worker) for a list nobody reads.
      ...(compiled.conjuncts.length > 1 && compiled.conjuncts.length <= MAX_CORE_CONJUNCTS
        ? { coreSmtlib: compiled.conjunctSmtlib, coreCount: compiled.conjuncts.length }
        : {}),
    },
    { timeoutMs, orgId: opts.orgId ?? null },
  );
  return interpret(compiled, outcome, timeoutMs);
}

function interpret(compiled: CompiledLogicQuery, outcome: PoolOutcome, timeoutMs: number): LogicResult {
  if (outcome.kind === 'failure') return errorResult(outcome.reason, outcome.detail);
  if (outcome.status === 'unknown') {
    const why = outcome.reasonUnknown ?? '';
    const timedOut = /timeout|canceled/i.test(why);
    return errorResult(timedOut ? 'solver_timeout' : 'solver_unknown', `Z3 returned unknown (${why || 'no reason'})`);
  }
  const proof: LogicProof = {
    engine: 'svc-logic',
    dsl_version: LOGIC_DSL_VERSION,
    normalized_query: compiled.normalizedQuery,
    smtlib2: compiled.smtlib,
    variables: compiled.variables.map((v) => ({
      name: v.name,
      sort: v.sort,
      smt_symbol: v.smtSymbol,
      declared: v.declared,
    })),
    solver: {
      name: 'z3',
      version: outcome.z3Version,
      binding: `z3-solver@${Z3_BINDING_VERSION}`,
      deadline_ms: timeoutMs,
    },
    result: outcome.status,
  };
  if (outcome.status === 'unsat') {
    const unsatCore = readCore(compiled, outcome.unsatCore ?? null);
    proof.unsat_core = unsatCore;
    return { status: 'UNSAT', unsatCore, proof };
  }
  try {
    return checkedSat(compiled, outcome, proof);
  } catch (e) {
    // Any failure of the check itself is a failure to verify, never a pass.
    return errorResult('independent_check_failed', `evaluator failure: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function checkedSat(
  compiled: CompiledLogicQuery,
  outcome: PoolOutcome & { kind: 'result' },
  proof: LogicProof,
): LogicResult {
  const entries: Array<[string, string]> = [];
  for (const v of compiled.variables) {
    const wm = outcome.model?.[v.smtSymbol];
    if (wm === undefined) return errorResult('model_unreadable', `Z3 model has no value for ${v.name}`);
    if (v.sort === 'Bool') {
      if (wm.kind !== 'bool') return errorResult('model_unreadable', `non-Boolean value for ${v.name}`);
      entries.push([v.name, wm.value ? 'true' : 'false']);
    } else {
      if (wm.kind !== 'numeral') {
        return errorResult(
          'model_unreadable',
          `value of ${v.name} is not an exact rational (${wm.kind === 'other' ? wm.text.slice(0, 80) : wm.kind}); it cannot be checked exactly`,
        );
      }
      const parsed = parseModelValue(v.sort, wm.text);
      if (parsed === null) return errorResult('model_unreadable', `unreadable ${v.sort} value for ${v.name}`);
      entries.push([v.name, String(parsed)]);
    }
  }
  // fromEntries defines own properties, so a variable named __proto__ stays a plain key.
  let model: Record<string, string> = Object.fromEntries(entries);
  const tamper = getModelTamperHook();
  if (tamper) model = tamper({ ...model });

  // Evaluate exactly the strings that will be reported.
  const values = new Map<string, ModelValue>();
  for (const v of compiled.variables) {
    const text = Object.prototype.hasOwnProperty.call(model, v.name) ? model[v.name] : undefined;
    const parsed = text === undefined ? null : parseModelValue(v.sort, text);
    if (parsed === null) return errorResult('model_unreadable', `model value for ${v.name} is missing or malformed`);
    values.set(v.name, parsed);
  }
  const checks = checkModel(compiled.typed.constraints, values);
  const failed = checks.indexOf('false');
  if (failed >= 0) {
    return errorResult(
      'independent_check_failed',
      `constraint #${failed + 1} is false under the Z3 model; refusing to report SAT`,
    );
  }
  const undefinedAt = checks.indexOf('unknown_undefined');
  if (undefinedAt >= 0) {
    return errorResult(
      'independent_check_inconclusive',
      `constraint #${undefinedAt + 1} cannot be evaluated exactly under the model (division by zero or oversized value)`,
    );
  }
  const unchecked = checks.filter((c) => c === 'unknown_quantifier').length;
  proof.model = model;
  proof.independent_check = {
    evaluator: 'svc-logic-exact-rational',
    coverage: unchecked === 0 ? 'full' : 'quantifier_free_parts',
    constraints_total: checks.length,
    constraints_unchecked_quantified: unchecked,
  };
  return { status: 'SAT', model, proof };
}

/** Maps the worker's 0-based assert indices to conjuncts; anything malformed gives no core. */
function readCore(compiled: CompiledLogicQuery, core: number[] | null): UnsatCoreEntry[] | null {
  if (compiled.conjuncts.length === 1) core = [0];
  if (core === null || !Array.isArray(core) || core.length === 0) return null;
  const out: UnsatCoreEntry[] = [];
  for (const i of core) {
    const c = Number.isInteger(i) ? compiled.conjuncts[i] : undefined;
    if (c === undefined) return null;
    out.push({ index: c.index, position: c.position, constraint: c.text });
  }
  return out;
}

/** Int: decimal integer; Real: `p`, `p/q` or a decimal; Bool: true/false. Returns null if malformed. */
function parseModelValue(sort: SortName, text: string): ModelValue | null {
  if (typeof text !== 'string' || text.length > 100_000) return null;
  if (sort === 'Bool') return text === 'true' ? true : text === 'false' ? false : null;
  if (sort === 'Int') return /^-?\d+$/.test(text) ? Rational.of(BigInt(text)) : null;
  if (!/^-?\d+(?:\/[1-9]\d*|\.\d+)?$/.test(text)) return null;
  return Rational.parse(text);
}
