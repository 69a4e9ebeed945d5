// Accounts: sign-up/in, the JWT-authenticated key endpoints, audit, and the role-checked admin
// endpoints (API key).
import type { z } from 'zod';
import type { Transport } from './http.js';
import type {
  signupRequestSchema,
  signinRequestSchema,
  sessionResponseSchema,
  meResponseSchema,
  createKeyRequestSchema,
  createKeyResponseSchema,
  listKeysResponseSchema,
  revokeKeyResponseSchema,
} from '../contract/auth.js';
import type { auditLogsQuerySchema, auditLogsResponseSchema, auditLogEntrySchema } from '../contract/audit.js';
import type {
  complianceCsvQuerySchema,
  rotateKeyResponseSchema,
  auditVerificationSchema,
  soc2ReportSchema,
  threatSummarySchema,
} from '../contract/admin.js';
import { pathOf } from '../contract/routes.js';

export type { Scope, Role } from '../contract/auth.js';
export type SignupRequestBody = z.input<typeof signupRequestSchema>;
export type SigninRequestBody = z.input<typeof signinRequestSchema>;
export type Session = z.infer<typeof sessionResponseSchema>;
export type Me = z.infer<typeof meResponseSchema>;
export type CreateKeyRequestBody = z.input<typeof createKeyRequestSchema>;
export type CreatedKey = z.infer<typeof createKeyResponseSchema>;
export type ApiKeyList = z.infer<typeof listKeysResponseSchema>;
export type ApiKeyView = ApiKeyList[number];
export type RevokedKey = z.infer<typeof revokeKeyResponseSchema>;
export type AuditLogsQuery = z.input<typeof auditLogsQuerySchema>;
export type AuditLogs = z.infer<typeof auditLogsResponseSchema>;
export type AuditLogEntry = z.infer<typeof auditLogEntrySchema>;
export type ComplianceCsvQuery = z.input<typeof complianceCsvQuerySchema>;
export type RotatedKey = z.infer<typeof rotateKeyResponseSchema>;
export type AuditVerification = z.infer<typeof auditVerificationSchema>;
export type Soc2Report = z.infer<typeof soc2ReportSchema>;
export type ThreatSummary = z.infer<typeof threatSummarySchema>;

type Query = Record<string, unknown>;
const jwtGet = <T>(t: Transport, path: string, query?: Query, as?: 'text') =>
  t.send<T>({ method: 'GET', path, auth: 'jwt', query, as });
const adminGet = <T>(t: Transport, path: string, query?: Query, as?: 'text') =>
  t.send<T>({ method: 'GET', path, auth: 'key', query, as });

export const signup = (t: Transport, body: SignupRequestBody) =>
  t.send<Session>({ method: 'POST', path: pathOf('signup'), auth: 'none', json: body });
export const signin = (t: Transport, body: SigninRequestBody) =>
  t.send<Session>({ method: 'POST', path: pathOf('signin'), auth: 'none', json: body });
export const me = (t: Transport) => jwtGet<Me>(t, pathOf('me'));

export const createKey = (t: Transport, body: CreateKeyRequestBody) =>
  t.send<CreatedKey>({ method: 'POST', path: pathOf('createApiKey'), auth: 'jwt', json: body });
export const listKeys = (t: Transport) => jwtGet<ApiKeyList>(t, pathOf('listApiKeys'));
export const revokeKey = (t: Transport, keyId: string) =>
  t.send<RevokedKey>({ method: 'DELETE', path: pathOf('revokeApiKey', { key_id: keyId }), auth: 'jwt' });

export const auditLogs = (t: Transport, query: AuditLogsQuery = {}) => jwtGet<AuditLogs>(t, pathOf('auditLogs'), query);
export const auditLog = (t: Transport, logId: string) =>
  jwtGet<AuditLogEntry>(t, pathOf('auditLog', { log_id: logId }));
export const auditExport = (t: Transport) => jwtGet<string>(t, pathOf('auditExport'), undefined, 'text');

export const rotateKey = (t: Transport, keyId: string) =>
  t.send<RotatedKey>({ method: 'POST', path: pathOf('rotateApiKey'), auth: 'key', json: { key_id: keyId } });
export const complianceCsv = (t: Transport, query: ComplianceCsvQuery = {}) =>
  adminGet<string>(t, pathOf('complianceCsv'), query, 'text');
export const complianceVerify = (t: Transport, logId: string) =>
  adminGet<AuditVerification>(t, pathOf('complianceVerify', { log_id: logId }));
export const soc2Report = (t: Transport, orgId: string) =>
  adminGet<Soc2Report>(t, pathOf('soc2Report', { org_id: orgId }));
export const threatSummary = (t: Transport, orgId: string) =>
  adminGet<ThreatSummary>(t, pathOf('threatSummary', { org_id: orgId }));
