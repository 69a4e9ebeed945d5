// Where every endpoint of the contract lives: id → method and path, one row per endpoint. The
// contract table (contract/endpoints.ts) takes each row's method and path from here by id, the
// API binds its handlers by these ids (api/bind-endpoints.ts) and the typed client builds its
// URLs from them (`pathOf`). Plain data with no imports, so the client and its CLI load no zod.
//
// `invalidStatus`: the status of a body that fails the row's request schema, when it is not the
// binder's 400. The approval routes answer 422 there by design (docs/approvals.md): the body is
// well-formed JSON whose decision or outcome is not one the route can apply.

export type Method = 'get' | 'post' | 'delete';
/** What a body that fails its row's schema gets: 400 (the default) or 422. */
export type InvalidStatus = 400 | 422;

export const ROUTES = {
  health: { method: 'get', path: '/health' },
  healthIdentity: { method: 'get', path: '/health/identity' },
  verifyNaturalLanguage: { method: 'post', path: '/verify/natural_language' },
  verifyMath: { method: 'post', path: '/verify/math' },
  verifyLogic: { method: 'post', path: '/verify/logic' },
  verifyCode: { method: 'post', path: '/verify/code' },
  verifySql: { method: 'post', path: '/verify/sql' },
  verifyFact: { method: 'post', path: '/verify/fact' },
  verifyConsensus: { method: 'post', path: '/verify/consensus' },
  verifyImage: { method: 'post', path: '/verify/image' },
  verifyStats: { method: 'post', path: '/verify/stats' },
  verifyProcess: { method: 'post', path: '/verify/process' },
  verifyRag: { method: 'post', path: '/verify/rag' },
  verifyBatch: { method: 'post', path: '/verify/batch' },
  getBatch: { method: 'get', path: '/verify/batch/{job_id}' },
  vcFromDiagnostic: { method: 'post', path: '/verification-context/from-diagnostic' },
  vcValidate: { method: 'post', path: '/verification-context/validate' },
  vcResolve: { method: 'post', path: '/verification-context/resolve' },
  registerAgent: { method: 'post', path: '/agents/register' },
  revokeAgent: { method: 'delete', path: '/agents/{id}' },
  agentVerify: { method: 'post', path: '/agents/{id}/verify' },
  agentTool: { method: 'post', path: '/agents/{id}/tools/{tool}' },
  agentActivity: { method: 'get', path: '/agents/{id}/activity' },
  agentBudget: { method: 'get', path: '/agents/{id}/budget' },
  approveToolDefinition: { method: 'post', path: '/agents/{id}/tool-definitions/{tool}/approve' },
  listAgentApprovals: { method: 'get', path: '/agents/{id}/approvals' },
  getAgentApproval: { method: 'get', path: '/agents/{id}/approvals/{approval_id}' },
  decideAgentApproval: { method: 'post', path: '/agents/{id}/approvals/{approval_id}', invalidStatus: 422 },
  reportActionOutcome: { method: 'post', path: '/agents/{id}/actions/{action_id}/outcome', invalidStatus: 422 },
  jwks: { method: 'get', path: '/.well-known/jwks.json' },
  getAttestation: { method: 'get', path: '/attestation/{id}' },
  verifyAttestation: { method: 'post', path: '/attestation/verify' },
  metrics: { method: 'get', path: '/metrics' },
  metricsPrometheus: { method: 'get', path: '/metrics/prometheus' },
  orgMetrics: { method: 'get', path: '/metrics/{org_id}' },
  logs: { method: 'get', path: '/logs' },
  signup: { method: 'post', path: '/auth/signup' },
  signin: { method: 'post', path: '/auth/signin' },
  me: { method: 'get', path: '/auth/me' },
  createApiKey: { method: 'post', path: '/auth/api-keys' },
  listApiKeys: { method: 'get', path: '/auth/api-keys' },
  revokeApiKey: { method: 'delete', path: '/auth/api-keys/{key_id}' },
  auditLogs: { method: 'get', path: '/audit/logs' },
  auditLog: { method: 'get', path: '/audit/logs/{log_id}' },
  auditExport: { method: 'get', path: '/audit/export' },
  complianceCsv: { method: 'get', path: '/admin/compliance/export/csv' },
  complianceVerify: { method: 'get', path: '/admin/compliance/verify/{log_id}' },
  soc2Report: { method: 'get', path: '/admin/compliance/report/soc2/{org_id}' },
  threatSummary: { method: 'get', path: '/admin/security/threats/{org_id}' },
  rotateApiKey: { method: 'post', path: '/admin/keys/rotate' },
  badgeVerified: { method: 'get', path: '/badge/verified' },
  badgeStatus: { method: 'get', path: '/badge/status/{status}' },
  badgeAttestation: { method: 'get', path: '/badge/attestation/{id}' },
  badgeEngine: { method: 'get', path: '/badge/engine/{engine}' },
  badgeCustom: { method: 'get', path: '/badge/custom' },
  secretScanning: { method: 'post', path: '/webhooks/secret-scanning' },
  a2aIntercept: { method: 'post', path: '/a2a/intercept' },
  a2aTrace: { method: 'get', path: '/a2a/trace/{trace}' },
} as const satisfies Record<string, { method: Method; path: string; invalidStatus?: InvalidStatus }>;

/** The id of an endpoint of the contract (a key of ROUTES). */
export type EndpointId = keyof typeof ROUTES;

/** The names of the `{param}` segments of a path: `'/agents/{id}/tools/{tool}'` → `'id' | 'tool'`. */
export type ParamNames<P extends string> = P extends `${string}{${infer N}}${infer Rest}`
  ? N | ParamNames<Rest>
  : never;

/** The path parameters of an endpoint, by name. */
export type PathParams<K extends EndpointId> = Record<ParamNames<(typeof ROUTES)[K]['path']>, string>;

/** The status of a body that fails endpoint K's request schema (its row's `invalidStatus`, else 400). */
export function invalidStatusOf(id: EndpointId): InvalidStatus {
  const row: { path: string; invalidStatus?: InvalidStatus } = ROUTES[id];
  return row.invalidStatus ?? 400;
}

/** A row's method and path with its id: how contract/endpoints.ts starts each row. */
export function route<K extends EndpointId>(id: K): { id: K } & (typeof ROUTES)[K] {
  return { id, ...ROUTES[id] };
}

/**
 * The path of an endpoint with its parameters filled in (each one URI-encoded as one segment),
 * as the typed client sends it: `pathOf('agentTool', { id: '1', tool: 'read_file' })`.
 */
export function pathOf<K extends EndpointId>(
  id: K,
  ...params: keyof PathParams<K> extends never ? [] : [PathParams<K>]
): string {
  const values = (params[0] ?? {}) as Record<string, string>;
  return ROUTES[id].path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`pathOf('${id}'): no value for {${name}}`);
    return encodeURIComponent(value);
  });
}
