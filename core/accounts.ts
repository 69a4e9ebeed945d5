// Organizations, users and API keys in the store. Every query that reads tenant data is
// scoped by organization id; keys are stored only as HMAC-SHA256 lookup digests.
import { createHash, randomBytes } from 'node:crypto';
import { MongoServerError, type Collection } from 'mongodb';
import { Store } from './store.js';
import { generateApiKey, lookupDigest, maskApiKey, LIVE_PREFIX, inspectApiKey } from './api-keys.js';
import { DEFAULT_API_KEY_SCOPES, type Role, type Scope } from './scopes.js';
import { KeyCache } from './key-cache.js';

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

/**
 * The single-winner marker of a key rotation: `_id` is the rotated key's id, so the unique `_id`
 * index lets exactly one rotation of a key proceed, on FerretDB as on MongoDB (no transactions).
 */
export interface KeyRotationDoc {
  _id: string;
  /** Random per attempt: only the attempt that wrote the marker may remove or complete it. */
  token: string;
  successor_id: string | null;
  created_at: Date;
  done_at: Date | null;
}

export type KeyRotationResult =
  | { ok: true; doc: ApiKeyDoc; key: string }
  | { ok: false; reason: 'in_progress' | 'gone' };

/** A marker whose rotation never completed (its process died) may be taken over after this long. */
export const ROTATION_STALE_MS = 60_000;

const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** The digest a pre-7.2 server stored (plain SHA-256): only used to recognise such records and answer "re-issue". */
export const legacyDigest = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

Store.registerIndexes(async (store) => {
  await store.collection('users').createIndex({ email_lower: 1 }, { unique: true });
  await store.collection('users').createIndex({ org_id: 1 });
  await store.collection('api_keys').createIndex({ lookup_digest: 1 }, { unique: true });
  await store.collection('api_keys').createIndex({ org_id: 1, active: 1 });
});

/**
 * `api_key_digests` `{_id: lookup_digest, key_id}`: authenticating a key is two `_id` lookups
 * (FerretDB 1.x reads the whole collection for a filter on any other field). The key document
 * stays the authority (active, scopes, expiry); a key without a digest document (issued before
 * it existed, or written directly) is found by the `lookup_digest` query and indexed then.
 */
export interface ApiKeyDigestDoc {
  _id: string;
  key_id: string;
}

/** A key that authenticated, with its user and organization (what the key cache keeps). */
export interface ResolvedKey {
  key: ApiKeyDoc;
  user: UserDoc;
  org: OrganizationDoc;
}

/** How long a leak-reported digest stays out of the key cache: longer than any revocation run. */
export const LEAK_HOLD_MS = 15 * 60_000;

export class Accounts {
  /** Valid key resolutions of this process (core/key-cache.ts); `cacheTtlMs` is the staleness bound. */
  readonly keyCache: KeyCache<ResolvedKey>;

  constructor(
    readonly store: Store,
    private readonly lookupSecret: string,
    cacheTtlMs = 0,
  ) {
    this.keyCache = new KeyCache<ResolvedKey>(cacheTtlMs);
  }

  get orgs(): Collection<OrganizationDoc> {
    return this.store.collection<OrganizationDoc>('organizations');
  }

  get users(): Collection<UserDoc> {
    return this.store.collection<UserDoc>('users');
  }

  get keys(): Collection<ApiKeyDoc> {
    return this.store.collection<ApiKeyDoc>('api_keys');
  }

  get rotations(): Collection<KeyRotationDoc> {
    return this.store.collection<KeyRotationDoc>('api_key_rotations');
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
    await this.indexDigest(doc);
    return { doc, key };
  }

  /**
   * Rotates `target` (already authorized by the caller): exactly one of any number of concurrent
   * rotations of one key wins. The winner inserts the marker keyed by the old key's id, mints
   * the successor with the old key's scopes, name and expiry, then revokes the old key with a
   * conditional update. Losers get `in_progress`; if the old key was revoked meanwhile (or the
   * marker cannot be written), the successor is deleted and the answer is `gone`.
   */
  async rotateKey(target: ApiKeyDoc): Promise<KeyRotationResult> {
    const token = randomBytes(16).toString('hex');
    if (!(await this.claimRotation(target._id, token))) return { ok: false, reason: 'in_progress' };
    let created: { doc: ApiKeyDoc; key: string };
    try {
      created = await this.createKey({
        orgId: target.org_id,
        userId: target.user_id,
        name: target.name,
        scopes: target.scopes,
        expiresAt: target.expires_at,
        rotatedFrom: target._id,
      });
    } catch (err) {
      await this.rotations.deleteOne({ _id: target._id, token }).catch(() => undefined);
      throw err;
    }
    const revoked = await this.keys.updateOne(
      { _id: target._id, active: true },
      { $set: { active: false, revoked_at: new Date(), rotated_to: created.doc._id } },
    );
    this.keyCache.invalidateKey(target._id);
    if (revoked.modifiedCount !== 1) {
      await this.keys.deleteOne({ _id: created.doc._id });
      await this.rotations.deleteOne({ _id: target._id, token }).catch(() => undefined);
      return { ok: false, reason: 'gone' };
    }
    await this.rotations.updateOne({ _id: target._id, token }, { $set: { successor_id: created.doc._id, done_at: new Date() } }).catch(() => undefined);
    return { ok: true, ...created };
  }

