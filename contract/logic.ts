// POST /verify/logic (contract, "POST /verify/logic"). Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { LOGIC_TIMEOUT_DETAIL } from './deadlines.js';
export { LOGIC_TIMEOUT_DETAIL };

export const LOGIC_STATUSES = ['SAT', 'UNSAT', 'BLOCKED', 'ERROR'] as const;

export const logicRequestSchema = nullMeansAbsent(
  z.object({
    query: z.string().trim().min(1, 'must not be empty').meta({ example: '(AND (GT x 5) (LT x 10))' }),
    provider: z.string().max(64).optional(),
  }),
);
export type LogicRequest = z.infer<typeof logicRequestSchema>;

/** 200 (SAT, UNSAT, ERROR) and 403 (BLOCKED, with `reason`, `detail` and `position`). */
export const logicResponseSchema = z
  .looseObject({
    status: z.enum(LOGIC_STATUSES),
    model: z.record(z.string(), z.string()).optional(),
    independent_check: z
      .object({
        coverage: z.enum(['full', 'quantifier_free_parts']),
        constraints_total: z.number(),
        constraints_unchecked_quantified: z.number(),
      })
      .optional(),
    unsat_core: z
      .array(z.object({ index: z.number(), position: z.number(), constraint: z.string() }))
      .nullable()
      .optional(),
    provider_used: z.string().nullable(),
    error: z.string().optional(),
    reason: z.string().optional(),
    message: z.string().optional(),
    detail: z.string().optional(),
    position: z.number().nullable().optional(),
  })
  .meta({ id: 'LogicResponse', example: { status: 'SAT', model: { x: '6' }, provider_used: null } });
export type LogicResponse = z.infer<typeof logicResponseSchema>;
