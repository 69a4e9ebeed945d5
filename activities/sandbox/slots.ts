// Per-process admission control for sandbox containers: at most SVC_SANDBOX_MAX_CONCURRENT
// containers run at once; a caller waits up to SVC_SANDBOX_ACQUIRE_TIMEOUT seconds for a slot
// (FIFO) and is then refused with SandboxCapacityError, which the HTTP layer maps to 503 and
// which never yields VERIFIED.

import { SANDBOX_CAPACITY_MESSAGE } from '../../contract/common.js';
import { processEnv } from '../../core/config.js';

export { SANDBOX_CAPACITY_MESSAGE };

export class SandboxCapacityError extends Error {
  readonly code = 'SANDBOX_CAPACITY';
  readonly httpStatus = 503;
  constructor() {
    super(SANDBOX_CAPACITY_MESSAGE);
    this.name = 'SandboxCapacityError';
  }
}

export interface SlotConfig {
  maxConcurrent: number;
  acquireTimeoutMs: number;
}

export const DEFAULT_MAX_CONCURRENT = 4;
export const DEFAULT_ACQUIRE_TIMEOUT_S = 10;

/**
 * Reads SVC_SANDBOX_MAX_CONCURRENT (positive integer, default 4) and SVC_SANDBOX_ACQUIRE_TIMEOUT
 * (seconds, may be fractional, >= 0, default 10). A malformed value throws: a mistyped limit must
 * be seen at start-up, not silently replaced by a default.
 */
export function slotConfigFromEnv(env: NodeJS.ProcessEnv): SlotConfig {
  const maxRaw = env.SVC_SANDBOX_MAX_CONCURRENT?.trim();
  const waitRaw = env.SVC_SANDBOX_ACQUIRE_TIMEOUT?.trim();
  let maxConcurrent = DEFAULT_MAX_CONCURRENT;
  if (maxRaw) {
    if (!/^[0-9]+$/.test(maxRaw) || Number(maxRaw) < 1) {
      throw new Error(`SVC_SANDBOX_MAX_CONCURRENT must be a positive integer, got "${maxRaw}"`);
    }
    maxConcurrent = Number(maxRaw);
  }
  let acquireTimeoutMs = DEFAULT_ACQUIRE_TIMEOUT_S * 1000;
  if (waitRaw) {
    if (!/^[0-9]+(\.[0-9]+)?$/.test(waitRaw)) {
      throw new Error(`SVC_SANDBOX_ACQUIRE_TIMEOUT must be a number of seconds >= 0, got "${waitRaw}"`);
    }
    acquireTimeoutMs = Math.round(Number(waitRaw) * 1000);
  }
  return { maxConcurrent, acquireTimeoutMs };
}

/** Gives back a slot; calling it more than once has no further effect. */
export type ReleaseSlot = () => void;

interface Waiter {
  grant: (release: ReleaseSlot) => void;
  timer: NodeJS.Timeout;
}

export class SlotPool {
  readonly maxConcurrent: number;
  readonly acquireTimeoutMs: number;
  private active = 0;
  private readonly queue: Waiter[] = [];

  constructor(config: SlotConfig) {
    if (!Number.isInteger(config.maxConcurrent) || config.maxConcurrent < 1) {
      throw new RangeError('maxConcurrent must be a positive integer');
    }
    if (!Number.isFinite(config.acquireTimeoutMs) || config.acquireTimeoutMs < 0) {
      throw new RangeError('acquireTimeoutMs must be >= 0');
    }
    this.maxConcurrent = config.maxConcurrent;
    this.acquireTimeoutMs = config.acquireTimeoutMs;
  }

  get inUse(): number {
    return this.active;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves with a release function once a slot is held; rejects with SandboxCapacityError after the wait. */
  acquire(): Promise<ReleaseSlot> {
    if (this.active < this.maxConcurrent) {
      this.active++;
      return Promise.resolve(this.makeRelease());
    }
    return new Promise<ReleaseSlot>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(new SandboxCapacityError());
        }, this.acquireTimeoutMs),
      };
      this.queue.push(waiter);
    });
  }

  private makeRelease(): ReleaseSlot {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) {
        // Hand the slot straight to the oldest waiter: `active` stays the same.
        clearTimeout(next.timer);
        next.grant(this.makeRelease());
      } else {
        this.active--;
      }
    };
  }
}

let processPool: SlotPool | undefined;

/** The process-wide pool, configured from the environment on first use. */
export function sandboxSlots(): SlotPool {
  processPool ??= new SlotPool(slotConfigFromEnv(processEnv()));
  return processPool;
}
