// Organizations, users and API keys in the store (persistence/README.md). Every query below is a
// point lookup by `_id`, an insert, or an update/delete by `_id`: FerretDB 1.x/SQLite answers
// nothing else without reading the whole collection (docs/store-access.md §1). What used to be
// a query on another field is a pointer document keyed by that field (e-mail, lookup digest),
// and what used to be a per-organization list is a directory of positions (`org_directory`).
// Keys are stored only as HMAC-SHA256 lookup digests.
import { createHash, randomBytes } from 'node:crypto';
import { MongoServerError, type Collection } from 'mongodb';
import { Store } from '../core/store.js';
import { generateApiKey, lookupDigest, maskApiKey, LIVE_PREFIX, inspectApiKey } from '../core/api-keys.js';
import { DEFAULT_API_KEY_SCOPES, type Role, type Scope } from '../core/scopes.js';
import { KeyCache } from '../core/key-cache.js';
import { openChain } from './audit.js';

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
  rotated_to?: string | null;
}

/**
 * The single-winner marker of a key rotation: `_id` is the rotated key's id, so the unique `_id`
 * index lets exactly one rotation of a key proceed, on FerretDB as on MongoDB (no transactions).
 */
export interface KeyRotationDoc {
  _id: string;
  /** Random per attempt: only the attempt that wrote the marker may remove or complete it. */
  token: string;
  /** The successor's id, chosen before the marker is written (a dead attempt's successor is known). */
  successor_id: string | null;
  created_at: Date;
  done_at: Date | null;
}

/** The single-winner marker of a key's revocation (user revoke, rotation, leak report): `_id` is the key id. */
export interface KeyRevocationDoc {
  _id: string;
  reason: 'revoked' | 'rotated' | 'secret_leak';
  /** The leak delivery that revoked it (leak reports only). */
  delivery_id: string | null;
  created_at: Date;
}

export type KeyRotationResult =
  { ok: true; doc: ApiKeyDoc; key: string } | { ok: false; reason: 'in_progress' | 'gone' };

/** A marker whose rotation never completed (its process died) may be taken over after this long. */
export const ROTATION_STALE_MS = 60_000;

export const isDuplicateKey = (err: unknown) => err instanceof MongoServerError && err.code === 11000;

export const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** The digest a pre-7.2 server stored (plain SHA-256): only used to recognise such records and answer "re-issue". */
export const legacyDigest = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** `{_id: digest, key_id}`: `api_key_digests` (HMAC) and `api_key_legacy_digests` (pre-7.2 SHA-256). */
export interface ApiKeyDigestDoc {
  _id: string;
  key_id: string;
}

/** `{_id: email_lower, user_id}`: the sign-in lookup; its unique insert decides concurrent sign-ups. */
export interface UserEmailDoc {
  _id: string;
  user_id: string;
}

/** A key that authenticated, with its user and organization (what the key cache keeps). */
export interface ResolvedKey {
  key: ApiKeyDoc;
  user: UserDoc;
  org: OrganizationDoc;
}

/** How long a leak-reported digest stays out of the key cache: longer than any revocation run. */
export const LEAK_HOLD_MS = 15 * 60_000;

/** How long an unknown digest is answered from memory (a client retrying a wrong key costs no lookups). */
export const UNKNOWN_KEY_TTL_MS = 10_000;

// Declared indexes: the unique ones still guard direct writes on MongoDB; none of them serves a
// query (every read is by `_id`).
Store.registerIndexes(async (store) => {
  await store.collection('users').createIndex({ email_lower: 1 }, { unique: true });
  await store.collection('api_keys').createIndex({ lookup_digest: 1 }, { unique: true });
});

/**
 * A per-organization list (keys, users) as positions: `{_id: org:list:n, ref}` for n = 1, 2, …
 * and a head `{_id: org:list, n}` that is a hint (it may lag). A writer claims the next free
 * position by a unique insert (a taken position answers duplicate key: try the next), so
 * concurrent writers never lose an entry (FerretDB runs `$push`/`$addToSet` as
 * read-modify-write and would); positions stay contiguous because every writer starts from a
 * head that is never ahead of the last taken position. A reader reads 1…head and walks on until
 * the first free position. Bounded by what an organization creates (keys, members).
 */
interface DirectoryEntry {
  _id: string;
  ref?: string;
  n?: number;
}

export class OrgDirectory {
  constructor(
    private readonly store: Store,
    private readonly list: 'keys' | 'users',
  ) {}

  private get col(): Collection<DirectoryEntry> {
    return this.store.collection<DirectoryEntry>('org_directory');
  }

