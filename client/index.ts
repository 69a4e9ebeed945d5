// The typed client for every endpoint of the service (docs/cli.md). Request and response types
// come from contract/; the transport (client/http.ts) reads SVC_API_KEY / SVC_ACCESS_TOKEN /
// SVC_BASE_URL when nothing is passed (contract, Authentication 10), retries 429 and 503 within
// bounds honouring Retry-After, and throws every other non-2xx answer as an SvcApiError.
// Verdicts are data: BLOCKED or UNVERIFIABLE is returned, never thrown, and never a pass.
import { Transport, type ClientOptions, type Auth } from './http.js';
import * as v from './verify.js';
import * as acc from './accounts.js';
import * as ag from './agents.js';
import * as svc from './service.js';
import type { FilePart } from './types.js';

export { SvcApiError, SvcNetworkError, parseRetryAfter, DEFAULT_RETRY, RETRYABLE_STATUSES, Transport } from './http.js';
export type { ClientOptions, RetryPolicy, RequestSpec, Auth } from './http.js';
export type * from './verify.js';
export type * from './accounts.js';
export type * from './agents.js';
export type * from './service.js';
export type { FilePart, JsonObject } from './types.js';
export { outcomeOf, batchOutcome, type Outcome, type VerifyKind } from './outcome.js';
export { isTrustedContext } from './service.js';

export class SvcClient {
  readonly transport: Transport;

  constructor(opts: ClientOptions = {}) {
    this.transport = new Transport(opts);
  }

