// POST /verify/code (contract, "POST /verify/code"). Imports nothing but zod.
import { z } from 'zod';
import { admittedDiagnosticSchema, nullMeansAbsent } from './common.js';
import { CODE_TIMEOUT_DETAIL } from './deadlines.js';
export { CODE_TIMEOUT_DETAIL };

// Empty code and unsupported languages are verdicts (BLOCKED), not request errors: only the types are checked here.
export const codeRequestSchema = nullMeansAbsent(
  z.object({
    code: z.string().meta({ example: 'import os\nos.system("ls")' }),
    language: z.string().max(64).optional().meta({ description: 'Default python.', example: 'python' }),
  }),
);
export type CodeRequest = z.infer<typeof codeRequestSchema>;

/** DiagnosticResult with `admission` (and `attestation` when VERIFIED); developer_fields: constraint_id, is_safe, is_valid, language, critical_count, issues[]. */
export const codeResponseSchema = admittedDiagnosticSchema;
export type CodeResponse = z.infer<typeof codeResponseSchema>;
