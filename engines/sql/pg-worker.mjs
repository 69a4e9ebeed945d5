// PGlite (PostgreSQL compiled to WebAssembly) in a child process of the worker (pg-check.ts
// forks it: stopping it at an idle release returns all of its memory, which a thread's exit did
// not: about 275 MB stayed in the allocator's arenas), or in a worker thread. Plain ESM
// JavaScript so it runs unchanged under node, tsx and vitest. PGlite's start-up (WASM compile
// + initdb) and every check run here, never on the caller's event loop.
//
// Messages in:  { type: 'init', schemaCacheSize, settings, dataDir?, disk? } (first, as a child
//               process; a thread gets the same as workerData; dataDir: the gzip dump of a fresh
//               data directory a first start sent back: a restart loads it instead of running
//               initdb; disk: { template, live } (session 18): PostgreSQL's files on disk instead
//               of PGlite's in-memory file system: `live` is made a copy of the unpacked fresh
//               data directory `template` (built here first when it is missing) and opened)
//               | { type: 'check', id, query, createSql, schemaName, cacheable }
// Messages out: { type: 'ready', version, dataDir? } | { type: 'boot_failed', message }
//                 (dataDir, disk only: 'copied' | 'loaded' | 'initdb', how the template came to be)
//               | { type: 'data_dir', dump } (after a start that ran initdb: the fresh data directory)
//               | { type: 'result', id, ok, columns?, tree?, sqlstate?, message?, ms, schemaCached }
//                 (tree: PostgreSQL's analysed parse tree text and the names of the relations,
//                 functions and operators it refers to by oid; null when not available)
//               | { type: 'unavailable', id, reason }
// The query is only parsed and described (extended protocol Parse + Describe): never executed.
import { Blob } from 'node:buffer';
import { cpSync, existsSync, renameSync, rmSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';

/** The parent: the thread's port, or the child process's IPC channel (ends with the parent). */
const port = parentPort ?? {
  postMessage: (msg) => process.send(msg),
  on: (event, fn) => process.on(event, fn),
};
if (!parentPort) process.on('disconnect', () => process.exit(0));
const init = parentPort
  ? workerData
  : await new Promise((resolve) => process.once('message', (msg) => resolve(msg?.type === 'init' ? msg : {})));
const SCHEMA_CACHE_SIZE = init?.schemaCacheSize ?? 16;
const quoteIdent = (s) => `"${String(s).replace(/"/g, '""')}"`;
const messageOf = (err) => {
  const m = err instanceof Error ? err.message : String(err);
  return m.length > 300 ? `${m.slice(0, 300)}…` : m;
};

let db;
try {
  const { PGlite } = await import('@electric-sql/pglite');
  // PostgreSQL settings from pg-check.ts (PG_SETTINGS: small buffers, the check reads only the catalog).
  const settings = Array.isArray(init?.settings) ? init.settings : [];
  const startParams = [...PGlite.defaultStartParams, ...settings.flatMap((kv) => ['-c', kv])];
  // A restart (after an idle release) loads the data directory the first start made: about a
  // third of the start time, initdb being most of it.
  const dataDir = init?.dataDir instanceof Uint8Array ? new Blob([init.dataDir]) : undefined;
  /** Before any check: the dump holds only what initdb made (no schema of a request). */
  const sendDump = async (pg) => {
    const dump = new Uint8Array(await (await pg.dumpDataDir('gzip')).arrayBuffer());
    port.postMessage({ type: 'data_dir', dump });
  };
  let made;
  if (init?.disk) {
    // Session 18: the data directory as files (NODEFS) instead of MEMFS. Memory mode holds the
    // 39 MB directory in this process and unpacks the dump at every start (gunzip + untar: the
    // start's ~60 MB transient); here the files live in the page cache and each start copies
    // the unpacked template (~1,000 files) instead: docs/performance.md, session 18.
    const { template, live } = init.disk;
    made = 'copied';
    if (!existsSync(template)) {
      // Built beside the live directory (the parent sweeps both if this process dies), shut
      // down cleanly, then renamed: a template that exists is whole. Another process's rename
      // may win the race: its template is as good.
      const tmp = `${live}-template`;
      rmSync(tmp, { recursive: true, force: true });
      const maker = await PGlite.create({ dataDir: tmp, startParams, ...(dataDir ? { loadDataDir: dataDir } : {}) });
      if (!dataDir) await sendDump(maker);
      await maker.close();
      try {
        renameSync(tmp, template);
      } catch {
        rmSync(tmp, { recursive: true, force: true });
      }
      made = dataDir ? 'loaded' : 'initdb';
    }
    rmSync(live, { recursive: true, force: true });
    cpSync(template, live, { recursive: true });
    db = await PGlite.create({ dataDir: live, startParams });
  } else {
    db = await PGlite.create({ startParams, ...(dataDir ? { loadDataDir: dataDir } : {}) });
    if (!dataDir) await sendDump(db);
  }
  const v = await db.query('SHOW server_version');
  // What initdb and the dump left (WASM memories, the tar): collected now, not at some later
  // allocation (the child process runs with --expose-gc; a thread has no gc and skips this).
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    await new Promise((r) => setTimeout(r, 50));
    globalThis.gc();
  }
  port.postMessage({ type: 'ready', version: v.rows[0]?.server_version ?? null, ...(made ? { dataDir: made } : {}) });
} catch (err) {
  port.postMessage({ type: 'boot_failed', message: messageOf(err) });
  process.exit(1);
}

