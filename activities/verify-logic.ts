// /verify/logic as an activity: the DSL is solved by Z3 in the worker-thread pool, and a SAT
// model is re-checked by the engine's own evaluator before it is reported.
import { solveLogic, LogicInputError, INTERNAL_VERIFICATION_ERROR, type LogicPool } from '../engines/logic/index.js';
import type { VerifyActivityInput } from './types.js';
import type { LogicActivityResult } from '../core/verification-io.js';
export type { LogicActivityResult };

export interface LogicRequest {
  query: string;
  provider?: string;
}

export function makeVerifyLogicActivity(z3TimeoutMs: number, pool?: LogicPool) {
  return async function verifyLogicActivity(req: VerifyActivityInput<LogicRequest>): Promise<LogicActivityResult> {
    try {
      const r = await solveLogic(req.input.query, { timeoutMs: z3TimeoutMs, orgId: req.org_id, pool });
      switch (r.status) {
        case 'SAT':
          return {
            status: 'SAT',
            model: r.model,
            ...(r.proof.independent_check
              ? {
                  independent_check: {
                    coverage: r.proof.independent_check.coverage,
                    constraints_total: r.proof.independent_check.constraints_total,
                    constraints_unchecked_quantified: r.proof.independent_check.constraints_unchecked_quantified,
                  },
                }
              : {}),
            provider_used: null,
          };
        case 'UNSAT':
          return { status: 'UNSAT', unsat_core: r.unsatCore, provider_used: null };
        case 'NATURAL_LANGUAGE':
          return {
            status: 'ERROR',
            error: INTERNAL_VERIFICATION_ERROR,
            reason: 'natural_language_requires_provider',
            message:
              'The query is natural language, and no LLM provider is configured to translate it; send the logic DSL instead (docs/logic-dsl.md).',
            provider_used: null,
          };
        default:
          return { status: 'ERROR', error: INTERNAL_VERIFICATION_ERROR, reason: r.reason, provider_used: null };
      }
    } catch (err) {
      if (err instanceof LogicInputError) {
        return {
          status: err.refusal === 'policy' ? 'BLOCKED' : 'ERROR',
          reason: (err as { reason?: string }).reason ?? 'invalid_query',
          message: err.message,
          position: err.position,
          provider_used: null,
          input_refused: err.refusal,
        };
      }
      return { status: 'ERROR', error: INTERNAL_VERIFICATION_ERROR, reason: 'internal_failure', provider_used: null };
    }
  };
}
