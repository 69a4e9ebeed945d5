// PGlite (PostgreSQL compiled to WebAssembly) in a worker thread, for pg-check.ts. Plain ESM
// JavaScript so it runs unchanged under node, tsx and vitest. PGlite's start-up (WASM compile
// + initdb) and every check run here, never on the caller's event loop.
//
// Messages in:  { type: 'check', id, query, createSql, schemaName, cacheable }
// Messages out: { type: 'ready', version } | { type: 'boot_failed', message }
//               | { type: 'result', id, ok, columns?, sqlstate?, message?, ms, schemaCached }
//               | { type: 'unavailable', id, reason }
// The query is only parsed and described (extended protocol Parse + Describe): never executed.
import { parentPort, workerData } from 'node:worker_threads';

const SCHEMA_CACHE_SIZE = workerData?.schemaCacheSize ?? 16;
const quoteIdent = (s) => `"${String(s).replace(/"/g, '""')}"`;
const messageOf = (err) => {
  const m = err instanceof Error ? err.message : String(err);
  return m.length > 300 ? `${m.slice(0, 300)}…` : m;
};

let db;
try {
  const { PGlite } = await import('@electric-sql/pglite');
  db = await PGlite.create();
  const v = await db.query('SHOW server_version');
  parentPort.postMessage({ type: 'ready', version: v.rows[0]?.server_version ?? null });
} catch (err) {
  parentPort.postMessage({ type: 'boot_failed', message: messageOf(err) });
  process.exit(1);
}

const cached = new Map(); // schema name -> true, in LRU order

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
        return { type: 'unavailable', id: msg.id, reason: `the declared tables could not be created in PostgreSQL: ${messageOf(err)}` };
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
        return { type: 'unavailable', id: msg.id, reason: `the declared tables could not be created in PostgreSQL: ${messageOf(err)}` };
      }
    }
    await db.exec(`SET LOCAL search_path TO ${msg.searchPath.map(quoteIdent).join(', ')}`);
    try {
      const d = await db.describeQuery(msg.query);
      return { type: 'result', id: msg.id, ok: true, columns: d.resultFields.map((f) => ({ name: f.name, type_oid: f.dataTypeID })), ms: performance.now() - t0, schemaCached };
    } catch (err) {
      const sqlstate = typeof err?.code === 'string' ? err.code : '';
      if (sqlstate === '') return { type: 'unavailable', id: msg.id, reason: `PostgreSQL check failed: ${messageOf(err)}` };
      return { type: 'result', id: msg.id, ok: false, sqlstate, message: messageOf(err), ms: performance.now() - t0, schemaCached };
    }
  } finally {
    // Nothing of the request survives it (the cached schemas hold only the declared tables).
    await db.exec('ROLLBACK').catch(() => undefined);
  }
}

let chain = Promise.resolve();
parentPort.on('message', (msg) => {
  if (msg?.type !== 'check') return;
  chain = chain.then(async () => {
    try {
      parentPort.postMessage(await check(msg));
    } catch (err) {
      parentPort.postMessage({ type: 'unavailable', id: msg.id, reason: `PostgreSQL check failed: ${messageOf(err)}` });
    }
  });
});
