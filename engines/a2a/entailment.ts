// logic_assertion on the gateway: an assertion about facts is verified only when the facts in
// the payload entail it. Satisfiable is not true: `(GT amount 1000000)` is satisfiable because
// Z3 may choose amount = 1000001, which says nothing about the real amount. So the check is
// entailment: the facts (one exact value per variable, `payload.facts`) together with the
// negated assertion must be unsatisfiable (Z3 UNSAT). When the facts fix every variable, the
// engine's exact evaluator must agree (the assertion evaluates to true under them); a
// disagreement is an error, never a verdict. Everything else fails closed:
//   - facts ∧ ¬assertion SAT and facts ∧ assertion UNSAT (or the evaluator finds it false): blocked, assertion_refuted;
//   - facts ∧ ¬assertion SAT otherwise: unverifiable, not_entailed (the counterexample is named);
//   - facts of the wrong shape or sort: unverifiable, invalid_facts (never a vacuous entailment
//     from contradictory facts: each variable gets exactly one value of its own sort);
//   - solver time-out, busy pool: error.
// Pure apart from the injected solver (the Z3 pool of engines/logic).
import {
  compileLogicQuery,
  looksLikeDsl,
  LogicBlockedError,
  LogicInputError,
  LOGIC_LIMITS,
  type LogicResult,
} from '../logic/index.js';
import { printExpr } from '../logic/printer.js';
import { checkModel, type ModelValue } from '../logic/evaluator.js';
import { Rational } from '../logic/rational.js';
import type { SortName } from '../logic/operators.js';
import { formatDecimal, parseDecimal } from './financial.js';

export type Solve = (dsl: string, timeoutMs: number) => Promise<LogicResult>;

export type EntailmentOutcome =
  | { status: 'verified'; reason: string; proof: Record<string, unknown> }
  | { status: 'blocked' | 'unverifiable' | 'error'; reason: string };

const OUTCOME_STATUSES: ReadonlySet<string> = new Set(['verified', 'blocked', 'unverifiable', 'error']);

/** At most this many facts per payload. */
export const MAX_FACTS = 1000;
const MAX_LITERAL = 100; // the DSL's numeric literal limit

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The DSL literal of a fact for a variable of `sort`, or an error message. */
function literalOf(name: string, sort: SortName, v: unknown): { literal: string; value: ModelValue } | string {
  if (sort === 'Bool') {
    if (typeof v === 'boolean') return { literal: v ? 'true' : 'false', value: v };
    return `fact '${name}' must be true or false (the variable is Bool)`;
  }
  if (typeof v === 'boolean' || (typeof v !== 'number' && typeof v !== 'string'))
    return `fact '${name}' must be a number or a decimal string (the variable is ${sort})`;
  const d = parseDecimal(v);
  if (!d) return `fact '${name}' must be a finite decimal number (the variable is ${sort})`;
  const text = formatDecimal(d);
  if (sort === 'Int') {
    const r = Rational.parse(text);
    if (!r.isInteger()) return `fact '${name}' must be an integer (the variable is Int)`;
    const literal = r.num.toString();
    if (literal.length > MAX_LITERAL) return `fact '${name}' has more than ${MAX_LITERAL} digits`;
    return { literal, value: r };
  }
  if (text.length > MAX_LITERAL) return `fact '${name}' has more than ${MAX_LITERAL} digits`;
  return { literal: text, value: Rational.parse(text) };
}

function solverError(r: LogicResult & { status: 'ERROR' }): EntailmentOutcome {
  if (r.reason === 'solver_timeout' || r.reason === 'deadline_exceeded')
    return { status: 'error', reason: 'engine_timeout' };
  if (r.reason === 'queue_full') return { status: 'error', reason: 'engine_busy' };
  if (r.reason === 'independent_check_inconclusive')
    return {
      status: 'unverifiable',
      reason:
        'not_entailed: Z3 found a counterexample the independent evaluator could not confirm; the assertion is not proven',
    };
  return { status: 'error', reason: `engine_error: ${r.reason}` };
}

const describeModel = (m: Record<string, string>) =>
  Object.entries(m)
    .slice(0, 8)
    .map(([k, v]) => `${k}=${v}`)
    .join(', ')
    .slice(0, 200);

