// /auth/* (contract, "Auth endpoints") and the scope/role vocabularies ("Scopes", "User and
// organization"). Imports nothing but zod.
import { z } from 'zod';
import { nullMeansAbsent } from './common.js';

export const SCOPES = ['verify:read', 'agent:write', 'attestation:read', 'admin:all'] as const;
export type Scope = (typeof SCOPES)[number];
export const ROLES = ['owner', 'admin', 'member'] as const;
export type Role = (typeof ROLES)[number];

export const SIGNIN_FAILED = 'Incorrect email or password.';
export const API_KEY_NOT_FOUND = 'API key not found.';

const email = z.string().trim().max(254).email('must be a valid e-mail address');

export const signupRequestSchema = z
  .object({
    email,
    password: z.string().max(256),
    organization_name: z.string().trim().min(1, 'must not be empty').max(200),
  })
  .meta({
    example: { email: 'dev@example.com', password: 'correct horse battery staple', organization_name: 'Example Ltd' },
  });
export type SignupRequest = z.infer<typeof signupRequestSchema>;

export const signinRequestSchema = z
  .object({ email: z.string().max(254), password: z.string().max(256) })
  .meta({ example: { email: 'dev@example.com', password: 'correct horse battery staple' } });
export type SigninRequest = z.infer<typeof signinRequestSchema>;

export const userSchema = z
  .object({ id: z.string(), email: z.string(), org_id: z.string(), role: z.enum(ROLES) })
  .meta({ id: 'User' });

export const sessionResponseSchema = z
  .object({ access_token: z.string(), token_type: z.literal('bearer'), user: userSchema })
  .meta({
    id: 'Session',
    example: {
      access_token: 'eyJ...',
      token_type: 'bearer',
      user: { id: 'usr_1', email: 'dev@example.com', org_id: 'org_1', role: 'owner' },
    },
  });
export type SessionResponse = z.infer<typeof sessionResponseSchema>;

export const meResponseSchema = userSchema
  .extend({ organization: z.object({ id: z.string(), name: z.string(), plan: z.string() }) })
  .meta({ id: 'Me' });
export type MeResponse = z.infer<typeof meResponseSchema>;

export const createKeyRequestSchema = nullMeansAbsent(
  z.object({
    name: z.string().trim().min(1, 'must not be empty').max(100),
    scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length).optional(),
    expires_in_days: z.number().int().min(1).max(3650).optional(),
  }),
).meta({ example: { name: 'ci', scopes: ['verify:read'] } });
export type CreateKeyRequest = z.infer<typeof createKeyRequestSchema>;

export const createKeyResponseSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    /** The secret: returned once only. */
    key: z.string(),
    created_at: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    expires_at: z.string().nullable(),
    preview: z.string(),
  })
  .meta({ id: 'CreatedApiKey' });
export type CreateKeyResponse = z.infer<typeof createKeyResponseSchema>;

export const apiKeyViewSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    preview: z.string(),
    scopes: z.array(z.enum(SCOPES)),
    created_at: z.string(),
    expires_at: z.string().nullable(),
    is_active: z.boolean(),
  })
  .meta({ id: 'ApiKey' });
export type ApiKeyView = z.infer<typeof apiKeyViewSchema>;

export const listKeysResponseSchema = z.array(apiKeyViewSchema);
export const keyParamsSchema = z.object({ key_id: z.string() });
export const revokeKeyResponseSchema = z
  .object({ id: z.string(), revoked: z.literal(true) })
  .meta({ id: 'RevokedApiKey' });
