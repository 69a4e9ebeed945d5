// POST /verify/process request (contract, "POST /verify/process"): `trace` required string,
// `mode` 'irac' | 'milestones' (default irac), `milestones` required in milestones mode.
// Unknown keys are ignored; known keys are type-strict (no coercion). Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { PROCESS_TIMEOUT_DETAIL } from './deadlines.js';
export { PROCESS_TIMEOUT_DETAIL };

export const PROCESS_LIMITS = { maxMilestones: 1_000, maxMilestoneLength: 1_000 } as const;

const requiredString = (field: string) => (iss: { input?: unknown }) =>
  iss.input === undefined ? `${field} is required` : `${field} must be a string`;

export const processRequestSchema = nullMeansAbsent(
  z.object({
    trace: z.string({ error: requiredString('trace') }),
    mode: z
      .enum(['irac', 'milestones'], { error: () => "mode must be 'irac' or 'milestones'" })
      .optional()
      .transform((m) => m ?? 'irac'),
    milestones: z
      .array(z.string({ error: 'every milestone must be a string' }), {
        error: 'milestones must be an array of strings',
      })
      .optional(),
  }),
).superRefine((value, ctx) => {
  if (value.mode !== 'milestones') return;
  const list = value.milestones;
  if (list === undefined) {
    ctx.addIssue({ code: 'custom', path: ['milestones'], message: "milestones is required when mode is 'milestones'" });
    return;
  }
  if (list.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['milestones'], message: 'milestones must contain at least one milestone' });
  }
  if (list.length > PROCESS_LIMITS.maxMilestones) {
    ctx.addIssue({
      code: 'custom',
      path: ['milestones'],
      message: `milestones may contain at most ${PROCESS_LIMITS.maxMilestones} entries`,
    });
  }
  list.forEach((m, i) => {
    if (m.trim().length === 0)
      ctx.addIssue({ code: 'custom', path: ['milestones', i], message: `milestones[${i}] must not be blank` });
    if (m.length > PROCESS_LIMITS.maxMilestoneLength) {
      ctx.addIssue({
        code: 'custom',
        path: ['milestones', i],
        message: `milestones[${i}] is longer than ${PROCESS_LIMITS.maxMilestoneLength} characters`,
      });
    }
  });
});

export type ProcessRequestInput = z.input<typeof processRequestSchema>;
export type ProcessRequest = z.output<typeof processRequestSchema>;

/** Validates a body; `detail` is the message for an HTTP 400 `{detail}` response. */
export function validateProcessRequest(
  body: unknown,
): { ok: true; value: ProcessRequest } | { ok: false; detail: string } {
  const parsed = processRequestSchema.safeParse(body);
  if (parsed.success) return { ok: true, value: parsed.data };
  const detail = parsed.error.issues
    .map((i) => (i.path.length === 0 && i.code === 'invalid_type' ? 'request body must be a JSON object' : i.message))
    .join('; ');
  return { ok: false, detail };
}

/** irac: verified, score, missing_steps, mechanism. milestones: verified, process_rate, missed_milestones. */
export const processResponseSchema = z
  .looseObject({
    verified: z.boolean(),
    score: z.number().optional(),
    missing_steps: z.array(z.string()).optional(),
    mechanism: z.record(z.string(), z.string().nullable()).optional(),
    process_rate: z.number().optional(),
    missed_milestones: z.array(z.string()).optional(),
  })
  .meta({
    id: 'ProcessResponse',
    example: {
      verified: true,
      score: 1,
      missing_steps: [],
      mechanism: { issue: 'keyword', rule: 'keyword', application: 'keyword', conclusion: 'keyword' },
    },
  });
export type ProcessResponse = z.infer<typeof processResponseSchema>;
