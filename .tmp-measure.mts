// TEMPORARY measurement script (helper 7): per-phase latency of /verify/math with audit appends.
import { Stack } from './infra/stack.js';
import { Client, Connection } from '@temporalio/client';
import { MongoClient } from 'mongodb';
const N = Number(process.argv[2] ?? 200), C = Number(process.argv[3] ?? 25);
const ports = { temporal: 27233, temporalUi: 28233, ferret: 47017, api: 28000 };
const stack = new Stack({ profile: 'helper7m' as any, ports, fresh: true, env: { SVC_AUTH_TRUSTED_PROXIES: '127.0.0.1,::1' } });
await stack.up();
try {
  const api = stack.apiUrl;
  const post = async (p: string, body: unknown, h: Record<string, string> = {}) => { const r = await fetch(api + p, { method: 'POST', headers: { 'content-type': 'application/json', ...h }, body: JSON.stringify(body) }); return { status: r.status, headers: r.headers, body: await r.json().catch(() => null) }; };
  const s = await post('/auth/signup', { email: `m${Date.now()}@example.test`, password: 'correct horse battery staple 42', organization_name: 'M' });
  const m = new MongoClient(stack.mongodbUri); await m.connect();
  await m.db().collection('organizations').updateOne({ _id: s.body.user.org_id }, { $set: { plan: 'enterprise' } });
  const k = await post('/auth/api-keys', { name: 'k' }, { authorization: `Bearer ${s.body.access_token}` });
  const key = k.body.key;
  // warm-up
  for (let i = 0; i < 5; i++) await post('/verify/math', { expression: `(x+${i})^2 = x^2 + ${2 * i}*x + ${i * i}` }, { 'x-api-key': key });
  const ids: string[] = []; const lat: number[] = []; let fails = 0; let next = 0;
  const t0 = Date.now();
  await Promise.all(Array.from({ length: C }, async () => { while (next < N) { const i = next++; const t = Date.now(); const r = await post('/verify/math', { expression: `(x+${i})^2 = x^2 + ${2 * i}*x + ${i * i}` }, { 'x-api-key': key }); lat.push(Date.now() - t); if (r.status !== 200) fails++; ids.push(r.headers.get('x-workflow-id')!); } }));
  const ms = Date.now() - t0;
  lat.sort((a, b) => a - b);
  console.log(JSON.stringify({ N, C, ms, per_s: +(N / (ms / 1000)).toFixed(1), fails, p50: lat[N >> 1], p90: lat[Math.floor(N * 0.9)], max: lat[N - 1] }));
  const conn = await Connection.connect({ address: `127.0.0.1:${ports.temporal}` });
  const client = new Client({ connection: conn });
  const phases: Record<string, number[]> = {};
  for (const id of ids.filter((_, i) => i % Math.max(1, Math.floor(N / 40)) === 0)) {
    const h = await client.workflow.getHandle(id).fetchHistory();
    const ev = h.events ?? [];
    const t = (e: any) => Number(e.eventTime.seconds) * 1000 + Math.floor(e.eventTime.nanos / 1e6);
    const sched: Record<string, { type: string; t: number }> = {};
    let started = 0;
    for (const e of ev) {
      if (e.workflowExecutionStartedEventAttributes) started = t(e);
      if (e.activityTaskScheduledEventAttributes) sched[String(e.eventId)] = { type: e.activityTaskScheduledEventAttributes.activityType!.name!, t: t(e) };
      const done = e.activityTaskCompletedEventAttributes;
      if (done) { const sc = sched[String(done.scheduledEventId)]; (phases[sc.type] ??= []).push(t(e) - sc.t); }
      const st = e.activityTaskStartedEventAttributes;
      if (st) { const sc = sched[String(st.scheduledEventId)]; (phases[sc.type + ':queue'] ??= []).push(t(e) - sc.t); }
      if (e.workflowExecutionCompletedEventAttributes) (phases.workflow ??= []).push(t(e) - started);
    }
  }
  for (const [k2, v] of Object.entries(phases)) { v.sort((a, b) => a - b); console.log(k2, 'p50', v[v.length >> 1], 'p90', v[Math.floor(v.length * 0.9)], 'max', v[v.length - 1]); }
  const chain = await m.db().collection('audit_logs').find({ organization_id: s.body.user.org_id }).sort({ seq: 1 }).toArray();
  console.log('chain', chain.length, chain.every((e: any, i) => e.seq === i + 1 && (i === 0 || e.previous_hash === chain[i - 1].entry_hash)));
  await conn.close(); await m.close();
} finally {
  await stack.down();
}
