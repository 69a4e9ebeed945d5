// The gateway's engine pool: at most `maxRunning` engine runs at once and `maxQueued` waiting;
// a message beyond that is refused at once (engine_busy). Each run has a deadline covering its
// wait and its run (engine_timeout); a slot stays taken until its engine really finishes, so
// a timed-out engine still counts against the pool. Pure (timers only).

export class EngineBusyError extends Error {
  constructor() {
    super('engine pool is full');
    this.name = 'EngineBusyError';
  }
}

export class EngineTimeoutError extends Error {
  constructor() {
    super('engine deadline exceeded');
    this.name = 'EngineTimeoutError';
  }
}

interface Waiter {
  start: () => void;
  timer: ReturnType<typeof setTimeout>;
}

export class EnginePool {
  private running = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly maxRunning = 4,
    readonly maxQueued = 32,
  ) {}

  get stats(): { running: number; queued: number } {
    return { running: this.running, queued: this.queue.length };
  }

  run<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const begin = () => {
        this.running++;
        let settled = false;
        const remaining = Math.max(0, deadline - Date.now());
        const timer = setTimeout(() => {
          if (settled) return;
          settled = true;
          reject(new EngineTimeoutError());
        }, remaining);
        let p: Promise<T>;
        try {
          p = fn();
        } catch (err) {
          p = Promise.reject(err);
        }
        p.then(
          (v) => {
            if (!settled) {
              settled = true;
              clearTimeout(timer);
              resolve(v);
            }
          },
          (err) => {
            if (!settled) {
              settled = true;
              clearTimeout(timer);
              reject(err);
            }
          },
        ).finally(() => this.release());
      };
      if (this.running < this.maxRunning) return begin();
      if (this.queue.length >= this.maxQueued) return reject(new EngineBusyError());
      const waiter: Waiter = {
        start: begin,
        timer: setTimeout(
          () => {
            const i = this.queue.indexOf(waiter);
            if (i >= 0) this.queue.splice(i, 1);
            reject(new EngineTimeoutError());
          },
          Math.max(0, deadline - Date.now()),
        ),
      };
      this.queue.push(waiter);
    });
  }

  private release(): void {
    this.running--;
    const next = this.queue.shift();
    if (next) {
      clearTimeout(next.timer);
      next.start();
    }
  }
}