  /** A raw request (JSON body) with the client's credentials, retries and error mapping. */
  request<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    auth: Auth = 'key',
  ): Promise<T> {
    return this.transport.send<T>({ method, path, auth, json: body, headers });
  }

  // Health
  health() {
    return svc.health(this.transport);
  }
  healthIdentity(nonce: string) {
    return svc.healthIdentity(this.transport, nonce);
  }

  // Verification
  verifyMath(expression: string, extra: Omit<v.MathRequestBody, 'expression'> = {}) {
    return v.verifyMath(this.transport, { expression, ...extra });
  }
  verifyLogic(query: string, extra: { provider?: string } = {}) {
    return v.verifyLogic(this.transport, { query, ...extra });
  }
  verifyCode(code: string, language = 'python') {
    return v.verifyCode(this.transport, { code, language });
  }
  verifySql(query: string, schemaDdl: string, dialect = 'sqlite') {
    return v.verifySql(this.transport, { query, schema_ddl: schemaDdl, dialect });
  }
  verifyFact(claim: string, context: string, extra: { provider?: string } = {}) {
    return v.verifyFact(this.transport, { claim, context, ...extra });
  }
  verifyConsensus(query: string, extra: Omit<v.ConsensusRequestBody, 'query'> = {}) {
    return v.verifyConsensus(this.transport, { query, ...extra });
  }
  verifyNaturalLanguage(query: string, extra: { provider?: string } = {}) {
    return v.verifyNaturalLanguage(this.transport, { query, ...extra });
  }
  verifyImage(image: FilePart, claim: string, extra: { provider?: string } = {}) {
    return v.verifyImage(this.transport, image, { claim, ...extra });
  }
  verifyStats(csv: FilePart, query: string) {
    return v.verifyStats(this.transport, csv, query);
  }
  verifyProcess(body: v.ProcessRequestBody) {
    return v.verifyProcess(this.transport, body);
  }
  verifyRag(body: v.RagRequestBody) {
    return v.verifyRag(this.transport, body);
  }
  submitBatch(items: v.BatchItemInput[]) {
    return v.submitBatch(this.transport, items);
  }
  getBatch(jobId: string) {
    return v.getBatch(this.transport, jobId);
  }
  waitForBatch(job: v.BatchJob, opts?: Parameters<typeof v.waitForBatch>[2]) {
    return v.waitForBatch(this.transport, job, opts);
  }

  // Accounts
  signup(body: acc.SignupRequestBody) {
    return acc.signup(this.transport, body);
  }
  signin(body: acc.SigninRequestBody) {
    return acc.signin(this.transport, body);
  }
  me() {
    return acc.me(this.transport);
  }
  createKey(body: acc.CreateKeyRequestBody) {
    return acc.createKey(this.transport, body);
  }
  listKeys() {
    return acc.listKeys(this.transport);
  }
  revokeKey(keyId: string) {
    return acc.revokeKey(this.transport, keyId);
  }
  rotateKey(keyId: string) {
    return acc.rotateKey(this.transport, keyId);
  }
  auditLogs(query?: acc.AuditLogsQuery) {
    return acc.auditLogs(this.transport, query);
  }
  auditLog(logId: string) {
    return acc.auditLog(this.transport, logId);
  }
  auditExport() {
    return acc.auditExport(this.transport);
  }
  complianceCsv(query?: acc.ComplianceCsvQuery) {
    return acc.complianceCsv(this.transport, query);
  }
  complianceVerify(logId: string) {
    return acc.complianceVerify(this.transport, logId);
  }
  soc2Report(orgId: string) {
    return acc.soc2Report(this.transport, orgId);
  }
  threatSummary(orgId: string) {
    return acc.threatSummary(this.transport, orgId);
  }

  // Agents
  registerAgent(body: ag.RegisterAgentRequestBody) {
    return ag.registerAgent(this.transport, body);
  }
  deleteAgent(id: number | string) {
    return ag.deleteAgent(this.transport, id);
  }
  agentVerify(id: number | string, agentToken: string, body: ag.AgentVerifyRequestBody) {
    return ag.agentVerify(this.transport, id, agentToken, body);
  }
  agentTool(id: number | string, tool: string, agentToken: string, body: ag.AgentToolRequestBody) {
    return ag.agentTool(this.transport, id, tool, agentToken, body);
  }
  agentActivity(id: number | string, agentToken: string, query?: { limit?: number }) {
    return ag.agentActivity(this.transport, id, agentToken, query);
  }
  agentBudget(id: number | string, agentToken: string) {
    return ag.agentBudget(this.transport, id, agentToken);
  }
  approveToolDefinition(id: number | string, tool: string, body: ag.ApproveToolRequestBody) {
    return ag.approveToolDefinition(this.transport, id, tool, body);
  }

  // Attestations, Verification Context, observability, badges, gateway
  getAttestation(id: string) {
    return svc.getAttestation(this.transport, id);
  }
  verifyAttestation(body: svc.AttestationVerifyRequestBody) {
    return svc.verifyAttestation(this.transport, body);
  }
  jwks() {
    return svc.jwks(this.transport);
  }
  contextFromDiagnostic(body: Parameters<typeof svc.contextFromDiagnostic>[1]) {
    return svc.contextFromDiagnostic(this.transport, body);
  }
  validateContext(document: svc.DocumentRequestBody) {
    return svc.validateContext(this.transport, document);
  }
  resolveContext(document: svc.DocumentRequestBody) {
    return svc.resolveContext(this.transport, document);
  }
  /** True only when the document resolves and this service issued it: gate on this, not on `resolved`. */
  trustContext(document: svc.DocumentRequestBody) {
    return svc.trustContext(this.transport, document);
  }
  metrics() {
    return svc.metrics(this.transport);
  }
  orgMetrics(orgId: string) {
    return svc.orgMetrics(this.transport, orgId);
  }
  prometheusMetrics() {
    return svc.prometheusMetrics(this.transport);
  }
  logs(query?: svc.LogsQuery) {
    return svc.logs(this.transport, query);
  }
  badge(kind: Parameters<typeof svc.badge>[1], arg?: string, query?: Parameters<typeof svc.badge>[3]) {
    return svc.badge(this.transport, kind, arg, query);
  }
  a2aTrace(traceId: string) {
    return svc.a2aTrace(this.transport, traceId);
  }
  secretScanningReport(rawBody: string, signatureHeaders: Record<string, string>) {
    return svc.secretScanningReport(this.transport, rawBody, signatureHeaders);
  }
  a2aIntercept(body: Parameters<typeof svc.a2aIntercept>[1]) {
    return svc.a2aIntercept(this.transport, body);
  }
}
