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
//
// Single flight (session 15): when an entry expires under load, every request of that key
// missed at once and each made the three reads. Concurrent misses of one digest now share one
// lookup (`load`). A request joins only a lookup that started in the current generation: a
// revocation, rotation or leak hold in this process (invalidateKey, hold, clear) starts a new
// generation, so a request after it never gets an answer read before it, and a lookup that
// started before it is not cached.

export class KeyCache<T> {
  private readonly entries = new Map<string, { value: T; keyId: string; expiresAt: number }>();
  /** Digests that must not be cached until the given time (a leak report is being processed). */
  private readonly held = new Map<string, number>();
  /** Lookups in flight by digest, with the generation they started in. */
  private readonly inflight = new Map<string, { gen: number; result: Promise<unknown> }>();
  /** Bumped by every invalidation in this process: older lookups are neither joined nor cached. */
  private generation = 0;

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

  /**
   * The cached value of `digest`, or the result of `lookup` shared by every concurrent caller of
   * the same digest (single flight). `cacheable` picks what to cache from the result (null: a
   * refusal or a miss, not cached). Waiters share refusals too: they read the store at the same
   * moment as the lookup they join.
   */
  async load<R>(
    digest: string,
    lookup: () => Promise<R>,
    cacheable: (r: R) => { keyId: string; value: T } | null,
  ): Promise<{ cached: T } | { result: R }> {
    const hit = this.get(digest);
    if (hit !== undefined) return { cached: hit };
    const running = this.inflight.get(digest);
    if (running && running.gen === this.generation) return { result: (await running.result) as R };
    const gen = this.generation;
    const result = lookup();
    const entry = { gen, result: result as Promise<unknown> };
    this.inflight.set(digest, entry);
    try {
      const r = await result;
      const c = cacheable(r);
      // Not cached when an invalidation happened meanwhile: what it read may be what was revoked.
      if (c && gen === this.generation) this.set(digest, c.keyId, c.value);
      return { result: r };
    } finally {
      if (this.inflight.get(digest) === entry) this.inflight.delete(digest);
    }
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
    this.generation++;
    for (const [digest, e] of this.entries) if (e.keyId === keyId) this.entries.delete(digest);
  }

  /** Forgets a digest and keeps it out of the cache for `holdMs` (a reported leak, revoked asynchronously). */
  hold(digest: string, holdMs: number): void {
    this.generation++;
    this.entries.delete(digest);
    if (this.held.size >= this.maxEntries) this.held.clear();
    this.held.set(digest, this.now() + holdMs);
  }

  clear(): void {
    this.generation++;
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
