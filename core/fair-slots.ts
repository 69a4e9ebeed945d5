// Slots shared fairly across organizations (docs/isolation.md).
//
// A FairSlots holds `capacity` slots. One organization holds at most `perOrgCap` of them at a
// time, so whatever one organization sends, `capacity - perOrgCap` slots stay for the others.
// Waiters are served round-robin across organizations (one grant per organization in turn, in
// order of arrival within an organization), so an organization with a long queue does not
// delay another's first request. A waiter gives up at its deadline (the engine's own
// deadline: queueing counts against it). Pure bookkeeping: no timers besides the waiters'
// deadlines, no I/O.

export type SlotRelease = () => void;

export interface FairSlotsOptions {
  /** Total slots (e.g. worker threads). */
  capacity: number;
  /** Slots one organization may hold at once. Default: half the capacity, rounded up. */
  perOrgCap?: number;
  /** Waiters beyond this (all organizations together) are refused at once. Default 1000. */
  maxWaiting?: number;
}

export type AcquireOutcome =
  { ok: true; release: SlotRelease; waitedMs: number } | { ok: false; reason: 'deadline' | 'queue_full' | 'org_cap' };

interface Waiter {
  org: string;
  enqueuedAt: number;
  /** When its time-out ends (ms since the epoch): a slot freed at or after it is not granted. */
  deadline: number;
  timer: NodeJS.Timeout | null;
  resolve: (o: AcquireOutcome) => void;
}

/** Requests without an organization (anonymous) share one key. */
const ANONYMOUS = '\u0000anonymous';

export function defaultPerOrgCap(capacity: number): number {
  return Math.max(1, Math.ceil(capacity / 2));
}

export class FairSlots {
  readonly capacity: number;
  readonly perOrgCap: number;
  private readonly maxWaiting: number;
  private inUse = 0;
  private readonly held = new Map<string, number>();
  /** Waiting queues per organization, in the round-robin order of organizations. */
  private readonly waiting = new Map<string, Waiter[]>();
  private waitingCount = 0;

  constructor(options: FairSlotsOptions) {
    if (!Number.isInteger(options.capacity) || options.capacity < 1)
      throw new RangeError(`capacity must be a positive integer, got ${options.capacity}`);
    this.capacity = options.capacity;
    this.perOrgCap = Math.min(this.capacity, options.perOrgCap ?? defaultPerOrgCap(this.capacity));
    if (!Number.isInteger(this.perOrgCap) || this.perOrgCap < 1)
      throw new RangeError(`perOrgCap must be a positive integer, got ${options.perOrgCap}`);
    this.maxWaiting = options.maxWaiting ?? 1000;
  }

  /** Takes a slot now or not at all (uploads: a full server answers 503 at once). */
  tryAcquire(orgId: string | null): AcquireOutcome {
    const org = orgId ?? ANONYMOUS;
    if ((this.held.get(org) ?? 0) >= this.perOrgCap) return { ok: false, reason: 'org_cap' };
    if (!this.canGrantNow(org)) return { ok: false, reason: 'queue_full' };
    return { ok: true, release: this.grant(org), waitedMs: 0 };
  }

  /** Waits for a slot until `timeoutMs` has passed (→ `deadline`). */
  acquire(orgId: string | null, timeoutMs: number): Promise<AcquireOutcome> {
    const org = orgId ?? ANONYMOUS;
    if (this.canGrantNow(org)) {
      return Promise.resolve({ ok: true, release: this.grant(org), waitedMs: 0 });
    }
    if (timeoutMs <= 0) return Promise.resolve({ ok: false, reason: 'deadline' });
    if (this.waitingCount >= this.maxWaiting) return Promise.resolve({ ok: false, reason: 'queue_full' });
    return new Promise<AcquireOutcome>((resolve) => {
      const now = Date.now();
      const w: Waiter = { org, enqueuedAt: now, deadline: now + timeoutMs, timer: null, resolve };
      w.timer = setTimeout(() => {
        w.timer = null;
        if (this.removeWaiter(w)) resolve({ ok: false, reason: 'deadline' });
      }, timeoutMs);
      const q = this.waiting.get(org);
      if (q) q.push(w);
      else this.waiting.set(org, [w]);
      this.waitingCount++;
      this.pump();
    });
  }

  /**
   * A free slot, the organization under its cap and none of its own requests waiting. Waiters
   * of other organizations do not stand in the way: after every pump a free slot means each
   * waiting organization is at its cap, so this grant is the one the pump would make.
   */
  private canGrantNow(org: string): boolean {
    return this.inUse < this.capacity && (this.held.get(org) ?? 0) < this.perOrgCap && !this.waiting.has(org);
  }

  stats(): { capacity: number; perOrgCap: number; inUse: number; waiting: number; orgs: Record<string, number> } {
    return {
      capacity: this.capacity,
      perOrgCap: this.perOrgCap,
      inUse: this.inUse,
      waiting: this.waitingCount,
      orgs: Object.fromEntries(this.held),
    };
  }

  private grant(org: string): SlotRelease {
    this.inUse++;
    this.held.set(org, (this.held.get(org) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
      const n = (this.held.get(org) ?? 1) - 1;
      if (n <= 0) this.held.delete(org);
      else this.held.set(org, n);
      this.pump();
    };
  }

  /** Grants free slots to waiters: organizations in turn, skipping those at their cap. */
  private pump(): void {
    while (this.inUse < this.capacity && this.waitingCount > 0) {
      let granted = false;
      for (const [org, q] of this.waiting) {
        if ((this.held.get(org) ?? 0) >= this.perOrgCap) continue;
        const w = q.shift()!;
        this.waitingCount--;
        // Round robin: the organization served goes to the back of the order.
        this.waiting.delete(org);
        if (q.length > 0) this.waiting.set(org, q);
        if (w.timer) clearTimeout(w.timer);
        w.timer = null;
        // Its time-out has run out but its timer has not fired yet (a busy event loop): it gave
        // up in the queue, as it would have a moment earlier; the slot goes to the next waiter.
        if (Date.now() >= w.deadline) {
          w.resolve({ ok: false, reason: 'deadline' });
          granted = true;
          break;
        }
        w.resolve({ ok: true, release: this.grant(org), waitedMs: Date.now() - w.enqueuedAt });
        granted = true;
        break;
      }
      if (!granted) return; // every waiting organization is at its cap
    }
  }

  private removeWaiter(w: Waiter): boolean {
    const q = this.waiting.get(w.org);
    const i = q ? q.indexOf(w) : -1;
    if (!q || i < 0) return false;
    q.splice(i, 1);
    if (q.length === 0) this.waiting.delete(w.org);
    this.waitingCount--;
    return true;
  }
}
