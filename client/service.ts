// Health, attestations, Verification Context, observability, badges and the agent gateway.
import type { z } from 'zod';
import type { Transport } from './http.js';
import type { JsonObject } from './types.js';
import type { interceptRequestSchema, InterceptResponse } from '../contract/a2a.js';

export interface Health {
  status: string;
  service: string;
  version: string;
  timestamp: string;
}
export interface Identity {
  identity: { jwt_hmac: string; lookup_hmac: string };
}
const seg = encodeURIComponent;

export const health = (t: Transport) => t.send<Health>({ method: 'GET', path: '/health', auth: 'none' });
export const healthIdentity = (t: Transport, nonce: string) =>
  t.send<Identity>({ method: 'GET', path: '/health/identity', auth: 'none', query: { nonce } });

export const getAttestation = (t: Transport, id: string) => t.send<JsonObject>({ method: 'GET', path: `/attestation/${seg(id)}`, auth: 'key' });
export const verifyAttestation = (t: Transport, token: string) =>
  t.send<JsonObject>({ method: 'POST', path: '/attestation/verify', auth: 'key', json: { token } });
export const jwks = (t: Transport) => t.send<JsonObject>({ method: 'GET', path: '/.well-known/jwks.json', auth: 'none' });

export const contextFromDiagnostic = (
  t: Transport,
  body: { query: string; verifier: string; diagnostic: JsonObject; verifier_version?: string; attestation_token?: string },
) => t.send<JsonObject>({ method: 'POST', path: '/verification-context/from-diagnostic', auth: 'key', json: body });
/** `valid: false` is an answer (HTTP 200), not an error: gate on `valid`. */
export const validateContext = (t: Transport, document: JsonObject) =>
  t.send<JsonObject & { valid: boolean }>({ method: 'POST', path: '/verification-context/validate', auth: 'key', json: document });
export const resolveContext = (t: Transport, document: JsonObject) =>
  t.send<JsonObject & { resolved: boolean }>({ method: 'POST', path: '/verification-context/resolve', auth: 'key', json: document });

export const metrics = (t: Transport) => t.send<JsonObject>({ method: 'GET', path: '/metrics', auth: 'key-or-jwt' });
export const orgMetrics = (t: Transport, orgId: string) => t.send<JsonObject>({ method: 'GET', path: `/metrics/${seg(orgId)}`, auth: 'key-or-jwt' });
export const prometheusMetrics = (t: Transport) => t.send<string>({ method: 'GET', path: '/metrics/prometheus', auth: 'key-or-jwt', as: 'text' });
export const logs = (t: Transport, query: Record<string, string | number | undefined> = {}) =>
  t.send<JsonObject>({ method: 'GET', path: '/logs', auth: 'key-or-jwt', query });

/** Badges are SVG text. */
export const badge = (
  t: Transport,
  kind: 'verified' | 'status' | 'attestation' | 'engine' | 'custom',
  arg?: string,
  query: { label?: string; message?: string; color?: string; logo?: string } = {},
) => t.send<string>({ method: 'GET', path: arg === undefined ? `/badge/${kind}` : `/badge/${kind}/${seg(arg)}`, auth: 'none', query, as: 'text' });

/** Agent gateway: a verdict of any status is data (only `verified` is admissible). */
export const a2aIntercept = (t: Transport, body: z.input<typeof interceptRequestSchema>) =>
  t.send<InterceptResponse>({ method: 'POST', path: '/a2a/intercept', auth: 'key', json: body });