  private head(orgId: string) {
    return `${orgId}:${this.list}`;
  }

  /** `{_id: org:list}` point lookup: the head hint. */
  private async headN(orgId: string): Promise<number> {
    const h = await this.col.findOne({ _id: this.head(orgId) });
    return typeof h?.n === 'number' ? h.n : 0;
  }

  /** Unique inserts of `{_id: org:list:n}` from the head on; then the head moved by `{_id}`. */
  async add(orgId: string, ref: string): Promise<number> {
    for (let n = (await this.headN(orgId)) + 1; ; n++) {
      try {
        await this.col.insertOne({ _id: `${this.head(orgId)}:${n}`, ref });
      } catch (err) {
        if (isDuplicateKey(err)) continue;
        throw err;
      }
      // A hint: a lagging head only costs readers a few more lookups.
      await this.col.updateOne({ _id: this.head(orgId) }, { $max: { n } }, { upsert: true }).catch((err) => {
        if (!isDuplicateKey(err)) throw err;
      });
      return n;
    }
  }

  /** Every ref in position order: the head, positions 1…head in parallel, then on to the first free one (all `{_id}`). */
  async refs(orgId: string): Promise<string[]> {
    const n = await this.headN(orgId);
    const ids = Array.from({ length: n }, (_, i) => `${this.head(orgId)}:${i + 1}`);
    const docs = await Promise.all(ids.map((_id) => this.col.findOne({ _id })));
    const out = docs.map((d) => d?.ref).filter((r): r is string => typeof r === 'string');
    for (let k = n + 1; ; k++) {
      const d = await this.col.findOne({ _id: `${this.head(orgId)}:${k}` });
      if (!d) break;
      if (typeof d.ref === 'string') out.push(d.ref);
    }
    return [...new Set(out)];
  }
}

export class Accounts {
  /** Valid key resolutions of this process (core/key-cache.ts); `cacheTtlMs` is the staleness bound. */
  readonly keyCache: KeyCache<ResolvedKey>;
  /** Digests with no key, answered from memory for UNKNOWN_KEY_TTL_MS (bounded; never a valid key). */
  private readonly unknownDigests = new Map<string, number>();
  readonly keyDirectory: OrgDirectory;
  readonly userDirectory: OrgDirectory;

  constructor(
    readonly store: Store,
    private readonly lookupSecret: string,
    cacheTtlMs = 0,
  ) {
    this.keyCache = new KeyCache<ResolvedKey>(cacheTtlMs);
    this.keyDirectory = new OrgDirectory(store, 'keys');
    this.userDirectory = new OrgDirectory(store, 'users');
  }

  get orgs(): Collection<OrganizationDoc> {
    return this.store.collection<OrganizationDoc>('organizations');
  }

  get users(): Collection<UserDoc> {
    return this.store.collection<UserDoc>('users');
  }

  get emails(): Collection<UserEmailDoc> {
    return this.store.collection<UserEmailDoc>('user_emails');
  }

  get keys(): Collection<ApiKeyDoc> {
    return this.store.collection<ApiKeyDoc>('api_keys');
  }

  get rotations(): Collection<KeyRotationDoc> {
    return this.store.collection<KeyRotationDoc>('api_key_rotations');
  }

  get revocations(): Collection<KeyRevocationDoc> {
    return this.store.collection<KeyRevocationDoc>('api_key_revocations');
  }

  get digests(): Collection<ApiKeyDigestDoc> {
    return this.store.collection<ApiKeyDigestDoc>('api_key_digests');
  }

  get legacyDigests(): Collection<ApiKeyDigestDoc> {
    return this.store.collection<ApiKeyDigestDoc>('api_key_legacy_digests');
  }

  digest(key: string): string {
    return lookupDigest(key, this.lookupSecret);
  }

