// Store command capture (issue 22): records every command a process sends to the store, with
// the code site that issued it, through the mongodb driver's command monitoring
// (`monitorCommands`, 'commandStarted' / 'commandSucceeded' / 'commandFailed').
//
// Plain JavaScript so that it preloads into the service's compiled processes without tsx:
//   NODE_OPTIONS="--enable-source-maps --import /abs/path/test/store-commands/capture.mjs"
//   SVC_STORE_CAPTURE_DIR=/some/dir
// Every MongoClient the process connects is switched to command monitoring before its first
// connect; each command is appended, one JSON object a line, to <dir>/<role>-<pid>.jsonl.
// Without SVC_STORE_CAPTURE_DIR the module does nothing (a child process that inherits
// NODE_OPTIONS but not the variable pays nothing).
//
// Values never reach the file: filters, updates and documents are reduced to their shape
// (field names and operators, every value replaced by its type), so no secret, digest or
// user text is written. test/store-commands/classify.ts reads the files.
import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { isMainThread } from 'node:worker_threads';

const DIR = process.env.SVC_STORE_CAPTURE_DIR;

/** Reduces a value to its shape: operators and field names kept, leaves replaced by their type. */
export function shapeOf(value, depth = 0) {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (depth > 6) return '…';
  if (Array.isArray(value))
    return value.length === 0 ? [] : [shapeOf(value[0], depth + 1), ...(value.length > 1 ? [`…${value.length}`] : [])];
  if (value instanceof Date) return 'date';
  if (typeof value === 'object') {
    const bsonType = value._bsontype;
    if (bsonType) return bsonType.toLowerCase();
    if (Buffer.isBuffer(value) || value instanceof Uint8Array) return 'binary';
    const out = {};
    for (const [k, v] of Object.entries(value)) out[k] = shapeOf(v, depth + 1);
    return out;
  }
  return typeof value;
}

/** The parts of a command that say what it reads and writes, as shapes (no values). */
export function describeCommand(name, cmd) {
  const coll = typeof cmd[name] === 'string' ? cmd[name] : null;
  const d = { cmd: name, coll };
  switch (name) {
    case 'find':
      d.filter = shapeOf(cmd.filter ?? {});
      if (cmd.sort) d.sort = cmd.sort instanceof Map ? Object.fromEntries(cmd.sort) : cmd.sort;
      if (cmd.projection) d.projection = Object.keys(cmd.projection);
      if (cmd.limit !== undefined) d.limit = cmd.limit;
      if (cmd.singleBatch) d.single = true;
      break;
    case 'insert':
      d.n = cmd.documents?.length ?? 0;
      d.doc = cmd.documents?.[0] ? Object.keys(cmd.documents[0]) : [];
      break;
    case 'update':
      d.n = cmd.updates?.length ?? 0;
      d.ops = (cmd.updates ?? []).slice(0, 50).map((u) => ({
        filter: shapeOf(u.q ?? {}),
        update: Array.isArray(u.u) ? 'pipeline' : Object.keys(u.u ?? {}),
        ...(u.upsert ? { upsert: true } : {}),
        ...(u.multi ? { multi: true } : {}),
      }));
      break;
    case 'delete':
      d.n = cmd.deletes?.length ?? 0;
      d.ops = (cmd.deletes ?? [])
        .slice(0, 50)
        .map((x) => ({ filter: shapeOf(x.q ?? {}), ...(x.limit === 0 ? { multi: true } : {}) }));
      break;
    case 'findAndModify':
      d.filter = shapeOf(cmd.query ?? {});
      d.update = cmd.remove ? 'remove' : Array.isArray(cmd.update) ? 'pipeline' : Object.keys(cmd.update ?? {});
      if (cmd.upsert) d.upsert = true;
      if (cmd.sort) d.sort = cmd.sort;
      break;
    case 'count':
      d.filter = shapeOf(cmd.query ?? {});
      break;
    case 'aggregate':
      d.pipeline = (cmd.pipeline ?? []).map((st) => shapeOf(st));
      break;
    case 'distinct':
      d.key = cmd.key;
      d.filter = shapeOf(cmd.query ?? {});
      break;
    case 'getMore':
      d.coll = cmd.collection ?? null;
      break;
    case 'createIndexes':
      d.indexes = (cmd.indexes ?? []).map((i) => i.key);
      break;
    default:
      break;
  }
  return d;
}

const als = new AsyncLocalStorage();
const cursorSites = new WeakMap();

/**
 * The first stack frame outside the driver and this file: the code that issued the operation;
 * after a NUL, the next three such frames (its callers: which path of several sharing one
 * helper issued it, e.g. a background sweep or an admission reading all of `batch_slots`).
 */