  /** Unique insert of the rotation marker; a stale unfinished marker is replaced once. */
  private async claimRotation(keyId: string, token: string): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.rotations.insertOne({ _id: keyId, token, successor_id: null, created_at: new Date(), done_at: null });
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await this.rotations.findOne({ _id: keyId });
        if (!existing) continue; // removed meanwhile: try once more
        const stale = existing.done_at === null && Date.now() - existing.created_at.getTime() > ROTATION_STALE_MS;
        if (!stale) return false;
        // The dead attempt may have minted a successor whose secret never reached anyone: revoke it.
        await this.keys.updateMany({ rotated_from: keyId, active: true }, { $set: { active: false, revoked_at: new Date() } });
        this.keyCache.clear(); // ids of those successors are not known here
        // Only the marker just read is removed (by its token); concurrent take-overs race on the insert.
        await this.rotations.deleteOne({ _id: keyId, token: existing.token });
      }
    }
    return false;
  }

  get digests(): Collection<ApiKeyDigestDoc> {
    return this.store.collection<ApiKeyDigestDoc>('api_key_digests');
  }

  private async indexDigest(doc: Pick<ApiKeyDoc, '_id' | 'lookup_digest'>): Promise<void> {
    try {
      await this.digests.insertOne({ _id: doc.lookup_digest, key_id: doc._id });
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
    }
  }

  async findKeyByRaw(key: string): Promise<ApiKeyDoc | null> {
    const digest = this.digest(key);
    const pointer = await this.digests.findOne({ _id: digest });
    if (pointer) {
      const doc = await this.keys.findOne({ _id: pointer.key_id });
      if (doc && doc.lookup_digest === digest && doc.hash_scheme === 'hmac-sha256') return doc;
    }
    const doc = await this.keys.findOne({ lookup_digest: digest, hash_scheme: 'hmac-sha256' });
    if (doc && !pointer) await this.indexDigest(doc).catch(() => undefined);
    return doc;
  }

  findLegacyKey(key: string) {
    return this.keys.findOne({ lookup_digest: legacyDigest(key), hash_scheme: 'sha256-legacy' });
  }

  listActiveKeys(orgId: string) {
    return this.keys.find({ org_id: orgId, active: true }).sort({ created_at: 1 }).toArray();
  }

  /**
   * Whether the key `keyId` of `orgId` still stands, following rotations (a rotated key lives on
   * in its successor): `active`, or why not. The agents a key registered work only while it
   * stands (docs/agents.md, "The registering key").
   */
  async keyStanding(orgId: string, keyId: string): Promise<'active' | 'revoked' | 'expired' | 'missing'> {
    let id = keyId;
    for (let hop = 0; hop < 32; hop++) {
      const key = (await this.keys.findOne({ _id: id, org_id: orgId })) as (ApiKeyDoc & { rotated_to?: string | null }) | null;
      if (!key) return 'missing';
      if (key.active) return key.expires_at !== null && key.expires_at.getTime() <= Date.now() ? 'expired' : 'active';
      if (typeof key.rotated_to !== 'string') return 'revoked';
      id = key.rotated_to;
    }
    return 'revoked'; // a rotation chain this long is not legitimate
  }

  /** Soft delete; true when an active key of this organization was revoked now. */
  async revokeKey(orgId: string, keyId: string): Promise<boolean> {
    const res = await this.keys.updateOne({ _id: keyId, org_id: orgId, active: true }, { $set: { active: false, revoked_at: new Date() } });
    // Refused by this process at once; other processes within the cache TTL.
    this.keyCache.invalidateKey(keyId);
    return res.modifiedCount === 1;
  }
}

/** True when the presented string is shaped like a key this service could have issued. */
export function isKeyShaped(key: string): boolean {
  return inspectApiKey(key).ok;
}
