// Every endpoint of the contract in one table: method, path, credential, request (body, path,
// query, headers) and responses with their status codes. The OpenAPI document (api/openapi.ts),
// the typed client and the tests read it. Imports nothing but zod and the other contract files.
import { z } from 'zod';
import { emptyRequestSchema, errorBodySchema, rateLimitErrorSchema, diagnosticResultSchema } from './common.js';
import { healthResponseSchema, identityQuerySchema, identityResponseSchema } from './health.js';
import { naturalLanguageRequestSchema, naturalLanguageResponseSchema } from './natural-language.js';
import { mathRequestSchema, mathResponseSchema } from './math.js';
import { logicRequestSchema, logicResponseSchema } from './logic.js';
import { codeRequestSchema, codeResponseSchema } from './code.js';
import { sqlRequestSchema, sqlResponseSchema } from './sql.js';
import { factRequestSchema, factResponseSchema } from './fact.js';
import { consensusRequestSchema, consensusResponseSchema } from './consensus.js';
import { imageMultipartSchema, imageResponseSchema } from './image.js';
import { statsMultipartSchema, statsResponseSchema } from './stats.js';
import { processRequestSchema, processResponseSchema } from './process.js';
import { ragRequestSchema, ragResponseSchema } from './rag.js';
import { batchJobParamsSchema, batchJobSchema, batchRequestSchema } from './batch.js';
import {
  documentRequestSchema,
  fromDiagnosticRequestSchema,
  resolveResponseSchema,
  validateResponseSchema,
  verificationContextDocumentSchema,
  verificationContextErrorSchema,
} from './verification-context.js';
import {
  activityQuerySchema,
  activityResponseSchema,
  agentBlockedResponseSchema,
  agentToolRequestSchema,
  agentVerifyRequestSchema,
  agentVerifyResponseSchema,
  approveToolRequestSchema,
  approveToolResponseSchema,
  budgetResponseSchema,
  contextErrorSchema,
  registerAgentRequestSchema,
  registerAgentResponseSchema,
  toolChangedResponseSchema,
  toolDecisionResponseSchema,
} from './agents.js';
import {
  actionSchema,
  approvalListQuerySchema,
  approvalListResponseSchema,
  approvalSchema,
  approvalWaitQuerySchema,
  decideApprovalRequestSchema,
  pendingApprovalResponseSchema,
  reportOutcomeRequestSchema,
} from './agent-approvals.js';
import {
  attestationParamsSchema,
  attestationResponseSchema,
  attestationVerifyRequestSchema,
  attestationVerifyResponseSchema,
  jwksResponseSchema,
} from './attestation.js';
import { globalMetricsResponseSchema, orgMetricsResponseSchema } from './metrics.js';
import {
  auditLogEntrySchema,
  auditLogsQuerySchema,
  auditLogsResponseSchema,
  logsQuerySchema,
  logsResponseSchema,
} from './audit.js';
import {
  createKeyRequestSchema,
  createKeyResponseSchema,
  keyParamsSchema,
  listKeysResponseSchema,
  meResponseSchema,
  revokeKeyResponseSchema,
  sessionResponseSchema,
  signinRequestSchema,
  signupRequestSchema,
} from './auth.js';
import {
  auditVerificationSchema,
  complianceCsvQuerySchema,
  logParamsSchema,
  orgParamsSchema,
  rotateKeyRequestSchema,
  rotateKeyResponseSchema,
  soc2ReportSchema,
  threatSummarySchema,
} from './admin.js';
import {
  badgeAttestationParamsSchema,
  badgeCustomQuerySchema,
  badgeEngineParamsSchema,
  badgeStatusParamsSchema,
  badgeStatusQuerySchema,
  badgeVerifiedQuerySchema,
  svgSchema,
} from './badges.js';
import { secretScanningRequestSchema, secretScanningResponseSchema } from './webhooks.js';
import { interceptRequestSchema, interceptResponseSchema, traceResponseSchema } from './a2a.js';
import { route, type Method } from './routes.js';

