// Health, attestations, Verification Context, observability, badges and the agent gateway.
import type { z } from 'zod';
import type { Transport } from './http.js';
import type { interceptRequestSchema, interceptResponseSchema, traceResponseSchema } from '../contract/a2a.js';
import type { healthResponseSchema, identityResponseSchema } from '../contract/health.js';
import type {
  attestationResponseSchema,
  attestationVerifyRequestSchema,
  attestationVerifyResponseSchema,
  jwksResponseSchema,
} from '../contract/attestation.js';
import type {
  fromDiagnosticRequestSchema,
  verificationContextDocumentSchema,
  documentRequestSchema,
  validateResponseSchema,
  resolveResponseSchema,
} from '../contract/verification-context.js';
import type { globalMetricsResponseSchema, orgMetricsResponseSchema } from '../contract/metrics.js';
import type { logsQuerySchema, logsResponseSchema } from '../contract/audit.js';
import type { badgeCustomQuerySchema } from '../contract/badges.js';
import type { secretScanningResponseSchema } from '../contract/webhooks.js';
import { pathOf } from '../contract/routes.js';

export type Health = z.infer<typeof healthResponseSchema>;
export type Identity = z.infer<typeof identityResponseSchema>;
export type Attestation = z.infer<typeof attestationResponseSchema>;
export type AttestationVerifyRequestBody = z.input<typeof attestationVerifyRequestSchema>;
export type AttestationVerification = z.infer<typeof attestationVerifyResponseSchema>;
export type Jwks = z.infer<typeof jwksResponseSchema>;
export type FromDiagnosticRequestBody = z.input<typeof fromDiagnosticRequestSchema>;
export type VerificationContextDocument = z.infer<typeof verificationContextDocumentSchema>;
export type DocumentRequestBody = z.input<typeof documentRequestSchema>;
export type ValidateResult = z.infer<typeof validateResponseSchema>;
export type ResolveResult = z.infer<typeof resolveResponseSchema>;
export type GlobalMetrics = z.infer<typeof globalMetricsResponseSchema>;
export type OrgMetrics = z.infer<typeof orgMetricsResponseSchema>;
export type LogsQuery = z.input<typeof logsQuerySchema>;
export type Logs = z.infer<typeof logsResponseSchema>;
export type BadgeCustomQuery = z.input<typeof badgeCustomQuerySchema>;
export type InterceptRequestBody = z.input<typeof interceptRequestSchema>;
export type InterceptResult = z.infer<typeof interceptResponseSchema>;
export type A2aTrace = z.infer<typeof traceResponseSchema>;
export type SecretScanningResult = z.infer<typeof secretScanningResponseSchema>;

export const health = (t: Transport) => t.send<Health>({ method: 'GET', path: pathOf('health'), auth: 'none' });
export const healthIdentity = (t: Transport, nonce: string) =>
  t.send<Identity>({ method: 'GET', path: pathOf('healthIdentity'), auth: 'none', query: { nonce } });

export const getAttestation = (t: Transport, id: string) =>
  t.send<Attestation>({ method: 'GET', path: pathOf('getAttestation', { id }), auth: 'key' });
export const verifyAttestation = (t: Transport, body: AttestationVerifyRequestBody) =>
  t.send<AttestationVerification>({ method: 'POST', path: pathOf('verifyAttestation'), auth: 'key', json: body });
export const jwks = (t: Transport) => t.send<Jwks>({ method: 'GET', path: pathOf('jwks'), auth: 'none' });

export const contextFromDiagnostic = (t: Transport, body: FromDiagnosticRequestBody) =>
  t.send<VerificationContextDocument>({
    method: 'POST',
    path: pathOf('vcFromDiagnostic'),
    auth: 'key',
    json: body,
  });
