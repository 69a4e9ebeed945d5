import { describe, expect, it } from 'vitest';
import {
  DEFAULT_API_KEY_SCOPES,
  ROLES,
  ROLE_RANK,
  SCOPES,
  canRotateKey,
  decideKeyRotation,
  hasScope,
  isRole,
  isScope,
  type KeyRotationDecision,
  type Scope,
} from '../../core/scopes.js';

describe('constants', () => {
  it('match the contract', () => {
    expect(SCOPES).toEqual(['verify:read', 'agent:write', 'attestation:read', 'admin:all']);
    expect(ROLES).toEqual(['owner', 'admin', 'member']);
    expect(ROLE_RANK).toEqual({ member: 1, admin: 2, owner: 3 });
    expect(DEFAULT_API_KEY_SCOPES).toEqual(['verify:read', 'agent:write', 'attestation:read']);
  });

  it.each<[unknown, boolean, boolean]>([
    ['verify:read', true, false],
    ['admin:all', true, false],
    ['owner', false, true],
    ['member', false, true],
    ['Owner', false, false],
    ['admin', false, true],
    ['VERIFY:READ', false, false],
    ['', false, false],
    [null, false, false],
    [3, false, false],
  ])('isScope(%j) = %s, isRole = %s', (v, scope, role) => {
    expect(isScope(v)).toBe(scope);
    expect(isRole(v)).toBe(role);
  });
});

describe('hasScope', () => {
  it.each<[string, unknown[] | null | undefined, Scope, boolean]>([
    ['exact scope', ['verify:read'], 'verify:read', true],
    ['other scope only', ['agent:write'], 'verify:read', false],
    ['one of several', ['agent:write', 'attestation:read'], 'attestation:read', true],
    ['admin:all grants verify:read', ['admin:all'], 'verify:read', true],
    ['admin:all grants agent:write', ['admin:all'], 'agent:write', true],
    ['admin:all grants attestation:read', ['admin:all'], 'attestation:read', true],
    ['admin:all grants admin:all', ['admin:all'], 'admin:all', true],
    ['verify:read does not grant admin:all', ['verify:read', 'agent:write', 'attestation:read'], 'admin:all', false],
    ['empty list', [], 'verify:read', false],
    ['null', null, 'verify:read', false],
    ['undefined', undefined, 'verify:read', false],
    ['case differs', ['VERIFY:READ'], 'verify:read', false],
    ['wildcard string is not a scope', ['*'], 'verify:read', false],
    ['prefix is not a scope', ['verify'], 'verify:read', false],
    ['non-string entries ignored', [1, null, {}], 'verify:read', false],
  ])('%s', (_name, keyScopes, required, expected) => {
    expect(hasScope(keyScopes, required)).toBe(expected);
  });
});

describe('key rotation matrix', () => {
  type Row = [caller: string, callerId: string, owner: string, ownerId: string, expected: KeyRotationDecision];
  const own = { allowed: true, reason: 'own_key' } as const;
  const other = { allowed: true, reason: 'other_user_key' } as const;
  const insufficient = { allowed: false, reason: 'insufficient_role' } as const;
  const outranked = { allowed: false, reason: 'owner_outranks_caller' } as const;

  const rows: Row[] = [
    // Own key: any allowed role.
    ['owner', 'u1', 'owner', 'u1', own],
    ['admin', 'u1', 'admin', 'u1', own],
    ['member', 'u1', 'member', 'u1', own],
    // Another user's key, owner caller: everyone (no higher role exists).
    ['owner', 'u1', 'owner', 'u2', other],
    ['owner', 'u1', 'admin', 'u2', other],
    ['owner', 'u1', 'member', 'u2', other],
    // Admin caller: same or lower only; never an owner's key.
    ['admin', 'u1', 'owner', 'u2', outranked],
    ['admin', 'u1', 'admin', 'u2', other],
    ['admin', 'u1', 'member', 'u2', other],
    // Member caller: never another user's key.
    ['member', 'u1', 'owner', 'u2', insufficient],
    ['member', 'u1', 'admin', 'u2', insufficient],
    ['member', 'u1', 'member', 'u2', insufficient],
  ];

  it.each(rows)('%s %s → key of %s %s', (callerRole, callerUserId, keyOwnerRole, keyOwnerUserId, expected) => {
    const req = { callerRole, callerUserId, keyOwnerRole, keyOwnerUserId };
    expect(decideKeyRotation(req)).toEqual(expected);
    expect(canRotateKey(req)).toBe(expected.allowed);
  });

  it.each<[string, Record<string, unknown>, KeyRotationDecision]>([
    [
      'unknown caller role',
      { callerRole: 'superuser', callerUserId: 'u1', keyOwnerRole: 'member', keyOwnerUserId: 'u1' },
      { allowed: false, reason: 'role_not_allowed' },
    ],
    [
      'missing caller role',
      { callerRole: undefined, callerUserId: 'u1', keyOwnerRole: 'member', keyOwnerUserId: 'u1' },
      { allowed: false, reason: 'role_not_allowed' },
    ],
    [
      'upper-case caller role',
      { callerRole: 'OWNER', callerUserId: 'u1', keyOwnerRole: 'member', keyOwnerUserId: 'u2' },
      { allowed: false, reason: 'role_not_allowed' },
    ],
    [
      'empty caller id',
      { callerRole: 'owner', callerUserId: '', keyOwnerRole: 'owner', keyOwnerUserId: '' },
      { allowed: false, reason: 'invalid_caller' },
    ],
    [
      'non-string caller id',
      { callerRole: 'owner', callerUserId: 7, keyOwnerRole: 'owner', keyOwnerUserId: 7 },
      { allowed: false, reason: 'invalid_caller' },
    ],
    [
      'unknown key-owner role, owner caller',
      { callerRole: 'owner', callerUserId: 'u1', keyOwnerRole: 'root', keyOwnerUserId: 'u2' },
      { allowed: false, reason: 'owner_outranks_caller' },
    ],
    [
      'missing key-owner role, admin caller',
      { callerRole: 'admin', callerUserId: 'u1', keyOwnerRole: null, keyOwnerUserId: 'u2' },
      { allowed: false, reason: 'owner_outranks_caller' },
    ],
    [
      'ids differ only by case',
      { callerRole: 'member', callerUserId: 'u1', keyOwnerRole: 'member', keyOwnerUserId: 'U1' },
      { allowed: false, reason: 'insufficient_role' },
    ],
    [
      'own key with a stale owner role still counts as own',
      { callerRole: 'member', callerUserId: 'u1', keyOwnerRole: 'owner', keyOwnerUserId: 'u1' },
      { allowed: true, reason: 'own_key' },
    ],
  ])('fails closed: %s', (_name, req, expected) => {
    expect(decideKeyRotation(req as never)).toEqual(expected);
    expect(canRotateKey(req as never)).toBe(expected.allowed);
  });
});