/**
 * Credentials: `apiKey` = X-API-Key, `bearer` = Authorization: Bearer <JWT>, `agentToken` =
 * X-Agent-Token, `webhookSignature` = the scanner partner's ECDSA signature headers,
 * `a2aKey` = the gateway's per-agent X-API-Key. Several entries: any one of them.
 */
export type Credential = 'apiKey' | 'bearer' | 'agentToken' | 'webhookSignature' | 'a2aKey';

export interface EndpointResponse {
  description: string;
  /** Absent: no body is described. */
  schema?: z.ZodType;
  /** Default application/json. */
  contentType?: string;
}

export interface Endpoint {
  /** The endpoint's id, its method and its path (OpenAPI form: `{param}`): its row of contract/routes.ts (`route(id)`). */
  id: string;
  method: Method;
  path: string;
  summary: string;
  tag: string;
  security: readonly Credential[];
  body?: { schema: z.ZodType; contentType: 'application/json' | 'multipart/form-data' };
  params?: z.ZodObject;
  query?: z.ZodObject;
  headers?: z.ZodObject;
  responses: Readonly<Record<number, EndpointResponse>>;
}

// Generic in the schema, so a row keeps its schema's type (api/bind-endpoints.ts types each handler's input by it).
const json = <S extends z.ZodType>(schema: S) => ({ schema, contentType: 'application/json' as const });
const multipart = <S extends z.ZodType>(schema: S) => ({ schema, contentType: 'multipart/form-data' as const });
const ok = (description: string, schema?: z.ZodType, contentType?: string): EndpointResponse => ({
  description,
  schema,
  contentType,
});
const err = (description: string): EndpointResponse => ({ description, schema: errorBodySchema });

const E400 = err('Invalid request: `detail` names the field.');
const E401 = err('Missing, invalid or revoked credential.');
const E403 = err('Scope, role, tenant or security policy refused the request.');
const E404 = err('Not found (or in another organization).');
const E408 = err('Request body not received in time.');
const E413 = err('Request body exceeds the limit for this endpoint.');
const E415 = err('Unsupported Content-Type.');
const E429 = ok('Plan rate limit exceeded (SVC-005).', rateLimitErrorSchema);
const E503 = err('Busy, timed out or a backend unavailable: retry after backoff.');

/** The errors every JSON verification route can give after its own. */
const verifyErrors = { 400: E400, 401: E401, 403: E403, 408: E408, 413: E413, 429: E429, 503: E503 } as const;
const jwtErrors = { 401: E401, 429: E429, 503: E503 } as const;
const adminErrors = { 401: E401, 403: E403, 429: E429, 503: E503 } as const;

const agentParams = z.object({ id: z.string().meta({ example: '1' }) });
const agentToolParams = agentParams.extend({ tool: z.string().meta({ example: 'read_file' }) });
const agentApprovalParams = agentParams.extend({ approval_id: z.string().meta({ example: 'apr_1' }) });
const agentActionParams = agentParams.extend({
  action_id: z.string().meta({ example: 'acn_0123456789abcdef0123456789abcdef' }),
});
const approvalConflictSchema = z.object({
  detail: z.string(),
  state: z.string(),
  code: z.string(),
  request_id: z.string(),
});
const agentViewSchema = z.record(z.string(), z.unknown()).meta({ id: 'Agent' });
const csv = 'text/csv';

/**
 * The contract's rows, one per endpoint, in the order the API registers them. `as const
 * satisfies`: each row keeps its literal id and its schemas' types, so the API's handler map
 * (api/bind-endpoints.ts) must have exactly one handler per id and types its input by the row.
 */