const cached = new Map(); // schema name -> true, in LRU order
const TREE_MAX_CHARS = 8_000_000;

/** The catalog names behind the object ids of a parse tree (relations, functions, operators). */
async function namesOf(text) {
  const ids = (re) => [...new Set([...text.matchAll(re)].map((m) => m[1]).filter((v) => v !== '0'))];
  const relids = ids(/:relid (\d+)/g);
  const funcids = ids(/:(?:funcid|aggfnoid|winfnoid|opfuncid) (\d+)/g);
  const opnos = ids(/:opno (\d+)/g);
  const rows = async (sql, list) => (list.length === 0 ? [] : (await db.query(sql, [`{${list.join(',')}}`])).rows);
  const relations = {};
  for (const r of await rows(
    'SELECT c.oid::text AS oid, n.nspname AS schema, c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = ANY($1::oid[])',
    relids,
  )) {
    relations[r.oid] = { schema: r.schema, name: r.name };
  }
  const functions = {};
  for (const r of await rows(
    'SELECT p.oid::text AS oid, n.nspname AS schema, p.proname AS name, p.provolatile AS volatility FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE p.oid = ANY($1::oid[])',
    funcids,
  )) {
    functions[r.oid] = { schema: r.schema, name: r.name, volatility: r.volatility };
  }
  const operators = {};
  for (const r of await rows(
    'SELECT oid::text AS oid, oprname AS name FROM pg_operator WHERE oid = ANY($1::oid[])',
    opnos,
  ))
    operators[r.oid] = r.name;
  return { text, relations, functions, operators };
}

async function check(msg) {
  const t0 = performance.now();
  let schemaCached = false;
  if (msg.cacheable) {
    if (cached.has(msg.schemaName)) {
      cached.delete(msg.schemaName);
      cached.set(msg.schemaName, true);
      schemaCached = true;
    } else {
      try {
        await db.exec(`BEGIN; CREATE SCHEMA ${quoteIdent(msg.schemaName)};\n${msg.createSql}\nCOMMIT;`);
      } catch (err) {
        await db.exec('ROLLBACK').catch(() => undefined);
        return {
          type: 'unavailable',
          id: msg.id,
          reason: `the declared tables could not be created in PostgreSQL: ${messageOf(err)}`,
        };
      }
      cached.set(msg.schemaName, true);
      while (cached.size > SCHEMA_CACHE_SIZE) {
        const oldest = cached.keys().next().value;
        cached.delete(oldest);
        await db.exec(`DROP SCHEMA IF EXISTS ${quoteIdent(oldest)} CASCADE`).catch(() => undefined);
      }
    }
  }
  try {
    await db.exec('BEGIN');
    if (!msg.cacheable) {
      try {
        await db.exec(msg.createSql);
      } catch (err) {
        return {
          type: 'unavailable',
          id: msg.id,
          reason: `the declared tables could not be created in PostgreSQL: ${messageOf(err)}`,
        };
      }
    }
    await db.exec(`SET LOCAL search_path TO ${msg.searchPath.map(quoteIdent).join(', ')}`);
    // PostgreSQL's analysed parse tree (debug_print_parse, sent to us as a LOG notice): the
    // malice checks inspect it when node-sql-parser cannot read the query (pg-tree.ts).
    await db.exec(
      'SET LOCAL client_min_messages = log; SET LOCAL debug_print_parse = on; SET LOCAL debug_pretty_print = off',
    );
    const trees = [];
    try {
      const d = await db.describeQuery(msg.query, {
        onNotice: (n) => {
          if (n?.severity === 'LOG' && n.message === 'parse tree:' && typeof n.detail === 'string')
            trees.push(n.detail);
        },
      });
      await db.exec('SET LOCAL debug_print_parse = off; SET LOCAL client_min_messages = notice');
      const tree = trees.length === 1 && trees[0].length <= TREE_MAX_CHARS ? await namesOf(trees[0]) : null;
      return {
        type: 'result',
        id: msg.id,
        ok: true,
        columns: d.resultFields.map((f) => ({ name: f.name, type_oid: f.dataTypeID })),
        tree,
        ms: performance.now() - t0,
        schemaCached,
      };
    } catch (err) {
      const sqlstate = typeof err?.code === 'string' ? err.code : '';
      if (sqlstate === '')
        return { type: 'unavailable', id: msg.id, reason: `PostgreSQL check failed: ${messageOf(err)}` };
      // PostgreSQL's cursor position (1-based character offset into the query), when it gives one.
      const position = Number(err?.position);
      return {
        type: 'result',
        id: msg.id,
        ok: false,
        sqlstate,
        message: messageOf(err),
        ...(Number.isInteger(position) && position > 0 ? { position } : {}),
        ms: performance.now() - t0,
        schemaCached,
      };
    }
  } finally {
    // Nothing of the request survives it (the cached schemas hold only the declared tables).
    await db.exec('ROLLBACK').catch(() => undefined);
  }
}

let chain = Promise.resolve();
port.on('message', (msg) => {
  if (msg?.type !== 'check') return;
  chain = chain.then(async () => {
    try {
      port.postMessage(await check(msg));
    } catch (err) {
      port.postMessage({ type: 'unavailable', id: msg.id, reason: `PostgreSQL check failed: ${messageOf(err)}` });
    }
  });
});