function callSite() {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  const frames = [];
  for (const line of stack.split('\n').slice(1)) {
    if (line.includes('node_modules') || line.includes('store-commands/capture') || line.includes('node:')) continue;
    const m = /\(?((?:file:\/\/)?\/[^()]+?):(\d+):\d+\)?\s*$/.exec(line);
    if (!m) continue;
    let file = m[1].replace(/^file:\/\//, '');
    // The compiled twin (dist/service/<hash>/x.js) when source maps are off: name the source.
    file = file.replace(/.*\/dist\/service\/[0-9a-f]+\//, '').replace(/\.js$/, '.ts');
    const root = process.env.SVC_STORE_CAPTURE_ROOT;
    if (root && file.startsWith(root)) file = path.relative(root, file);
    frames.push(`${file}:${m[2]}`);
    if (frames.length === 4) break;
  }
  if (!frames.length) return 'unknown';
  return frames.length > 1 ? `${frames[0]}\u0000${frames.slice(1).join(' < ')}` : frames[0];
}

const COLLECTION_OPS = [
  'findOne',
  'insertOne',
  'insertMany',
  'updateOne',
  'updateMany',
  'replaceOne',
  'deleteOne',
  'deleteMany',
  'findOneAndUpdate',
  'findOneAndDelete',
  'findOneAndReplace',
  'countDocuments',
  'estimatedDocumentCount',
  'bulkWrite',
  'distinct',
  'createIndex',
  'createIndexes',
  'dropIndex',
  'listIndexes',
  'indexes',
];

let installed = false;

/** Patches the driver loaded by `requireFrom`'s resolution (default: this file's). Idempotent. */
export function installCapture(dir = DIR, requireFrom = import.meta.url) {
  if (installed || !dir) return;
  installed = true;
  mkdirSync(dir, { recursive: true });
  const role = path.basename(process.argv[1] ?? 'node').replace(/\.[cm]?[jt]s$/, '');
  const file = path.join(dir, `${role}-${process.pid}.jsonl`);
  const require = createRequire(requireFrom);
  const mongodb = require('mongodb');
  const { MongoClient, Collection, AbstractCursor } = mongodb;

  let buffer = [];
  const flush = () => {
    if (!buffer.length) return;
    const lines = buffer.join('');
    buffer = [];
    try {
      appendFileSync(file, lines);
    } catch {
      /* capture is best effort */
    }
  };
  setInterval(flush, 250).unref();
  process.on('exit', flush);

  for (const op of COLLECTION_OPS) {
    const orig = Collection.prototype[op];
    if (typeof orig !== 'function') continue;
    Collection.prototype[op] = function captured(...args) {
      return als.run(callSite(), () => orig.apply(this, args));
    };
  }
  for (const op of ['find', 'aggregate']) {
    const orig = Collection.prototype[op];
    Collection.prototype[op] = function captured(...args) {
      const cursor = orig.apply(this, args);
      cursorSites.set(cursor, callSite());
      return cursor;
    };
  }
  const fetchBatch = AbstractCursor.prototype.fetchBatch;
  if (typeof fetchBatch === 'function') {
    AbstractCursor.prototype.fetchBatch = function captured(...args) {
      const site = cursorSites.get(this);
      return site ? als.run(site, () => fetchBatch.apply(this, args)) : fetchBatch.apply(this, args);
    };
  }
  const dbCommand = mongodb.Db.prototype.command;
  mongodb.Db.prototype.command = function captured(...args) {
    return als.run(callSite(), () => dbCommand.apply(this, args));
  };

  const pending = new Map();
  const connect = MongoClient.prototype.connect;
  MongoClient.prototype.connect = function capturedConnect(...args) {
    if (!this.__svcCapture) {
      this.__svcCapture = true;
      this.monitorCommands = true;
      this.on('commandStarted', (ev) => {
        if (
          ev.commandName === 'hello' ||
          ev.commandName === 'isMaster' ||
          ev.commandName === 'saslStart' ||
          ev.commandName === 'saslContinue'
        )
          return;
        const [site, callers] = (als.getStore() ?? 'unknown').split('\u0000');
        const entry = {
          t: Date.now(),
          site,
          ...(callers ? { callers } : {}),
          ...describeCommand(ev.commandName, ev.command),
        };
        // Session 18: the POST /verify/batch that issued it (api/batch-post-trace.ts, when switched on).
        const tag = globalThis.__svcStoreTag?.();
        if (tag) entry.tag = tag;
        pending.set(ev.requestId, entry);
      });
      const done = (ok) => (ev) => {
        const entry = pending.get(ev.requestId);
        if (!entry) return;
        pending.delete(ev.requestId);
        entry.ms = Math.round(ev.duration * 100) / 100;
        if (!ok) entry.error = String(ev.failure?.codeName ?? ev.failure?.code ?? 'error');
        if (ok && entry.cmd === 'update') entry.nModified = ev.reply?.nModified;
        buffer.push(`${JSON.stringify(entry)}\n`);
        if (buffer.length >= 500) flush();
      };
      this.on('commandSucceeded', done(true));
      this.on('commandFailed', done(false));
    }
    return connect.apply(this, args);
  };
}

// Engine worker threads inherit the preload; they never talk to the store (and need no driver loaded).
if (isMainThread) installCapture();
