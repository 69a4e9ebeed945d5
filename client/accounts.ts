// Accounts: sign-up/in, the JWT-authenticated key endpoints, audit, and the role-checked admin
// endpoints (API key).
import type { Transport } from './http.js';
import type { JsonObject } from './types.js';

export type Role = 'owner' | 'admin' | 'member';
export type Scope = 'verify:read' | 'agent:write' | 'attestation:read' | 'admin:all';
export interface User {
  id: string;
  email: string;
  org_id: string;
  role: Role;
}
export interface Session {
  access_token: string;
  token_type: 'bearer';
  user: User;
}
export interface CreateKeyRequestBody {
  name: string;
  scopes?: Scope[];
  expires_in_days?: number;
}
export interface CreatedKey {
  id: string;
  name: string;
  /** The raw key: returned once only. */
  key: string;
  created_at: string;
  scopes?: Scope[];
  expires_at?: string | null;
  preview?: string;
}
export interface ApiKeyView {
  id: string;
  name: string;
  created_at: string;
  scopes?: Scope[];
  preview?: string;
  [k: string]: unknown;
}

const jwtGet = <T>(t: Transport, path: string, query?: Record<string, string | number | undefined>, as?: 'text') =>
  t.send<T>({ method: 'GET', path, auth: 'jwt', query, as });
const adminGet = <T>(t: Transport, path: string, query?: Record<string, string | number | undefined>, as?: 'text') =>
  t.send<T>({ method: 'GET', path, auth: 'key', query, as });
const seg = encodeURIComponent;

export const signup = (t: Transport, body: { email: string; password: string; organization_name: string }) =>
  t.send<Session>({ method: 'POST', path: '/auth/signup', auth: 'none', json: body });
export const signin = (t: Transport, body: { email: string; password: string }) =>
  t.send<Session>({ method: 'POST', path: '/auth/signin', auth: 'none', json: body });
export const me = (t: Transport) => jwtGet<User & JsonObject>(t, '/auth/me');

export const createKey = (t: Transport, body: CreateKeyRequestBody) =>
  t.send<CreatedKey>({ method: 'POST', path: '/auth/api-keys', auth: 'jwt', json: body });
export const listKeys = (t: Transport) => jwtGet<ApiKeyView[]>(t, '/auth/api-keys');
export const revokeKey = (t: Transport, keyId: string) =>
  t.send<{ id: string; revoked: true }>({ method: 'DELETE', path: `/auth/api-keys/${seg(keyId)}`, auth: 'jwt' });

export const auditLogs = (t: Transport, query: { limit?: number; status?: 'verified' | 'blocked' } = {}) => jwtGet<JsonObject>(t, '/audit/logs', query);
export const auditLog = (t: Transport, logId: string) => jwtGet<JsonObject>(t, `/audit/logs/${seg(logId)}`);
export const auditExport = (t: Transport) => jwtGet<string>(t, '/audit/export', undefined, 'text');

export const rotateKey = (t: Transport, keyId: string) =>
  t.send<JsonObject & { new_key_secret: string }>({ method: 'POST', path: '/admin/keys/rotate', auth: 'key', json: { key_id: keyId } });
export const complianceCsv = (t: Transport, query: { org_id?: string } = {}) => adminGet<string>(t, '/admin/compliance/export/csv', query, 'text');
export const complianceVerify = (t: Transport, logId: string) => adminGet<JsonObject>(t, `/admin/compliance/verify/${seg(logId)}`);
export const soc2Report = (t: Transport, orgId: string) => adminGet<JsonObject>(t, `/admin/compliance/report/soc2/${seg(orgId)}`);
export const threatSummary = (t: Transport, orgId: string) => adminGet<JsonObject>(t, `/admin/security/threats/${seg(orgId)}`);