  /**
   * Sign-up. The unique insert of the e-mail pointer `{_id: email_lower}` decides concurrent
   * sign-ups of one address (the loser gets duplicate key → 409) before anything else exists;
   * a later failure removes what this call wrote, by `_id`.
   */
  async createOrgWithOwner(input: {
    orgName: string;
    email: string;
    passwordHash: string;
    plan?: Plan;
  }): Promise<{ org: OrganizationDoc; user: UserDoc }> {
    const now = new Date();
    const org: OrganizationDoc = {
      _id: newId('org'),
      name: input.orgName,
      plan: input.plan ?? 'free',
      active: true,
      created_at: now,
    };
    const user = this.newUser(
      { orgId: org._id, email: input.email, passwordHash: input.passwordHash, role: 'owner' },
      now,
    );
    await this.emails.insertOne({ _id: user.email_lower, user_id: user._id });
    try {
      // Listed before it exists (a reader skips a listed id without a user), as keys are.
      await this.userDirectory.add(org._id, user._id);
      await this.users.insertOne(user);
      await this.orgs.insertOne(org);
      // Its audit chain starts empty with a head: no first-append heal read (persistence/audit.ts openChain).
      await openChain(this.store, org._id);
    } catch (err) {
      await this.users.deleteOne({ _id: user._id }).catch(() => undefined);
      await this.orgs.deleteOne({ _id: org._id }).catch(() => undefined);
      await this.emails.deleteOne({ _id: user.email_lower }).catch(() => undefined);
      throw err;
    }
    return { org, user };
  }

  /** A member of an existing organization: the same e-mail pointer first (duplicate key if taken). */
  async addUser(input: { orgId: string; email: string; passwordHash: string; role: Role }): Promise<UserDoc> {
    const user = this.newUser(input, new Date());
    await this.emails.insertOne({ _id: user.email_lower, user_id: user._id });
    try {
      await this.userDirectory.add(input.orgId, user._id);
      await this.users.insertOne(user);
    } catch (err) {
      await this.emails.deleteOne({ _id: user.email_lower }).catch(() => undefined);
      throw err;
    }
    return user;
  }

  private newUser(input: { orgId: string; email: string; passwordHash: string; role: Role }, now: Date): UserDoc {
    return {
      _id: newId('usr'),
      email: input.email,
      email_lower: input.email.toLowerCase(),
      password_hash: input.passwordHash,
      org_id: input.orgId,
      role: input.role,
      active: true,
      created_at: now,
    };
  }

  /** `user_emails {_id: email_lower}` then `users {_id}`; a user without a pointer is not found (backfilled at start-up). */
  async findUserByEmail(email: string): Promise<UserDoc | null> {
    const lower = email.toLowerCase();
    const pointer = await this.emails.findOne({ _id: lower });
    if (!pointer) return null;
    const user = await this.users.findOne({ _id: pointer.user_id });
    return user && user.email_lower === lower ? user : null;
  }

  /** `users {_id}`. */
  findUser(id: string) {
    return this.users.findOne({ _id: id });
  }

  /** `organizations {_id}`. */
  findOrg(id: string) {
    return this.orgs.findOne({ _id: id });
  }

  /** The organization's users in creation order: directory positions, then `users {_id}` each (bounded by the organization's members). */
  async listOrgUsers(orgId: string): Promise<UserDoc[]> {
    const ids = await this.userDirectory.refs(orgId);
    const docs = await Promise.all(ids.map((id) => this.users.findOne({ _id: id })));
    return byCreation(docs.filter((u): u is UserDoc => u !== null && u.org_id === orgId));
  }

  /** The organization's keys (revoked ones too) in creation order: directory positions, then `api_keys {_id}` each. */
  async listOrgKeys(orgId: string): Promise<ApiKeyDoc[]> {
    const ids = await this.keyDirectory.refs(orgId);
    const docs = await Promise.all(ids.map((id) => this.keys.findOne({ _id: id })));
    return byCreation(docs.filter((k): k is ApiKeyDoc => k !== null && k.org_id === orgId));
  }

  /** `GET /auth/api-keys`: the active ones of listOrgKeys. */
  async listActiveKeys(orgId: string): Promise<ApiKeyDoc[]> {
    return (await this.listOrgKeys(orgId)).filter((k) => k.active);
  }

