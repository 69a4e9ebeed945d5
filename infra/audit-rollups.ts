// Rebuilds the audit chain's verdict roll-ups from the chain itself (persistence/audit.ts):
// each organization's roll-up (`audit_rollups`) is a cache of its entries' counts, the chain is
// the truth. Reads positions 1..head by point lookups and stores the result, so it can run
// beside a live service (appends that move the head meanwhile are counted).
// Chains without a roll-up (written before roll-ups existed) are also rebuilt on first read, in
// the background; this command does it for every organization at once (after a restore, or to
// check): `--check` only compares and reports.
//   npx tsx infra/audit-rollups.ts [--org <org_id>] [--check]     (store: MONGODB_URI)
import { loadConfig } from '../core/config.js';
import { Store } from '../core/store.js';
import { AuditLog } from '../persistence/audit.js';

const args = process.argv.slice(2);
const orgArg = args.includes('--org') ? args[args.indexOf('--org') + 1] : undefined;
const check = args.includes('--check');

const store = await Store.connect(loadConfig().MONGODB_URI);
try {
  const log = new AuditLog(store);
  const orgs = orgArg ? [orgArg] : (await log.allRollups()).map((r) => r.orgId);
  let differing = 0;
  for (const orgId of orgs) {
    const before = await log.rollup(orgId);
    const rebuilt = check ? await log.computeRollup(orgId) : await log.rebuildRollup(orgId);
    const same = JSON.stringify(before.rollup) === JSON.stringify(rebuilt);
    if (!same) differing++;
    console.log(
      `${orgId}: ${rebuilt.seq} entries, roll-up ${before.rollup === null ? 'missing' : same ? 'matches the chain' : 'differed from the chain'}${check ? '' : same ? '' : ' (rebuilt)'}`,
    );
  }
  console.log(`${orgs.length} organizations, ${differing} roll-ups ${check ? 'differ' : 'rebuilt'}`);
  process.exitCode = check && differing > 0 ? 1 : 0;
} finally {
  await store.close();
}
