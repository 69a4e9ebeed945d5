// Test preload: makes a service process's writes into chosen collections fail, to prove over
// HTTP that a verdict never leaves without the write it depends on (test/http/guarantees-s17.serial.test.ts:
// no verdict without its audit entry, no VERIFIED without its retained proof).
//
//   NODE_OPTIONS="--import /abs/path/test/http/store-fail.mjs"
//   SVC_TEST_STORE_FAIL_FILE=/abs/path/to/fail.json   (a JSON array of collection names)
//
// The file is read on every write, so a test switches the failing collections while the process
// runs ([] fails nothing; a missing file too). Every `insert`/`update` command (the driver's
// `db.command`, which the audit chain and the insert coalescer send) and every insert/update/
// bulkWrite method on a listed collection throws before anything is sent. Each refusal is
// logged to stderr ("store-fail: <collection> refused"), so the test can tell the failures happened.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const file = process.env.SVC_TEST_STORE_FAIL_FILE;

if (file) {
  const require = createRequire(import.meta.url);
  const mongodb = require('mongodb');
  const counts = {};
  const failing = () => {
    try {
      return new Set(JSON.parse(readFileSync(file, 'utf8')));
    } catch {
      return new Set();
    }
  };
  const check = (coll) => {
    if (typeof coll !== 'string' || !failing().has(coll)) return;
    counts[coll] = (counts[coll] ?? 0) + 1;
    process.stderr.write(`store-fail: ${coll} refused (${counts[coll]})\n`);
    throw new Error(`store-fail: write to ${coll} refused (injected)`);
  };
  const command = mongodb.Db.prototype.command;
  mongodb.Db.prototype.command = async function failing(cmd, ...rest) {
    if (cmd && typeof cmd === 'object') check(cmd.insert ?? cmd.update);
    return command.call(this, cmd, ...rest);
  };
  for (const op of ['insertOne', 'insertMany', 'updateOne', 'updateMany', 'replaceOne', 'bulkWrite']) {
    const orig = mongodb.Collection.prototype[op];
    mongodb.Collection.prototype[op] = async function failing(...args) {
      check(this.collectionName);
      return orig.apply(this, args);
    };
  }
}
