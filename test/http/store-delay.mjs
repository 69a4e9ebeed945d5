// Test preload: delays a service process's inserts into chosen collections, to drive the real
// stack through slow store writes (test/http/batch-audit-delay-s16.test.ts: the audit chain's
// entries, positions and claims).
//
//   NODE_OPTIONS="--import /abs/path/test/http/store-delay.mjs"
//   SVC_TEST_STORE_DELAY='{"audit_seq":[0,3000],"audit_logs":[100,600]}'
//
// Each value is [min, max] milliseconds; every `insert` command (the driver's `db.command`,
// which the audit chain and the insert coalescer send) and every insertOne/insertMany on that
// collection waits a uniformly random time in the range before it is sent. Without the variable
// the module does nothing. Counts are printed to stderr ("store-delay:"), so the test can tell
// the delays happened.
import { createRequire } from 'node:module';

const spec = process.env.SVC_TEST_STORE_DELAY ? JSON.parse(process.env.SVC_TEST_STORE_DELAY) : null;

if (spec) {
  const require = createRequire(import.meta.url);
  const mongodb = require('mongodb');
  const counts = {};
  let longest = 0;
  const delayFor = (coll) => {
    const range = typeof coll === 'string' ? spec[coll] : undefined;
    if (!range) return 0;
    const ms = range[0] + Math.random() * (range[1] - range[0]);
    counts[coll] = (counts[coll] ?? 0) + 1;
    if (ms > longest) longest = ms;
    return ms;
  };
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const command = mongodb.Db.prototype.command;
  mongodb.Db.prototype.command = async function delayed(cmd, ...rest) {
    const ms = cmd && typeof cmd === 'object' && 'insert' in cmd ? delayFor(cmd.insert) : 0;
    if (ms > 0) await sleep(ms);
    return command.call(this, cmd, ...rest);
  };
  for (const op of ['insertOne', 'insertMany']) {
    const orig = mongodb.Collection.prototype[op];
    mongodb.Collection.prototype[op] = async function delayed(...args) {
      const ms = delayFor(this.collectionName);
      if (ms > 0) await sleep(ms);
      return orig.apply(this, args);
    };
  }
  setInterval(() => {
    if (Object.keys(counts).length > 0)
      process.stderr.write(`store-delay: ${JSON.stringify(counts)} longest ${Math.round(longest)} ms\n`);
  }, 2000).unref();
}
