// Group commit for point updates by `_id` (session 20, issue 22: the admission at the job limit).
// The first update goes out at once; the ones that arrive while it is in flight are sent together
// as one unordered `update` command when it returns (as persistence/insert-coalescer.ts does for
// inserts). Each statement is still its caller's own (`{_id}` filter, its own update document):
// grouping changes how many commands carry them, not what any of them writes. Two updates of one
// `_id` never share a command: the later one waits for the next, so their order is kept.
//
// Why: at SVC_BATCH_MAX_JOBS every admission evicts, and each sent its slot's write as a command
// of its own, a commit racing the burst's other commits for SQLite's one writer (docs/performance.md
// "Session 20: the POST's slow rounds": ~24 ms more per evicting POST than for a new slot number).
import type { Db, Document } from 'mongodb';
import { insertReplyError as replyError } from './insert-coalescer.js';

/** Most statements sent in one update command. */
const MAX_BATCH = 100;

/** One statement of an `update` command: a point update by `_id`, never an upsert. */
export interface UpdateStatement {
  q: { _id: string };
  u: Document;
}

/** The reply of an `update` command: statements that failed are named by index. */
export interface UpdateReply {
  n?: number;
  nModified?: number;
  writeErrors?: Array<{ index: number; code?: number; errmsg?: string }>;
  writeConcernError?: { code?: number; errmsg?: string };
}

export type UpdateSender = (updates: UpdateStatement[]) => Promise<UpdateReply>;

/** The store's unordered `update` command on collection `name` of `db()`. */
export function updateCommand(db: () => Db, name: string): UpdateSender {
  return (updates) =>
    db().command({
      update: name,
      updates: updates.map((s) => ({ q: s.q, u: s.u, multi: false, upsert: false })),
      ordered: false,
    }) as Promise<UpdateReply>;
}

interface Pending {
  st: UpdateStatement;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class UpdateCoalescer {
  private queue: Pending[] = [];
  private flushing = false;

  constructor(private readonly send: UpdateSender) {}

  /** Applies `u` to the document with `_id` `id` (no upsert). Resolves once the store acknowledged it. */
  update(id: string, u: Document): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ st: { q: { _id: id }, u }, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    try {
      while (this.queue.length > 0) {
        // Up to MAX_BATCH statements of distinct ids, in arrival order; a second update of an id waits for the next command.
        const ids = new Set<string>();
        const batch: Pending[] = [];
        const rest: Pending[] = [];
        for (const p of this.queue) {
          if (batch.length < MAX_BATCH && !ids.has(p.st.q._id)) {
            ids.add(p.st.q._id);
            batch.push(p);
          } else rest.push(p);
        }
        this.queue = rest;
        await this.write(batch);
      }
    } finally {
      this.flushing = false;
    }
  }

  private async write(batch: Pending[]): Promise<void> {
    let reply: UpdateReply;
    try {
      reply = await this.send(batch.map((p) => p.st));
    } catch (err) {
      for (const p of batch) p.reject(err); // the command failed as a whole: every caller fails (fail closed)
      return;
    }
    // Not known to be durable: every caller fails.
    if (reply.writeConcernError) {
      const err = replyError(reply.writeConcernError, 'write concern error');
      for (const p of batch) p.reject(err);
      return;
    }
    const failed = new Map((reply.writeErrors ?? []).map((e) => [e.index, e] as const));
    batch.forEach((p, i) => {
      const e = failed.get(i);
      if (e) p.reject(replyError(e, 'update failed'));
      else p.resolve();
    });
  }
}
