// Latency of the agent endpoints and the A2A gateway over HTTP (each call is a workflow with
// its guard activity, engine activity and audit entry). Starts its own stack on private ports.
//
//   npx tsx bench/agents.ts [--requests 40] [--concurrency 1]
//
// Prints p50/p95/max per case: agent verify (math query; exfiltration-flagged query), agent tool
// call, gateway financial_transaction, logic_assertion, code_execution and general passthrough.
import { performance } from 'node:perf_hooks';
import { startBenchStack, percentile } from './bench-stack.js';

const args = process.argv.slice(2);
const arg = (name: string, def: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : def;
};
const N = arg('--requests', 40);
const C = arg('--concurrency', 1);

const { stack, base, key } = await startBenchStack('bench-agents', 970);
try {
  const json = { 'content-type': 'application/json' };
  const reg = await (
    await fetch(`${base}/agents/register`, {
      method: 'POST',
      headers: { ...json, 'x-api-key': key },
      body: JSON.stringify({
        name: 'bench',
        max_requests_per_hour: 1_000_000,
        max_cost_per_day: 1_000_000,
        permissions: { allowed_tools: ['calculator'], allowed_domains: ['example.com'] },
      }),
    })
  ).json();
  const a2aKey = Object.keys(JSON.parse(String(stack.env.SVC_A2A_API_KEYS)))[0] as string;
  const agentH = { ...json, 'x-agent-token': reg.agent_token as string };
  const a2aH = { ...json, 'x-api-key': a2aKey };
  const ctx = { conversation_id: 'bench', step_number: 1 };
  const msg = (payload_type: string, payload: Record<string, unknown>) => ({
    sender_agent_id: 'a',
    receiver_agent_id: 'b',
    payload_type,
    payload,
    engine_timeout_seconds: 30,
  });
  const cases: Array<{ name: string; path: string; headers: Record<string, string>; body: unknown; expect: number }> = [
    {
      name: 'agent verify: math identity',
      path: `/agents/${reg.id}/verify`,
      headers: agentH,
      body: { query: '(x+1)^2 = x^2 + 2*x + 1', context: ctx },
      expect: 200,
    },
    {
      name: 'agent verify: flagged (base64 secret)',
      path: `/agents/${reg.id}/verify`,
      headers: agentH,
      body: { query: `blob ${Buffer.from('AKIAIOSFODNN7EXAMPLE').toString('base64')}`, context: ctx },
      expect: 403,
    },
    {
      name: 'agent verify: prose, guards only (2 KB)',
      path: `/agents/${reg.id}/verify`,
      headers: agentH,
      body: { query: 'Summarise the report and list the risks. '.repeat(50), context: ctx },
      expect: 200,
    },
    {
      name: 'agent tool: calculator',
      path: `/agents/${reg.id}/tools/calculator`,
      headers: agentH,
      body: { arguments: { expression: '2+2' } },
      expect: 200,
    },
    {
      name: 'gateway: financial_transaction',
      path: '/a2a/intercept',
      headers: a2aH,
      body: msg('financial_transaction', {
        amount: '10.50',
        currency: 'USD',
        balance_before: '100.00',
        balance_after: '89.50',
      }),
      expect: 200,
    },
    {
      name: 'gateway: logic_assertion (Z3)',
      path: '/a2a/intercept',
      headers: a2aH,
      body: msg('logic_assertion', { query: '(AND (GT x 5) (LT x 9))', facts: { x: 7 } }),
      expect: 200,
    },
    {
      name: 'gateway: code_execution',
      path: '/a2a/intercept',
      headers: a2aH,
      body: msg('code_execution', { code: 'def f(a, b):\n    return a + b\n', language: 'python' }),
      expect: 200,
    },
    {
      name: 'gateway: general (passthrough)',
      path: '/a2a/intercept',
      headers: a2aH,
      body: msg('general', { text: 'hello' }),
      expect: 200,
    },
  ];
  console.log(`requests per case: ${N}, concurrency ${C}`);
  console.log(
    'case'.padEnd(44),
    'p50 ms'.padStart(8),
    'p95 ms'.padStart(8),
    'max ms'.padStart(8),
    'errors'.padStart(7),
  );
  for (const c of cases) {
    // Warm-up (engine start-up, first workflow of each type).
    for (let w = 0; w < 3; w++)
      await fetch(`${base}${c.path}`, { method: 'POST', headers: c.headers, body: JSON.stringify(c.body) });
    const times: number[] = [];
    let errors = 0;
    let next = 0;
    const worker = async () => {
      while (next < N) {
        next++;
        const t = performance.now();
        const res = await fetch(`${base}${c.path}`, {
          method: 'POST',
          headers: c.headers,
          body: JSON.stringify(c.body),
        });
        await res.arrayBuffer();
        times.push(performance.now() - t);
        if (res.status !== c.expect) errors++;
      }
    };
    await Promise.all(Array.from({ length: C }, worker));
    times.sort((a, b) => a - b);
    console.log(
      c.name.padEnd(44),
      percentile(times, 50).toFixed(0).padStart(8),
      percentile(times, 95).toFixed(0).padStart(8),
      (times[times.length - 1] ?? 0).toFixed(0).padStart(8),
      String(errors).padStart(7),
    );
  }
} finally {
  await stack.down();
}
