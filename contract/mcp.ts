// The tools of the MCP server (POST /mcp, docs/mcp.md): one per verification kind, batch submit
// and status, and attestation verify. Each tool names the endpoint of contract/endpoints.ts it
// runs; its input schema is that endpoint's own request schema, except where the transport
// differs: the two upload endpoints take their file as text in the arguments (an MCP call is
// JSON), and batch submit adds how long the call may wait while it reports progress. Those
// differences are derived from the endpoints' schemas here, never written out again.
// Imports nothing but zod and the other contract files.
import { z } from 'zod';
import { imageFieldsSchema } from './image.js';
import { statsMultipartSchema } from './stats.js';
import { batchJobParamsSchema, batchRequestSchema } from './batch.js';

/** The longest a batch_submit call waits for its job while it reports progress (seconds). */
export const MCP_BATCH_MAX_WAIT_SECONDS = 60;
/** Without `wait_seconds`: how long a batch_submit call that asked for progress waits. */
export const MCP_BATCH_DEFAULT_WAIT_SECONDS = 30;

/** verify_image: the form's text fields, and the image itself as base64 (the JSON body cap of /mcp bounds it). */
export const mcpImageArgumentsSchema = imageFieldsSchema.extend({
  image_base64: z.string({ error: "Field 'image_base64' is required." }).meta({
    description: 'The image (PNG, JPEG, GIF or WebP) as standard base64; the whole call is capped at 1,000,000 bytes.',
  }),
});

/** verify_stats: the query, and the CSV as text in place of the uploaded file. */
export const mcpStatsArgumentsSchema = statsMultipartSchema.omit({ file: true }).extend({
  csv: z
    .string({ error: "Field 'csv' is required." })
    .meta({ description: 'The CSV data with a header row, as text (the whole call is capped at 1,000,000 bytes).' }),
});

/** batch_submit: the batch request, and how long to wait for the job while reporting progress. */
export const mcpBatchSubmitArgumentsSchema = batchRequestSchema.extend({
  wait_seconds: z
    .number()
    .min(0)
    .max(MCP_BATCH_MAX_WAIT_SECONDS)
    .optional()
    .meta({
      description: `Only with a progress token: seconds to wait for the job while sending progress notifications (default ${MCP_BATCH_DEFAULT_WAIT_SECONDS}, at most ${MCP_BATCH_MAX_WAIT_SECONDS}). Without one the call returns the job handle at once.`,
    }),
});

export type McpToolName =
  | 'verify_math'
  | 'verify_logic'
  | 'verify_code'
  | 'verify_sql'
  | 'verify_fact'
  | 'verify_natural_language'
  | 'verify_consensus'
  | 'verify_process'
  | 'verify_rag'
  | 'verify_image'
  | 'verify_stats'
  | 'batch_submit'
  | 'batch_status'
  | 'attestation_verify';

export interface McpToolContract {
  name: McpToolName;
  title: string;
  description: string;
  /** The id of the endpoint in contract/endpoints.ts the call runs. */
  endpoint: string;
  /** Absent: the endpoint's JSON request body schema. */
  input?: z.ZodObject;
  /** How the arguments become the request: JSON body (default), path parameters, or a multipart upload. */
  transport?: 'json' | 'path' | 'image' | 'stats';
}

/** Not offered, on purpose: arbitrary code execution (docs/mcp.md). `verify_code` scans code, it never runs it. */
export const MCP_TOOLS: readonly McpToolContract[] = [
  {
    name: 'verify_math',
    endpoint: 'verifyMath',
    title: 'Verify math',
    description:
      'Check a math expression or equation symbolically (POST /verify/math). VERIFIED only with a deterministic proof (proof_ref) and a signed attestation.',
  },
  {
    name: 'verify_logic',
    endpoint: 'verifyLogic',
    title: 'Verify logic',
    description:
      'Solve logic constraints (the DSL, or natural language through a provider) with Z3 (POST /verify/logic): SAT with a model, UNSAT, or ERROR.',
  },
  {
    name: 'verify_code',
    endpoint: 'verifyCode',
    title: 'Scan code',
    description:
      'Static security scan of source code (POST /verify/code); the code is parsed, never executed. Admission BLOCKED for proven-unsafe code.',
  },
  {
    name: 'verify_sql',
    endpoint: 'verifySql',
    title: 'Verify SQL',
    description: 'Check a SQL query against a schema (POST /verify/sql): safety and validity, with admission.',
  },
  {
    name: 'verify_fact',
    endpoint: 'verifyFact',
    title: 'Verify a fact',
    description:
      'Check a factual claim against a context text (POST /verify/fact): SUPPORTED, REFUTED or INCONCLUSIVE.',
  },
  {
    name: 'verify_natural_language',
    endpoint: 'verifyNaturalLanguage',
    title: 'Verify natural-language math',
    description:
      'Translate a natural-language math question with a language model, then check the translation (POST /verify/natural_language); never VERIFIED on the model alone.',
  },
  {
    name: 'verify_consensus',
    endpoint: 'verifyConsensus',
    title: 'Multi-engine consensus',
    description: 'Run several engines on one query and report their agreement (POST /verify/consensus).',
  },
  {
    name: 'verify_process',
    endpoint: 'verifyProcess',
    title: 'Verify a reasoning trace',
    description: 'Check a reasoning trace for its IRAC steps or required milestones (POST /verify/process).',
  },
  {
    name: 'verify_rag',
    endpoint: 'verifyRag',
    title: 'Verify RAG provenance',
    description: 'Check that retrieved chunks come from the target document (POST /verify/rag).',
  },
  {
    name: 'verify_image',
    endpoint: 'verifyImage',
    transport: 'image',
    input: mcpImageArgumentsSchema,
    title: 'Verify an image claim',
    description: 'Check a claim about an image by measuring it (POST /verify/image); the image is given as base64.',
  },
  {
    name: 'verify_stats',
    endpoint: 'verifyStats',
    transport: 'stats',
    input: mcpStatsArgumentsSchema,
    title: 'Verify a statistical claim',
    description: 'Check a statistical claim against CSV data given as text (POST /verify/stats).',
  },
  {
    name: 'batch_submit',
    endpoint: 'verifyBatch',
    input: mcpBatchSubmitArgumentsSchema,
    title: 'Submit a batch',
    description:
      'Submit up to 100 verifications as one durable job (POST /verify/batch). Returns the job handle at once; with a progress token it sends progress notifications while it waits (bounded by wait_seconds). The job runs on if the caller disconnects: read it with batch_status.',
  },
  {
    name: 'batch_status',
    endpoint: 'getBatch',
    transport: 'path',
    input: batchJobParamsSchema,
    title: 'Batch status',
    description: 'Status, progress and results of a batch job (GET /verify/batch/{job_id}).',
  },
  {
    name: 'attestation_verify',
    endpoint: 'verifyAttestation',
    title: 'Verify an attestation',
    description: "Verify an attestation token's signature, issuer and claims (POST /attestation/verify).",
  },
];
