import { Store } from './core/store.js';
import { AuditLog } from './core/audit-log.js';
import { verifyChain } from './core/audit-chain.js';
const store = await Store.connect('mongodb://127.0.0.1:37117/auditexp');
const log = new AuditLog(store);
const org = process.argv[2] ?? 'org_x';
const n = Number(process.argv[3] ?? 100);
const conc = Number(process.argv[4] ?? 25);
const tag = process.argv[5] ?? 'p';
const started = Date.now();
let i = 0; let attemptsTotal = 0; let maxAttempts = 0;
async function worker() {
  while (i < n) {
    const k = i++;
    const r = await log.append({ organization_id: org, user_id: 'u', query: `q${k}`, result: { status: 'VERIFIED' }, verified: true, domain: 'math', timestamp: new Date() }, { logId: `log_${tag}_${k}`, secret: 's3cret', budgetMs: 30000 });
    attemptsTotal += r.attempts; maxAttempts = Math.max(maxAttempts, r.attempts);
  }
}
await Promise.all(Array.from({ length: conc }, worker));
const ms = Date.now() - started;
console.log(JSON.stringify({ tag, n, ms, per_s: Math.round(n / (ms / 1000)), attemptsTotal, maxAttempts }));
if (process.argv[6] === 'check') {
  const all = await log.logs.find({ organization_id: org }).sort({ seq: 1 }).toArray();
  const v = verifyChain(all, 's3cret');
  const seqOk = all.every((d, j) => d.seq === j + 1);
  const head = await log.heads.findOne({ _id: org });
  console.log(JSON.stringify({ count: all.length, seqOk, chainValid: v.valid, head: head?.seq, headOk: head?.head_hash === all[all.length - 1]?.entry_hash }));
}
await store.close();