/** `valid: false` is an answer (HTTP 200), not an error: gate on `valid`. */
export const validateContext = (t: Transport, document: DocumentRequestBody) =>
  t.send<ValidateResult>({ method: 'POST', path: pathOf('vcValidate'), auth: 'key', json: document });
export const resolveContext = (t: Transport, document: DocumentRequestBody) =>
  t.send<ResolveResult>({ method: 'POST', path: pathOf('vcResolve'), auth: 'key', json: document });
/**
 * Whether a resolve answer vouches for the document: it resolves **and** this service issued it.
 * `resolved` alone is only self-consistency, which anyone can compute for a made-up or edited
 * document (docs/verification-context-http.md, "Issued here"); never gate on it alone.
 */
export const isTrustedContext = (r: ResolveResult): boolean => r.resolved === true && r.issued_here === true;
/** Resolves `document` and answers whether it can be trusted (`isTrustedContext`). */
export const trustContext = async (t: Transport, document: DocumentRequestBody): Promise<boolean> =>
  isTrustedContext(await resolveContext(t, document));

export const metrics = (t: Transport) =>
  t.send<GlobalMetrics>({ method: 'GET', path: pathOf('metrics'), auth: 'key-or-jwt' });
export const orgMetrics = (t: Transport, orgId: string) =>
  t.send<OrgMetrics>({ method: 'GET', path: pathOf('orgMetrics', { org_id: orgId }), auth: 'key-or-jwt' });
export const prometheusMetrics = (t: Transport) =>
  t.send<string>({ method: 'GET', path: pathOf('metricsPrometheus'), auth: 'key-or-jwt', as: 'text' });
export const logs = (t: Transport, query: LogsQuery = {}) =>
  t.send<Logs>({ method: 'GET', path: pathOf('logs'), auth: 'key-or-jwt', query });

/** The badge endpoint of each kind; `status`, `attestation` and `engine` take `arg` as their path parameter, the others none. */
function badgePath(kind: 'verified' | 'status' | 'attestation' | 'engine' | 'custom', arg?: string): string {
  if (kind === 'verified' || kind === 'custom') {
    if (arg !== undefined) throw new TypeError(`badge('${kind}') takes no path argument`);
    return pathOf(kind === 'verified' ? 'badgeVerified' : 'badgeCustom');
  }
  if (arg === undefined) throw new TypeError(`badge('${kind}') needs its path argument`);
  if (kind === 'status') return pathOf('badgeStatus', { status: arg });
  if (kind === 'engine') return pathOf('badgeEngine', { engine: arg });
  return pathOf('badgeAttestation', { id: arg });
}

/** Badges are SVG text. */
export const badge = (
  t: Transport,
  kind: 'verified' | 'status' | 'attestation' | 'engine' | 'custom',
  arg?: string,
  query: Record<string, unknown> & BadgeCustomQuery = {},
) =>
  t.send<string>({
    method: 'GET',
    path: badgePath(kind, arg),
    auth: 'none',
    query,
    as: 'text',
  });

/** Agent gateway: a verdict of any status is data (only `verified` is admissible). */
export const a2aIntercept = (t: Transport, body: z.input<typeof interceptRequestSchema>) =>
  t.send<InterceptResult>({ method: 'POST', path: pathOf('a2aIntercept'), auth: 'key', json: body });

export const a2aTrace = (t: Transport, traceId: string) =>
  t.send<A2aTrace>({ method: 'GET', path: pathOf('a2aTrace', { trace: traceId }), auth: 'key' });

/**
 * The leaked-key intake, as a scanner partner sends it: the raw body is sent byte for byte
 * (the signature covers it) with the partner's signature headers; no API key.
 */
export const secretScanningReport = (t: Transport, rawBody: string, signatureHeaders: Record<string, string>) =>
  t.send<SecretScanningResult>({
    method: 'POST',
    path: pathOf('secretScanning'),
    auth: 'none',
    rawBody,
    headers: { 'content-type': 'application/json', ...signatureHeaders },
  });