export const ENDPOINT_ROWS = [
  // ---- health ----
  {
    ...route('health'),
    summary: 'Service health',
    tag: 'health',
    security: [],
    responses: { 200: ok('Healthy.', healthResponseSchema) },
  },
  {
    ...route('healthIdentity'),
    summary: 'Server identity handshake (HMACs of a nonce)',
    tag: 'health',
    security: [],
    query: identityQuerySchema,
    responses: {
      200: ok('HMACs of the nonce.', identityResponseSchema),
      400: E400,
      503: err('server secrets not configured'),
    },
  },
  // ---- verification ----
  {
    ...route('verifyNaturalLanguage'),
    summary: 'Natural-language math (LLM translation, never VERIFIED)',
    tag: 'verify',
    security: ['apiKey'],
    body: json(naturalLanguageRequestSchema),
    responses: { 200: ok('Enforced result.', naturalLanguageResponseSchema), ...verifyErrors },
  },
  {
    ...route('verifyMath'),
    summary: 'Math expression or equation',
    tag: 'verify',
    security: ['apiKey'],
    body: json(mathRequestSchema),
    responses: { 200: ok('Engine result.', mathResponseSchema), ...verifyErrors },
  },
  {
    ...route('verifyLogic'),
    summary: 'Logic constraints (DSL or natural language) solved by Z3',
    tag: 'verify',
    security: ['apiKey'],
    body: json(logicRequestSchema),
    responses: {
      200: ok('SAT, UNSAT or ERROR.', logicResponseSchema),
      ...verifyErrors,
      403: ok('BLOCKED by policy, or key scope refused.', logicResponseSchema.or(errorBodySchema)),
    },
  },
  {
    ...route('verifyCode'),
    summary: 'Source-code security scan',
    tag: 'verify',
    security: ['apiKey'],
    body: json(codeRequestSchema),
    responses: { 200: ok('DiagnosticResult with admission.', codeResponseSchema), ...verifyErrors },
  },
  {
    ...route('verifySql'),
    summary: 'SQL query against a schema',
    tag: 'verify',
    security: ['apiKey'],
    body: json(sqlRequestSchema),
    responses: { 200: ok('DiagnosticResult with admission.', sqlResponseSchema), ...verifyErrors },
  },
  {
    ...route('verifyFact'),
    summary: 'Factual claim against a context text',
    tag: 'verify',
    security: ['apiKey'],
    body: json(factRequestSchema),
    responses: { 200: ok('Verdict.', factResponseSchema), ...verifyErrors },
  },
  {
    ...route('verifyConsensus'),
    summary: 'Multi-engine consensus',
    tag: 'verify',
    security: ['apiKey'],
    body: json(consensusRequestSchema),
    responses: {
      200: ok('Consensus.', consensusResponseSchema),
      ...verifyErrors,
      422: ok('Confidence below min_confidence (body carries the consensus and `detail`).', consensusResponseSchema),
    },
  },
  {
    ...route('verifyImage'),
    summary: 'Image claim (multipart)',
    tag: 'verify',
    security: ['apiKey'],
    body: multipart(imageMultipartSchema),
    responses: { 200: ok('Verdict.', imageResponseSchema), ...verifyErrors, 415: E415 },
  },
  {
    ...route('verifyStats'),
    summary: 'Statistical claim against CSV data (multipart)',
    tag: 'verify',
    security: ['apiKey'],
    body: multipart(statsMultipartSchema),
    responses: {
      200: ok('DiagnosticResult (UNVERIFIABLE on success).', statsResponseSchema),
      ...verifyErrors,
      403: ok(
        'Security-policy block (DiagnosticResult) or key scope refused.',
        diagnosticResultSchema.or(errorBodySchema),
      ),
      415: E415,
    },
  },
  {
    ...route('verifyProcess'),
    summary: 'Reasoning trace (IRAC or milestones)',
    tag: 'verify',
    security: ['apiKey'],
    body: json(processRequestSchema),
    responses: { 200: ok('Result.', processResponseSchema), ...verifyErrors },
  },
  {
    ...route('verifyRag'),
    summary: 'RAG chunk provenance',
    tag: 'verify',
    security: ['apiKey'],
    body: json(ragRequestSchema),
    responses: { 200: ok('Result.', ragResponseSchema), ...verifyErrors },
  },
  {
    ...route('verifyBatch'),
    summary: 'Submit a batch of verifications',
    tag: 'verify',
    security: ['apiKey'],
    body: json(batchRequestSchema),
    responses: {
      200: ok('Finished job.', batchJobSchema),
      202: ok('Running job (poll GET /verify/batch/{job_id}).', batchJobSchema),
      ...verifyErrors,
    },
  },
  {
    ...route('getBatch'),
    summary: 'Batch job status and results',
    tag: 'verify',
    security: ['apiKey'],
    params: batchJobParamsSchema,
    responses: { 200: ok('Job.', batchJobSchema), 401: E401, 403: E403, 404: E404, 429: E429, 503: E503 },
  },
  // ---- verification context ----
  {
    ...route('vcFromDiagnostic'),
    summary: 'Convert a DiagnosticResult to a Verification Context document',
    tag: 'verification-context',
    security: ['apiKey'],
    body: json(fromDiagnosticRequestSchema),
    responses: {
      200: ok(
        'Document (X-Trust-Gate names the gate; X-Issued-Here and X-Issued-Here-Reason say whether this service vouches for it).',
        verificationContextDocumentSchema,
      ),
      ...verifyErrors,
      400: ok('Invalid request.', verificationContextErrorSchema),
    },
  },
  {
    ...route('vcValidate'),
    summary: 'Validate a document against the v1.0 schema',
    tag: 'verification-context',
    security: ['apiKey'],
    body: json(documentRequestSchema),
    responses: {
      200: ok('valid true/false.', validateResponseSchema),
      ...verifyErrors,
      400: ok('Malformed JSON.', verificationContextErrorSchema),
    },
  },
  {
    ...route('vcResolve'),
    summary: 'Re-derive and compare the proof_ref commitment',
    tag: 'verification-context',
    security: ['apiKey'],
    body: json(documentRequestSchema),
    responses: {
      200: ok(
        'resolved (self-consistent) and issued_here (issued by this service: gate on it).',
        resolveResponseSchema,
      ),
      ...verifyErrors,
      400: ok('Malformed JSON.', verificationContextErrorSchema),
    },
  },
  // ---- agents ----
  {
    ...route('registerAgent'),
    summary: 'Register an agent (one-time agent token)',
    tag: 'agents',
    security: ['apiKey'],
    body: json(registerAgentRequestSchema),
    responses: { 200: ok('Registered.', registerAgentResponseSchema), ...verifyErrors },
  },
  {
    ...route('revokeAgent'),
    summary: 'Revoke an agent',
    tag: 'agents',
    security: ['apiKey'],
    params: agentParams,
    responses: { 200: ok('The agent.', agentViewSchema), 401: E401, 403: E403, 404: E404, 503: E503 },
  },
  {
    ...route('agentVerify'),
    summary: 'Verify an agent action',
    tag: 'agents',
    security: ['agentToken'],
    params: agentParams,
    body: json(agentVerifyRequestSchema),
    responses: {
      200: ok('Verified action.', agentVerifyResponseSchema),
      ...verifyErrors,
      400: ok('Invalid request; SVC-AGENT-CTX-001 when context is missing.', contextErrorSchema.or(errorBodySchema)),
      403: ok('Blocked (exfiltration, poisoned tool definition).', agentBlockedResponseSchema.or(errorBodySchema)),
      404: E404,
      409: ok('Pinned tool definition changed.', toolChangedResponseSchema),
    },
  },
  {
    ...route('agentTool'),
    summary: 'Evaluate a tool call before execution',
    tag: 'agents',
    security: ['agentToken'],
    params: agentToolParams,
    body: json(agentToolRequestSchema),
    responses: {
      200: ok('Decision (an allowed call carries its action_id).', toolDecisionResponseSchema),
      202: ok(
        'The policy marks the tool as needing approval: pending_approval with its approval_id (docs/approvals.md).',
        pendingApprovalResponseSchema,
      ),
      ...verifyErrors,
      404: E404,
    },
  },
  {
    ...route('agentActivity'),
    summary: "The agent's audit log",
    tag: 'agents',
    security: ['agentToken'],
    params: agentParams,
    query: activityQuerySchema,
    responses: {
      200: ok('Activity page.', activityResponseSchema),
      400: E400,
      401: E401,
      403: E403,
      404: E404,
      429: E429,
      503: E503,
    },
  },
  {
    ...route('agentBudget'),
    summary: "The agent's remaining budget",
    tag: 'agents',
    security: ['agentToken'],
    params: agentParams,
    responses: { 200: ok('Budget.', budgetResponseSchema), 401: E401, 403: E403, 404: E404, 429: E429, 503: E503 },
  },
  {
    ...route('approveToolDefinition'),
    summary: 'Approve a changed tool definition',
    tag: 'agents',
    security: ['apiKey'],
    params: agentToolParams,
    body: json(approveToolRequestSchema),
    responses: {
      200: ok('Approved.', approveToolResponseSchema),
      ...adminErrors,
      400: E400,
      404: E404,
      409: err('Definition never presented.'),
    },
  },
  // ---- approvals of tool calls and action outcomes (docs/approvals.md) ----
  {
    ...route('listAgentApprovals'),
    summary: "The agent's approvals, newest first (owners and admins)",
    tag: 'agents',
    security: ['apiKey'],
    params: agentParams,
    query: approvalListQuerySchema,
    responses: {
      200: ok('A page of approvals.', approvalListResponseSchema),
      400: E400,
      401: E401,
      403: E403,
      404: E404,
      429: E429,
      503: E503,
    },
  },
  {
    ...route('getAgentApproval'),
    summary: 'One approval; ?wait=<seconds> long-polls until it is decided',
    tag: 'agents',
    security: ['agentToken', 'apiKey'],
    params: agentApprovalParams,
    query: approvalWaitQuerySchema,
    responses: {
      200: ok('The approval (still pending when the wait ended first).', approvalSchema),
      400: E400,
      401: E401,
      403: E403,
      404: E404,
      429: E429,
      503: E503,
    },
  },
  {
    ...route('decideAgentApproval'),
    summary: 'Approve or deny a pending tool call, once (owners and admins)',
    tag: 'agents',
    security: ['apiKey'],
    params: agentApprovalParams,
    body: json(decideApprovalRequestSchema),
    responses: {
      200: ok('Decided: the approval as settled (attestation, audit entry).', approvalSchema),
      202: ok('Decision recorded; the workflow applies it when a worker runs (still pending).', approvalSchema),
      400: E400,
      401: E401,
      403: E403,
      404: E404,
      409: ok('Already decided (or expired).', approvalConflictSchema),
      422: err('Invalid decision or reason: `detail` names the field.'),
      429: E429,
      503: E503,
    },
  },
  {
    ...route('reportActionOutcome'),
    summary: "Report an admitted or approved action's outcome, once",
    tag: 'agents',
    security: ['agentToken'],
    params: agentActionParams,
    body: json(reportOutcomeRequestSchema),
    responses: {
      200: ok('The action with its outcome.', actionSchema),
      400: E400,
      401: E401,
      404: E404,
      409: ok(
        'Outcome already reported, or the action was not admitted or approved.',
        approvalConflictSchema.or(errorBodySchema),
      ),
      422: err('Invalid status or detail: `detail` names the field.'),
      429: E429,
      503: E503,
    },
  },
  // ---- attestations ----
  {
    ...route('jwks'),
    summary: 'Attestation public keys',
    tag: 'attestations',
    security: [],
    responses: { 200: ok('JWKS.', jwksResponseSchema) },
  },
  {
    ...route('getAttestation'),
    summary: 'An issued attestation',
    tag: 'attestations',
    security: ['apiKey'],
    params: attestationParamsSchema,
    responses: {
      200: ok('Attestation, re-verified now.', attestationResponseSchema),
      401: E401,
      403: E403,
      404: E404,
      429: E429,
      503: E503,
    },
  },
  {
    ...route('verifyAttestation'),
    summary: 'Verify an attestation token',
    tag: 'attestations',
    security: ['apiKey'],
    body: json(attestationVerifyRequestSchema),
    responses: { 200: ok('valid true/false.', attestationVerifyResponseSchema), ...verifyErrors },
  },
  // ---- observability ----
  {
    ...route('metrics'),
    summary: 'Global metrics (platform operators)',
    tag: 'observability',
    security: ['apiKey', 'bearer'],
    responses: { 200: ok('Metrics.', globalMetricsResponseSchema), ...adminErrors },
  },
  {
    ...route('metricsPrometheus'),
    summary: 'Prometheus text (platform operators)',
    tag: 'observability',
    security: ['apiKey', 'bearer'],
    responses: { 200: ok('Prometheus exposition format.', z.string(), 'text/plain'), ...adminErrors },
  },
  {
    ...route('orgMetrics'),
    summary: "One organization's metrics (own only)",
    tag: 'observability',
    security: ['apiKey', 'bearer'],
    params: orgParamsSchema,
    responses: { 200: ok('Metrics.', orgMetricsResponseSchema), ...adminErrors },
  },
  {
    ...route('logs'),
    summary: "The tenant's verification log",
    tag: 'observability',
    security: ['apiKey', 'bearer'],
    query: logsQuerySchema,
    responses: { 200: ok('Page, most recent first.', logsResponseSchema), 400: E400, ...adminErrors },
  },
  // ---- auth ----
  {
    ...route('signup'),
    summary: 'Create an organization and its owner',
    tag: 'auth',
    security: [],
    body: json(signupRequestSchema),
    responses: {
      200: ok('Session.', sessionResponseSchema),
      400: E400,
      408: E408,
      409: err('E-mail already registered.'),
      413: E413,
      429: err('Too many authentication attempts.'),
      503: E503,
    },
  },
  {
    ...route('signin'),
    summary: 'Sign in',
    tag: 'auth',
    security: [],
    body: json(signinRequestSchema),
    responses: {
      200: ok('Session.', sessionResponseSchema),
      400: E400,
      401: E401,
      408: E408,
      413: E413,
      429: err('Too many authentication attempts.'),
      503: E503,
    },
  },
  {
    ...route('me'),
    summary: 'The current user',
    tag: 'auth',
    security: ['bearer'],
    responses: { 200: ok('User.', meResponseSchema), ...jwtErrors },
  },
  {
    ...route('createApiKey'),
    summary: 'Create an API key (secret returned once)',
    tag: 'auth',
    security: ['bearer'],
    body: json(createKeyRequestSchema),
    responses: {
      200: ok('Created key.', createKeyResponseSchema),
      400: E400,
      403: E403,
      408: E408,
      413: E413,
      ...jwtErrors,
    },
  },
  {
    ...route('listApiKeys'),
    summary: "The organization's active keys",
    tag: 'auth',
    security: ['bearer'],
    responses: { 200: ok('Keys.', listKeysResponseSchema), ...jwtErrors },
  },
  {
    ...route('revokeApiKey'),
    summary: 'Revoke an API key',
    tag: 'auth',
    security: ['bearer'],
    params: keyParamsSchema,
    responses: { 200: ok('Revoked.', revokeKeyResponseSchema), 404: E404, ...jwtErrors },
  },
  // ---- audit ----
  {
    ...route('auditLogs'),
    summary: 'Audit entries',
    tag: 'audit',
    security: ['bearer'],
    query: auditLogsQuerySchema,
    responses: { 200: ok('Entries.', auditLogsResponseSchema), 400: E400, ...jwtErrors },
  },
  {
    ...route('auditLog'),
    summary: 'One audit entry',
    tag: 'audit',
    security: ['bearer'],
    params: logParamsSchema,
    responses: { 200: ok('Entry.', auditLogEntrySchema), 404: E404, ...jwtErrors },
  },
  {
    ...route('auditExport'),
    summary: 'Audit CSV (up to 1,000 entries)',
    tag: 'audit',
    security: ['bearer'],
    responses: { 200: ok('CSV.', z.string(), csv), ...jwtErrors },
  },
  // ---- admin ----
  {
    ...route('complianceCsv'),
    summary: 'Audit trail as CSV',
    tag: 'admin',
    security: ['apiKey'],
    query: complianceCsvQuerySchema,
    responses: { 200: ok('CSV.', z.string(), csv), ...adminErrors },
  },
  {
    ...route('complianceVerify'),
    summary: 'Verify one audit entry',
    tag: 'admin',
    security: ['apiKey'],
    params: logParamsSchema,
    responses: { 200: ok('Integrity checks.', auditVerificationSchema), 404: E404, ...adminErrors },
  },
  {
    ...route('soc2Report'),
    summary: 'SOC 2 report (own organization)',
    tag: 'admin',
    security: ['apiKey'],
    params: orgParamsSchema,
    responses: { 200: ok('Report.', soc2ReportSchema), ...adminErrors },
  },
  {
    ...route('threatSummary'),
    summary: 'Threat summary (own organization)',
    tag: 'admin',
    security: ['apiKey'],
    params: orgParamsSchema,
    responses: { 200: ok('Summary.', threatSummarySchema), ...adminErrors },
  },
  {
    ...route('rotateApiKey'),
    summary: 'Rotate an API key (new secret returned once)',
    tag: 'admin',
    security: ['apiKey'],
    body: json(rotateKeyRequestSchema),
    responses: {
      200: ok('Rotated.', rotateKeyResponseSchema),
      400: E400,
      404: E404,
      408: E408,
      409: err('Rotation already in progress.'),
      413: E413,
      ...adminErrors,
    },
  },
  // ---- badges ----
  {
    ...route('badgeVerified'),
    summary: 'Verified/failed badge',
    tag: 'badges',
    security: [],
    query: badgeVerifiedQuerySchema,
    responses: { 200: ok('SVG.', svgSchema, 'image/svg+xml') },
  },
  {
    ...route('badgeStatus'),
    summary: 'Status badge',
    tag: 'badges',
    security: [],
    params: badgeStatusParamsSchema,
    query: badgeStatusQuerySchema,
    responses: { 200: ok('SVG.', svgSchema, 'image/svg+xml') },
  },
  {
    ...route('badgeAttestation'),
    summary: 'Attestation badge',
    tag: 'badges',
    security: [],
    params: badgeAttestationParamsSchema,
    responses: {
      200: ok('SVG.', svgSchema, 'image/svg+xml'),
      503: ok('Store unavailable (still an SVG, never verified).', svgSchema, 'image/svg+xml'),
    },
  },
  {
    ...route('badgeEngine'),
    summary: 'Engine badge',
    tag: 'badges',
    security: [],
    params: badgeEngineParamsSchema,
    responses: { 200: ok('SVG.', svgSchema, 'image/svg+xml') },
  },
  {
    ...route('badgeCustom'),
    summary: 'Custom badge',
    tag: 'badges',
    security: [],
    query: badgeCustomQuerySchema,
    responses: { 200: ok('SVG.', svgSchema, 'image/svg+xml') },
  },
  // ---- webhooks ----
  {
    ...route('secretScanning'),
    summary: 'Signed leaked-key reports',
    tag: 'webhooks',
    security: ['webhookSignature'],
    body: json(secretScanningRequestSchema),
    responses: {
      200: ok('Verified receipt; revocation runs in the background.', secretScanningResponseSchema),
      400: E400,
      401: err('invalid webhook signature'),
      408: E408,
      413: E413,
      415: E415,
      503: E503,
    },
  },
  // ---- agent-to-agent gateway ----
  {
    ...route('a2aIntercept'),
    summary: 'Intercept an agent-to-agent message',
    tag: 'a2a',
    security: ['a2aKey'],
    body: json(interceptRequestSchema),
    responses: {
      200: ok('Signed verdict.', interceptResponseSchema),
      400: E400,
      401: E401,
      408: E408,
      413: E413,
      415: E415,
      429: E429,
      503: E503,
    },
  },
  {
    ...route('a2aTrace'),
    summary: "One of the calling agent's verdicts",
    tag: 'a2a',
    security: ['a2aKey'],
    params: z.object({ trace: z.string().meta({ example: 'a2a_' + '0'.repeat(32) }) }),
    responses: { 200: ok('Trace.', traceResponseSchema), 401: E401, 404: E404, 503: E503 },
  },
] as const satisfies readonly Endpoint[];

/** The same rows read as plain `Endpoint`s: what the OpenAPI document, the MCP tools and the tests walk. */
export const ENDPOINTS: readonly Endpoint[] = ENDPOINT_ROWS;

export { emptyRequestSchema };
