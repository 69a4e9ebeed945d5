// Prints `export SVC_API_KEY=… SVC_BEARER_TOKEN=… SVC_FUZZ_ORG_ID=…` for a fresh enterprise
// tenant of a running dev stack (signup, plan lifted to enterprise in the store as the benches
// do, one API key with every scope), for bench/fuzz-openapi.sh:
//   eval "$(npx tsx bench/fuzz-tenant.ts http://127.0.0.1:8500 mongodb://127.0.0.1:27517/svc)"
import { MongoClient } from 'mongodb';

const [base = 'http://127.0.0.1:8000', mongo = 'mongodb://127.0.0.1:27017/svc'] = process.argv.slice(2);
const json = { 'content-type': 'application/json' };

async function call(path: string, init: RequestInit): Promise<any> {
  const res = await fetch(`${base}${path}`, init);
  const body = await res.json().catch(() => null);
  // 429 here is the per-IP limit of anonymous /auth/* (a fuzz run spends it): wait its window.
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body;
}

const email = `fuzz-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`;
const su = await call('/auth/signup', {
  method: 'POST',
  headers: json,
  body: JSON.stringify({ email, password: 'fuzzing password 1', organization_name: 'fuzz' }),
});
const mc = new MongoClient(mongo);
await mc.connect();
await mc
  .db()
  .collection('organizations')
  .updateOne({ _id: su.user.org_id }, { $set: { plan: 'enterprise' } });
await mc.close();
const created = await call('/auth/api-keys', {
  method: 'POST',
  headers: { ...json, authorization: `Bearer ${su.access_token}` },
  body: JSON.stringify({ name: 'fuzz' }),
});
console.log(`export SVC_API_KEY=${created.key} SVC_BEARER_TOKEN=${su.access_token} SVC_FUZZ_ORG_ID=${su.user.org_id}`);
