// API-key lookup cache of one API process (docs/performance.md): a verified key's record, its
// user and its organization, by lookup digest, for at most `ttlMs`. Saves the three store reads
// of every authenticated request.
//
// Staleness bound: a change made elsewhere (another API process revokes, the leaked-key
// workflow revokes in a worker, an operator deactivates a user or an organization in the store)
// is seen by this process at most `ttlMs` after it was written. Changes made through this
// process take effect at once: its revocation and rotation paths invalidate the key here, and a
// leaked-key delivery holds the reported digests out of the cache until the revocation is done.
// Only complete, valid resolutions are cached; a miss or a refusal always asks the store.

export class KeyCache<T> {
  private readonly entries = new Map<string, { value: T; keyId: string; expiresAt: number }>();
  /** Digests that must not be cached until the given time (a leak report is being processed). */
  private readonly held = new Map<string, number>();

  constructor(
    readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  get(digest: string): T | undefined {
    const e = this.entries.get(digest);
    if (!e) return undefined;
    if (e.expiresAt <= this.now()) {
      this.entries.delete(digest);
      return undefined;
    }
    return e.value;
  }

  set(digest: string, keyId: string, value: T): void {
    if (!this.enabled) return;
    const until = this.held.get(digest);
    if (until !== undefined) {
      if (until > this.now()) return;
      this.held.delete(digest);
    }
    // Bounded: when full, drop the oldest entry (Map keeps insertion order).
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(digest, { value, keyId, expiresAt: this.now() + this.ttlMs });
  }

  /** Forgets every entry of a key (revocation, rotation in this process). */
  invalidateKey(keyId: string): void {
    for (const [digest, e] of this.entries) if (e.keyId === keyId) this.entries.delete(digest);
  }

  /** Forgets a digest and keeps it out of the cache for `holdMs` (a reported leak, revoked asynchronously). */
  hold(digest: string, holdMs: number): void {
    this.entries.delete(digest);
    if (this.held.size >= this.maxEntries) this.held.clear();
    this.held.set(digest, this.now() + holdMs);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