export async function checkEntailment(
  query: string,
  facts: unknown,
  solve: Solve,
  deadlineMs: number,
  now: () => number = Date.now,
): Promise<EntailmentOutcome> {
  const deadline = now() + deadlineMs;
  if (query.length > LOGIC_LIMITS.maxQueryLength)
    return { status: 'blocked', reason: `logic_policy: query longer than ${LOGIC_LIMITS.maxQueryLength} characters` };
  if (!looksLikeDsl(query))
    return {
      status: 'unverifiable',
      reason: 'natural_language_requires_provider: send the assertion in the logic DSL (docs/logic-dsl.md)',
    };
  let compiled;
  try {
    compiled = compileLogicQuery(query);
  } catch (err) {
    if (err instanceof LogicBlockedError) return { status: 'blocked', reason: `logic_policy: ${err.reason}` };
    if (err instanceof LogicInputError)
      return { status: 'unverifiable', reason: `invalid_query: ${err.message.slice(0, 200)}` };
    throw err;
  }
  const constraints = compiled.typed.constraints;
  if (constraints.length === 0)
    return { status: 'unverifiable', reason: 'invalid_query: the assertion has no constraint, only declarations' };

  // The facts: one exact value of the variable's own sort per named variable.
  if (facts === undefined || facts === null) facts = {};
  if (!isPlainObject(facts))
    return {
      status: 'unverifiable',
      reason: 'invalid_facts: facts must be an object mapping variable names to values',
    };
  const keys = Object.keys(facts);
  if (keys.length > MAX_FACTS) return { status: 'unverifiable', reason: `invalid_facts: at most ${MAX_FACTS} facts` };
  const bound: Array<{ name: string; literal: string }> = [];
  const values = new Map<string, ModelValue>();
  for (const v of compiled.variables) {
    if (!Object.prototype.hasOwnProperty.call(facts, v.name)) continue;
    const lit = literalOf(v.name, v.sort, facts[v.name]);
    if (typeof lit === 'string') return { status: 'unverifiable', reason: `invalid_facts: ${lit}` };
    bound.push({ name: v.name, literal: lit.literal });
    values.set(v.name, lit.value);
  }
  const open = compiled.variables.filter((v) => !values.has(v.name)).map((v) => v.name);
  const unused = keys.filter((k) => !compiled.variables.some((v) => v.name === k));

  // Every variable fixed: the exact evaluator decides on its own; Z3 must agree below.
  let evaluated: string | null = null;
  if (open.length === 0) {
    let checks;
    try {
      checks = checkModel(constraints, values);
    } catch {
      return { status: 'error', reason: 'engine_error: the exact evaluator failed' };
    }
    const falseAt = checks.indexOf('false');
    if (falseAt >= 0)
      return {
        status: 'blocked',
        reason: `assertion_refuted: constraint #${falseAt + 1} is false under the facts (exact evaluation)`,
      };
    evaluated = checks.every((c) => c === 'true') ? 'true' : 'undecided (quantifier or division by zero)';
  }

  const decls = compiled.variables.map((v) => `(VAR ${v.name} ${v.sort})`);
  const factText = bound.map((b) => `(EQ ${b.name} ${b.literal})`);
  const body = constraints.map(printExpr);
  const assertion = body.length === 1 ? (body[0] as string) : `(AND ${body.join(' ')})`;
  const negation = [...decls, ...factText, `(NOT ${assertion})`].join(' ');

  const run = async (dsl: string): Promise<LogicResult | EntailmentOutcome> => {
    const left = deadline - now();
    if (left < 50) return { status: 'error', reason: 'engine_timeout' };
    try {
      return await solve(dsl, left);
    } catch (err) {
      // The assertion compiled alone; a refusal now comes from the size of the facts.
      if (err instanceof LogicInputError)
        return {
          status: 'unverifiable',
          reason: `invalid_facts: the facts make the check too large (${err.message.slice(0, 120)})`,
        };
      throw err;
    }
  };
  const isOutcome = (r: LogicResult | EntailmentOutcome): r is EntailmentOutcome => OUTCOME_STATUSES.has(r.status);

  const neg = await run(negation);
  if (isOutcome(neg)) return neg;
  if (neg.status === 'ERROR') return solverError(neg);
  if (neg.status === 'NATURAL_LANGUAGE')
    return { status: 'error', reason: 'engine_error: entailment text not recognised as DSL' };
  if (neg.status === 'UNSAT') {
    return {
      status: 'verified',
      reason: `entailed: the facts entail the assertion (facts ∧ ¬assertion is unsatisfiable for Z3${evaluated === 'true' ? '; the exact evaluator agrees' : ''})`,
      proof: {
        engine: 'z3-entailment',
        method:
          'facts ∧ ¬assertion is unsatisfiable (Z3), so every assignment consistent with the facts satisfies the assertion',
        assertion: compiled.normalizedQuery,
        facts: Object.fromEntries(bound.map((b) => [b.name, b.literal])),
        open_variables: open,
        unused_facts: unused,
        negation_dsl: negation,
        negation_smtlib: neg.proof.smtlib2,
        solver: neg.proof.solver,
        result: 'unsat',
        independent_evaluation: evaluated ?? 'not applicable (open variables)',
      },
    };
  }
  // SAT: a counterexample consistent with the facts exists (checked by the evaluator).
  if (evaluated === 'true')
    return { status: 'error', reason: 'engine_error: Z3 found a counterexample the exact evaluator contradicts' };
  const counter = describeModel(neg.model);
  if (open.length > 0) {
    const pos = await run([...decls, ...factText, assertion].join(' '));
    if (!isOutcome(pos) && pos.status === 'UNSAT')
      return {
        status: 'blocked',
        reason: 'assertion_refuted: no values of the open variables make it true under the facts (Z3 UNSAT)',
      };
  }
  return {
    status: 'unverifiable',
    reason: `not_entailed: the facts do not entail the assertion (${open.length ? `open: ${open.slice(0, 8).join(', ')}; ` : ''}counterexample: ${counter})`,
  };
}
