// Organizations, users and API keys in the store. Every query that reads tenant data is
// scoped by organization id; keys are stored only as HMAC-SHA256 lookup digests.
import { createHash, randomBytes } from 'node:crypto';
import type { Collection } from 'mongodb';
import { Store } from './store.js';
import { generateApiKey, lookupDigest, maskApiKey, LIVE_PREFIX, inspectApiKey } from './api-keys.js';
import { DEFAULT_API_KEY_SCOPES, type Role, type Scope } from './scopes.js';

export type Plan = 'free' | 'pro' | 'enterprise';

export interface OrganizationDoc {
  _id: string;
  name: string;
  plan: Plan;
  active: boolean;
  created_at: Date;
}

export interface UserDoc {
  _id: string;
  email: string;
  email_lower: string;
  password_hash: string;
  org_id: string;
  role: Role;
  active: boolean;
  created_at: Date;
}

/** Current scheme: HMAC-SHA256 under SVC_API_KEY_LOOKUP_SECRET. Pre-7.2 records used a plain SHA-256. */
export type KeyHashScheme = 'hmac-sha256' | 'sha256-legacy';

export interface ApiKeyDoc {
  _id: string;
  org_id: string;
  user_id: string;
  name: string;
  hash_scheme: KeyHashScheme;
  lookup_digest: string;
  preview: string;
  key_version: 'v1' | 'v2';
  scopes: Scope[];
  active: boolean;
  revoked_at: Date | null;
  expires_at: Date | null;
  created_at: Date;
  last_used_at?: Date | null;
  rotated_from?: string | null;
}

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** The digest a pre-7.2 server stored (plain SHA-256): only used to recognise such records and answer "re-issue". */
export const legacyDigest = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

Store.registerIndexes(async (store) => {
  await store.collection('users').createIndex({ email_lower: 1 }, { unique: true });
  await store.collection('users').createIndex({ org_id: 1 });
  await store.collection('api_keys').createIndex({ lookup_digest: 1 }, { unique: true });
  await store.collection('api_keys').createIndex({ org_id: 1, active: 1 });
});

export class Accounts {
  constructor(
    readonly store: Store,
    private readonly lookupSecret: string,
  ) {}

  get orgs(): Collection<OrganizationDoc> {
    return this.store.collection<OrganizationDoc>('organizations');
  }

  get users(): Collection<UserDoc> {
    return this.store.collection<UserDoc>('users');
  }

  get keys(): Collection<ApiKeyDoc> {
    return this.store.collection<ApiKeyDoc>('api_keys');
  }

  digest(key: string): string {
    return lookupDigest(key, this.lookupSecret);
  }

  async createOrgWithOwner(input: { orgName: string; email: string; passwordHash: string; plan?: Plan }): Promise<{ org: OrganizationDoc; user: UserDoc }> {
    const now = new Date();
    const org: OrganizationDoc = { _id: newId('org'), name: input.orgName, plan: input.plan ?? 'free', active: true, created_at: now };
    const user: UserDoc = {
      _id: newId('usr'),
      email: input.email,
      email_lower: input.email.toLowerCase(),
      password_hash: input.passwordHash,
      org_id: org._id,
      role: 'owner',
      active: true,
      created_at: now,
    };
    // The unique e-mail index decides concurrent sign-ups: insert the user first so that a
    // losing request leaves no organization behind.
    await this.users.insertOne(user);
    try {
      await this.orgs.insertOne(org);
    } catch (err) {
      await this.users.deleteOne({ _id: user._id });
      throw err;
    }
    return { org, user };
  }

  async addUser(input: { orgId: string; email: string; passwordHash: string; role: Role }): Promise<UserDoc> {
    const user: UserDoc = {
      _id: newId('usr'),
      email: input.email,
      email_lower: input.email.toLowerCase(),
      password_hash: input.passwordHash,
      org_id: input.orgId,
      role: input.role,
      active: true,
      created_at: new Date(),
    };
    await this.users.insertOne(user);
    return user;
  }

  findUserByEmail(email: string) {
    return this.users.findOne({ email_lower: email.toLowerCase() });
  }

  findUser(id: string) {
    return this.users.findOne({ _id: id });
  }

  findOrg(id: string) {
    return this.orgs.findOne({ _id: id });
  }

  /** Mints a key for a user; the raw key is returned once and only its digest is stored. */
  async createKey(input: { orgId: string; userId: string; name: string; scopes?: Scope[]; expiresAt?: Date | null; rotatedFrom?: string | null }): Promise<{ doc: ApiKeyDoc; key: string }> {
    const key = generateApiKey(LIVE_PREFIX);
    const doc: ApiKeyDoc = {
      _id: newId('key'),
      org_id: input.orgId,
      user_id: input.userId,
      name: input.name,
      hash_scheme: 'hmac-sha256',
      lookup_digest: this.digest(key),
      preview: maskApiKey(key),
      key_version: 'v2',
      scopes: [...(input.scopes ?? DEFAULT_API_KEY_SCOPES)],
      active: true,
      revoked_at: null,
      expires_at: input.expiresAt ?? null,
      created_at: new Date(),
      rotated_from: input.rotatedFrom ?? null,
    };
    await this.keys.insertOne(doc);
    return { doc, key };
  }

  findKeyByRaw(key: string) {
    return this.keys.findOne({ lookup_digest: this.digest(key), hash_scheme: 'hmac-sha256' });
  }

  findLegacyKey(key: string) {
    return this.keys.findOne({ lookup_digest: legacyDigest(key), hash_scheme: 'sha256-legacy' });
  }

  listActiveKeys(orgId: string) {
    return this.keys.find({ org_id: orgId, active: true }).sort({ created_at: 1 }).toArray();
  }

  /** Soft delete; true when an active key of this organization was revoked now. */
  async revokeKey(orgId: string, keyId: string): Promise<boolean> {
    const res = await this.keys.updateOne({ _id: keyId, org_id: orgId, active: true }, { $set: { active: false, revoked_at: new Date() } });
    return res.modifiedCount === 1;
  }
}

/** True when the presented string is shaped like a key this service could have issued. */
export function isKeyShaped(key: string): boolean {
  return inspectApiKey(key).ok;
}
