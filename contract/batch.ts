// POST /verify/batch and GET /verify/batch/{job_id} (contract, "POST /verify/batch").
// Imports nothing but zod (and the other contract files).
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';
import { BATCH_ITEM_TYPES, BATCH_MAX_ITEMS, type BatchItemType } from './batch-limits.js';
import { mathRequestSchema } from './math.js';
import { sqlRequestSchema } from './sql.js';
import { codeRequestSchema } from './code.js';
import { logicRequestSchema } from './logic.js';

export * from './batch-limits.js';

/**
 * The options each item type accepts in `params`: the single endpoint's request schema without
 * the field the item's `query` fills. A malformed known option is a 400 for the whole request
 * (never a silent default, e.g. `language: ["javascript"]` must not fall back to Python);
 * unknown keys are ignored and dropped. Items whose engine needs an LLM provider fail closed
 * anyway, so their params are passed through unread.
 */
export const BATCH_PARAMS_SCHEMAS: Partial<Record<BatchItemType, z.ZodType<Record<string, unknown>>>> = {
  math: mathRequestSchema.omit({ expression: true }),
  logic: logicRequestSchema.omit({ query: true }),
  code: codeRequestSchema.omit({ code: true }),
  sql: sqlRequestSchema.omit({ query: true }),
};

const batchItemSchema = nullMeansAbsent(
  z.object({
    query: z.string(),
    type: z
      .enum(BATCH_ITEM_TYPES, { error: `unknown item type; expected one of ${BATCH_ITEM_TYPES.join(', ')}` })
      .optional()
      .transform((t) => t ?? 'natural_language'),
    params: z
      .record(z.string(), z.unknown())
      .optional()
      .transform((p) => p ?? {}),
  }),
).transform((item, ctx) => {
  const schema = BATCH_PARAMS_SCHEMAS[item.type];
  if (!schema) return item;
  const parsed = schema.safeParse(item.params);
  if (!parsed.success) {
    for (const issue of parsed.error.issues)
      ctx.addIssue({ code: 'custom', message: issue.message, path: ['params', ...issue.path] });
    return z.NEVER;
  }
  return { ...item, params: parsed.data };
});

export const batchRequestSchema = z
  .object({
    items: z
      .array(batchItemSchema)
      .min(1, 'must contain at least 1 item')
      .max(BATCH_MAX_ITEMS, `must contain at most ${BATCH_MAX_ITEMS} items`),
  })
  .meta({
    example: {
      items: [
        { query: '2 + 2 = 4', type: 'math' },
        { query: 'SELECT 1', type: 'sql', params: { schema_ddl: 'CREATE TABLE t (id INT)' } },
      ],
    },
  });
export type BatchRequestInput = z.input<typeof batchRequestSchema>;
export type BatchRequest = z.output<typeof batchRequestSchema>;

export const planBatchDetail = (count: number, plan: string, limit: number) =>
  `Batch of ${count} items exceeds the ${plan} plan's batch size of ${limit} items.`;

export const batchItemViewSchema = z.looseObject({
  /** `<job_id>-<index>` */
  id: z.string(),
  query: z.string(),
  type: z.enum(BATCH_ITEM_TYPES),
  status: z.enum(['completed', 'failed']),
  /** The single endpoint's result (DiagnosticResult for math items). */
  result: z.unknown().optional(),
  error: z.string().optional(),
  latency_ms: z.number(),
});

/** 200 when the job finished within SVC_BATCH_WAIT_SECONDS, else 202 (poll GET /verify/batch/{job_id}). */
export const batchJobSchema = z
  .looseObject({
    job_id: z.string(),
    /** `failed`: the job's workflow ended without completing it (terminated, timed out); every item is failed, no result released. */
    status: z.enum(['running', 'completed', 'failed']),
    progress_percent: z.number().min(0).max(100),
    total_items: z.number().int(),
    completed_items: z.number().int(),
    failed_items: z.number().int(),
    items: z.array(batchItemViewSchema),
    workflow_id: z.string(),
    created_at: z.string(),
    completed_at: z.string().nullable(),
  })
  .meta({ id: 'BatchJob' });
export type BatchJob = z.infer<typeof batchJobSchema>;

export const batchJobParamsSchema = z.object({ job_id: z.string() });
