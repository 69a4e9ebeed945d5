// The shared extra processes of the HTTP suite (session 19, test/http/extra-process.ts): one
// process per kind and environment, whatever the order of its keys, however many files ask at
// once; a failed start is not kept; a process outlives its last user by the linger only;
// stopAll stops each once and a later request starts anew.
import { describe, expect, it, vi } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { SharedProcesses, sharedKey, type SharedRequest } from '../http/extra-process.js';

class Scripted extends SharedProcesses {
  readonly asked: SharedRequest[] = [];
  stops = 0;
  failNext = false;
  /** The processes started, in order: a row can make one exit (as a crash would). */
  readonly procs: Array<{ running: boolean }> = [];
  constructor(
    lingerMs = 60_000,
    private readonly startMs = 20,
  ) {
    super(() => ({ stackEnv: {}, dataDir: '/nonexistent' }), lingerMs);
  }
  protected override async start(req: SharedRequest) {
    const n = this.asked.push(req);
    if (this.startMs > 0) await new Promise((r) => setTimeout(r, this.startMs));
    if (this.failNext) {
      this.failNext = false;
      throw new Error('did not start');
    }
    const state = { running: true };
    this.procs.push(state);
    const proc = {
      spec: { name: `shared-${req.name}` },
      get running() {
        return state.running;
      },
      stop: async () => {
        this.stops++;
        state.running = false;
        return 'exited' as const;
      },
    } as unknown as ManagedProcess;
    return { proc, url: req.kind === 'api' ? `http://127.0.0.1:${1000 + n}` : null };
  }
}

describe('sharedKey', () => {
  it('is the kind and the environment, whatever the order of its keys', () => {
    expect(sharedKey('api', { A: '1', B: '2' })).toBe(sharedKey('api', { B: '2', A: '1' }));
    expect(sharedKey('api', { A: '1' })).not.toBe(sharedKey('worker', { A: '1' }));
    expect(sharedKey('api', { A: '1' })).not.toBe(sharedKey('api', { A: '2' }));
  });

  it('tells a deleted variable (undefined) from one left as the stack has it (absent)', () => {
    expect(sharedKey('api', { A: undefined })).not.toBe(sharedKey('api', {}));
    expect(sharedKey('api', { A: undefined })).not.toBe(sharedKey('api', { A: '' }));
  });
});

describe('SharedProcesses', () => {
  it('files asking at once for the same environment get one process; another environment gets its own', async () => {
    const shared = new Scripted();
    const asks = await Promise.all([
      shared.acquire({ kind: 'api', name: 'a', env: { X: '1', Y: undefined } }),
      shared.acquire({ kind: 'api', name: 'b', env: { Y: undefined, X: '1' } }),
      shared.acquire({ kind: 'api', name: 'c', env: { X: '2' } }),
    ]);
    expect(shared.asked.map((r) => r.name)).toEqual(['a', 'c']);
    expect(asks[0]).toEqual(asks[1]);
    expect(asks[0]).toEqual({ url: 'http://127.0.0.1:1001', name: 'shared-a' });
    expect(asks[2]!.url).not.toBe(asks[0]!.url);
    expect(shared.counts).toEqual({ starts: 2, requests: 3 });
  });

  it('a failed start is not kept: the next asker starts it again', async () => {
    const shared = new Scripted();
    shared.failNext = true;
    await expect(shared.acquire({ kind: 'worker', name: 'w', env: { SVC_TASK_QUEUE: 'q' } })).rejects.toThrow(
      'did not start',
    );
    await expect(shared.acquire({ kind: 'worker', name: 'w', env: { SVC_TASK_QUEUE: 'q' } })).resolves.toEqual({
      url: null,
      name: 'shared-w',
    });
    expect(shared.asked).toHaveLength(2);
  });

  it('stopAll stops each process once; a later request starts a new one', async () => {
    const shared = new Scripted();
    await shared.acquire({ kind: 'api', name: 'a', env: {} });
    await shared.acquire({ kind: 'api', name: 'a', env: {} });
    await shared.stopAll();
    await shared.stopAll();
    expect(shared.stops).toBe(1);
    await shared.acquire({ kind: 'api', name: 'a', env: {} });
    expect(shared.asked).toHaveLength(2);
  });

  it('stopped a linger after its last user released it; asked for again within the linger, it is the same process', async () => {
    vi.useFakeTimers();
    try {
      const shared = new Scripted(30_000, 0);
      const req: SharedRequest = { kind: 'api', name: 'a', env: { X: '1' } };
      await shared.acquire(req);
      await shared.acquire(req);
      shared.release(req);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(shared.stops).toBe(0); // one user left
      shared.release(req);
      await vi.advanceTimersByTimeAsync(29_000);
      await shared.acquire(req); // within the linger: kept
      expect(shared.asked).toHaveLength(1);
      shared.release(req);
      shared.release(req); // a second release of the same user changes nothing
      await vi.advanceTimersByTimeAsync(29_000);
      expect(shared.stops).toBe(0);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(shared.stops).toBe(1);
      await shared.acquire(req); // after it: a new process
      expect(shared.asked).toHaveLength(2);
      shared.release({ kind: 'worker', name: 'none', env: {} }); // never asked for: nothing to release
    } finally {
      vi.useRealTimers();
    }
  });

  it('one that crashed is started again for the next asker, not handed out dead; the holds of the files that had it carry over', async () => {
    vi.useFakeTimers();
    try {
      const shared = new Scripted(30_000, 0);
      const req: SharedRequest = { kind: 'api', name: 'a', env: { X: '1' } };
      const first = await shared.acquire(req); // file 1 holds it
      shared.procs[0]!.running = false; // it crashes
      const second = await shared.acquire(req); // file 2
      expect(shared.asked).toHaveLength(2);
      expect(second.url).not.toBe(first.url);
      expect(shared.counts).toEqual({ starts: 2, requests: 2 });
      expect(await shared.acquire(req)).toEqual(second); // file 3: alive, shared as before
      shared.release(req); // file 3
      shared.release(req); // file 1's release counts against the new one: still held by file 2
      await vi.advanceTimersByTimeAsync(60_000);
      expect(shared.stops).toBe(0);
      expect(shared.procs[1]!.running).toBe(true);
      shared.release(req);
      await vi.advanceTimersByTimeAsync(30_000);
      expect(shared.stops).toBe(1);
      expect(shared.procs[1]!.running).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });
});