  /** Mints a key for a user; the raw key is returned once and only its digest is stored. */
  async createKey(input: {
    orgId: string;
    userId: string;
    name: string;
    scopes?: Scope[];
    expiresAt?: Date | null;
    rotatedFrom?: string | null;
    id?: string;
  }): Promise<{ doc: ApiKeyDoc; key: string }> {
    const key = generateApiKey(LIVE_PREFIX);
    const doc: ApiKeyDoc = {
      _id: input.id ?? newId('key'),
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
    // Listed before it exists (a reader skips a listed id without a key), so a crash never hides a usable key.
    await this.keyDirectory.add(doc.org_id, doc._id);
    await this.keys.insertOne(doc);
    await this.digests.insertOne({ _id: doc.lookup_digest, key_id: doc._id });
    this.unknownDigests.delete(doc.lookup_digest);
    return { doc, key };
  }

  /** `api_keys {_id}` with the organization and state checked here: a key this organization may rotate. */
  async findActiveKey(orgId: string, keyId: string): Promise<ApiKeyDoc | null> {
    const key = await this.keys.findOne({ _id: keyId });
    return key && key.org_id === orgId && key.active && key.revoked_at === null ? key : null;
  }

  /**
   * Rotates `target` (already authorized by the caller): exactly one of any number of concurrent
   * rotations of one key wins, by the unique insert of the rotation marker keyed by the old key's
   * id (it names the successor's id before the successor exists). The winner mints the successor
   * with the old key's scopes, name and expiry, then revokes the old key through the revocation
   * marker: if the key was revoked meanwhile, the successor is revoked too and the answer is `gone`.
   */
  async rotateKey(target: ApiKeyDoc): Promise<KeyRotationResult> {
    const token = randomBytes(16).toString('hex');
    const successorId = newId('key');
    if (!(await this.claimRotation(target._id, token, successorId))) return { ok: false, reason: 'in_progress' };
    let created: { doc: ApiKeyDoc; key: string };
    try {
      created = await this.createKey({
        orgId: target.org_id,
        userId: target.user_id,
        name: target.name,
        scopes: target.scopes,
        expiresAt: target.expires_at,
        rotatedFrom: target._id,
        id: successorId,
      });
    } catch (err) {
      await this.dropRotationMarker(target._id, token);
      throw err;
    }
    const won = await this.markRevoked(target._id, 'rotated', null);
    if (won)
      await this.keys.updateOne(
        { _id: target._id },
        { $set: { active: false, revoked_at: new Date(), rotated_to: successorId } },
      );
    this.keyCache.invalidateKey(target._id);
    if (!won) {
      await this.keys.updateOne({ _id: successorId }, { $set: { active: false, revoked_at: new Date() } });
      await this.dropRotationMarker(target._id, token);
      return { ok: false, reason: 'gone' };
    }
    await this.rotations.updateOne({ _id: target._id }, { $set: { done_at: new Date() } }).catch(() => undefined);
    return { ok: true, ...created };
  }

  /** `api_key_rotations {_id}` read, token compared here, then deleted by `{_id}`: only the attempt that wrote it removes it. */
  private async dropRotationMarker(keyId: string, token: string): Promise<void> {
    const cur = await this.rotations.findOne({ _id: keyId }).catch(() => null);
    if (cur?.token === token) await this.rotations.deleteOne({ _id: keyId }).catch(() => undefined);
  }

  /** Unique insert of the rotation marker; a stale unfinished marker is replaced once. */
  private async claimRotation(keyId: string, token: string, successorId: string): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        await this.rotations.insertOne({
          _id: keyId,
          token,
          successor_id: successorId,
          created_at: new Date(),
          done_at: null,
        });
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
        const existing = await this.rotations.findOne({ _id: keyId });
        if (!existing) continue; // removed meanwhile: try once more
        const stale = existing.done_at === null && Date.now() - existing.created_at.getTime() > ROTATION_STALE_MS;
        if (!stale) return false;
        // The dead attempt may have minted its successor, whose secret never reached anyone: revoke it by id.
        if (existing.successor_id) {
          await this.keys.updateOne(
            { _id: existing.successor_id },
            { $set: { active: false, revoked_at: new Date() } },
          );
          this.keyCache.invalidateKey(existing.successor_id);
        }
        // Only the marker just read is removed (its token compared here); concurrent take-overs race on the insert.
        await this.dropRotationMarker(keyId, existing.token);
      }
    }
    return false;
  }

  /** Unique insert of `api_key_revocations {_id: key id}`: true for the one caller that revokes the key. */
  async markRevoked(keyId: string, reason: KeyRevocationDoc['reason'], deliveryId: string | null): Promise<boolean> {
    try {
      await this.revocations.insertOne({ _id: keyId, reason, delivery_id: deliveryId, created_at: new Date() });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }

  /** `api_key_revocations {_id}`: who revoked a key (null for keys revoked before the markers existed). */
  revocationOf(keyId: string) {
    return this.revocations.findOne({ _id: keyId });
  }

  /**
   * `api_key_digests {_id: digest}` then `api_keys {_id}`. The pointer is authoritative: no
   * pointer = unknown key, without a scan (start-up backfills pointers of older keys,
   * persistence/migrations.ts). Unknown digests are remembered briefly (bounded).
   */
  async findKeyByRaw(key: string): Promise<ApiKeyDoc | null> {
    const digest = this.digest(key);
    const until = this.unknownDigests.get(digest);
    if (until !== undefined && until > Date.now()) return null;
    const pointer = await this.digests.findOne({ _id: digest });
    const doc = pointer ? await this.keys.findOne({ _id: pointer.key_id }) : null;
    if (doc && doc.lookup_digest === digest && doc.hash_scheme === 'hmac-sha256') {
      this.unknownDigests.delete(digest);
      return doc;
    }
    if (!pointer) this.rememberUnknown(digest);
    return null;
  }

  private rememberUnknown(digest: string): void {
    if (this.unknownDigests.size >= 10_000) this.unknownDigests.clear();
    this.unknownDigests.set(digest, Date.now() + UNKNOWN_KEY_TTL_MS);
  }

  /** `api_key_legacy_digests {_id: sha256}` then `api_keys {_id}`: a pre-7.2 key (the holder is told to re-issue it). */
  async findLegacyKey(key: string): Promise<ApiKeyDoc | null> {
    const digest = legacyDigest(key);
    const pointer = await this.legacyDigests.findOne({ _id: digest });
    if (!pointer) return null;
    const doc = await this.keys.findOne({ _id: pointer.key_id });
    return doc && doc.lookup_digest === digest && doc.hash_scheme === 'sha256-legacy' ? doc : null;
  }

  /** `api_key_digests {_id}` then `api_keys {_id}` by digest alone (the leaked-key webhook has no raw key). */
  async findKeyByDigest(digest: string): Promise<ApiKeyDoc | null> {
    const pointer = await this.digests.findOne({ _id: digest });
    const doc = pointer ? await this.keys.findOne({ _id: pointer.key_id }) : null;
    return doc && doc.lookup_digest === digest && doc.hash_scheme === 'hmac-sha256' ? doc : null;
  }

  /**
   * Whether the key `keyId` of `orgId` still stands, following rotations (a rotated key lives on
   * in its successor): `active`, or why not. `api_keys {_id}` per hop, organization checked here.
   */
  async keyStanding(orgId: string, keyId: string): Promise<'active' | 'revoked' | 'expired' | 'missing'> {
    let id = keyId;
    for (let hop = 0; hop < 32; hop++) {
      const key = await this.keys.findOne({ _id: id });
      if (!key || key.org_id !== orgId) return 'missing';
      if (key.active) return key.expires_at !== null && key.expires_at.getTime() <= Date.now() ? 'expired' : 'active';
      if (typeof key.rotated_to !== 'string') return 'revoked';
      id = key.rotated_to;
    }
    return 'revoked'; // a rotation chain this long is not legitimate
  }

  /**
   * Soft delete; true when an active key of this organization was revoked now. `api_keys {_id}`,
   * checked here; the revocation marker's unique insert decides concurrent revocations.
   */
  async revokeKey(orgId: string, keyId: string): Promise<boolean> {
    const key = await this.keys.findOne({ _id: keyId });
    if (!key || key.org_id !== orgId || !key.active) return false;
    const won = await this.markRevoked(keyId, 'revoked', null);
    // A marker without a revoked key (a crash in between) is completed by whoever comes next.
    await this.keys.updateOne({ _id: keyId }, { $set: { active: false, revoked_at: key.revoked_at ?? new Date() } });
    // Refused by this process at once; other processes within the cache TTL.
    this.keyCache.invalidateKey(keyId);
    return won;
  }
}

/** A leaked-key notice that went out: `{_id: delivery:key}` (a retried activity sends nothing more). */
export interface LeakNoticeDoc {
  _id: string;
  delivery_id: string;
  key_id: string;
  org_id: string;
  recipient_user_id: string;
  sent_at: Date;
  message_id: string;
}

/** `leak_notifications {_id}`. */
export function findLeakNotice(store: Store, id: string) {
  return store.collection<LeakNoticeDoc>('leak_notifications').findOne({ _id: id });
}

/** Insert of `leak_notifications {_id}`; already recorded is fine. */
export async function recordLeakNotice(store: Store, doc: LeakNoticeDoc): Promise<void> {
  try {
    await store.collection<LeakNoticeDoc>('leak_notifications').insertOne(doc);
  } catch (err) {
    if (!isDuplicateKey(err)) throw err;
  }
}

const byCreation = <T extends { created_at: Date; _id: string }>(docs: T[]): T[] =>
  docs.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a._id < b._id ? -1 : a._id > b._id ? 1 : 0));

/** True when the presented string is shaped like a key this service could have issued. */
export function isKeyShaped(key: string): boolean {
  return inspectApiKey(key).ok;
}
