// POST /verify/stats (multipart: `file` CSV + `query`; contract, "POST /verify/stats").
// The fields are read by the streaming CSV reader (api/middleware/csv-upload.ts) under the caps
// below; this schema describes the form for the documentation and the client.
import { z } from 'zod';
import { diagnosticResultSchema } from './common.js';
import { STATS_TIMEOUT_DETAIL } from './deadlines.js';
export { STATS_TIMEOUT_DETAIL };

export const STATS_FILE_LIMIT_BYTES = 10_000_000;
export const STATS_ENVELOPE_BYTES = 64 * 1024;
export const STATS_BODY_LIMIT_BYTES = STATS_FILE_LIMIT_BYTES + STATS_ENVELOPE_BYTES;
export const STATS_CELL_LIMIT = 1_000_000;
export const UPLOAD_CAPACITY_DETAIL = 'Upload capacity reached — retry shortly.';

export const statsMultipartSchema = z.object({
  file: z
    .string()
    .meta({ format: 'binary', description: 'CSV with a header row, at most 10,000,000 bytes and 1,000,000 cells.' }),
  query: z.string().min(1).meta({ example: 'mean(revenue) > 100' }),
});
export type StatsMultipart = z.infer<typeof statsMultipartSchema>;

/** DiagnosticResult: UNVERIFIABLE on execution success, BLOCKED on failure (403 for a security-policy block). */
export const statsResponseSchema = diagnosticResultSchema;
