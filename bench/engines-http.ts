// Benchmark: each deterministic engine over HTTP (through its workflow) next to the same engine
// called in-process, p50/p95 per engine. Starts its own stack on private ports.
//   npx tsx bench/engines-http.ts [--requests 60]
import { performance } from 'node:perf_hooks';
import { startBenchStack, percentile } from './bench-stack.js';
import { verifySql } from '../engines/sql/index.js';
import { validateSqlRequest } from '../engines/sql/index.js';
import { verifyProcess, validateProcessRequest } from '../engines/process.js';
import { verifyRag, validateRagRequest } from '../engines/rag.js';
import { solveLogic, shutdownLogicPool } from '../engines/logic/index.js';
import { scanCode } from '../engines/code/index.js';

const args = process.argv.slice(2);
const i = args.indexOf('--requests');
const N = i >= 0 ? Number(args[i + 1]) : 60;

const DDL =
  'CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT, email TEXT); CREATE TABLE orders (id INTEGER, user_id INTEGER, total REAL);';
const CASES: Array<{
  engine: string;
  path: string;
  body: Record<string, unknown>;
  inProcess: () => Promise<unknown> | unknown;
}> = [
  {
    engine: 'logic',
    path: '/verify/logic',
    body: { query: '(AND (GT x 5) (LT x 9) (EQ (MOD x 3) 1))' },
    inProcess: () => solveLogic('(AND (GT x 5) (LT x 9) (EQ (MOD x 3) 1))'),
  },
  {
    engine: 'sql',
    path: '/verify/sql',
    body: {
      query: 'SELECT u.name, SUM(o.total) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name',
      schema_ddl: DDL,
    },
    inProcess: () => {
      const r = validateSqlRequest({
        query: 'SELECT u.name, SUM(o.total) FROM users u JOIN orders o ON o.user_id = u.id GROUP BY u.name',
        schema_ddl: DDL,
      });
      if (r.ok) verifySql(r.value);
    },
  },
  {
    engine: 'code',
    path: '/verify/code',
    body: { code: 'import subprocess as sp\nimport re\np = re.compile("a")\nsp.run(["ls"])\n', language: 'python' },
    inProcess: () => scanCode('import subprocess as sp\nimport re\np = re.compile("a")\nsp.run(["ls"])\n', 'python'),
  },
  {
    engine: 'process',
    path: '/verify/process',
    body: { trace: 'The issue is X. The rule is Y. In this case Z. Therefore W.' },
    inProcess: () => {
      const r = validateProcessRequest({ trace: 'The issue is X. The rule is Y. In this case Z. Therefore W.' });
      if (r.ok) verifyProcess(r.value);
    },
  },
  {
    engine: 'rag',
    path: '/verify/rag',
    body: {
      target_document_id: 'd',
      chunks: [
        { id: 'a', metadata: { document_id: 'd' } },
        { id: 'b', metadata: { document_id: 'e' } },
      ],
      max_drm_rate: '1/2',
    },
    inProcess: () => {
      const r = validateRagRequest({
        target_document_id: 'd',
        chunks: [
          { id: 'a', metadata: { document_id: 'd' } },
          { id: 'b', metadata: { document_id: 'e' } },
        ],
        max_drm_rate: '1/2',
      });
      if (r.ok) verifyRag(r.value);
    },
  },
];

const stats = (lat: number[]) => {
  const s = [...lat].sort((a, b) => a - b);
  return { p50: +percentile(s, 50).toFixed(2), p95: +percentile(s, 95).toFixed(2) };
};

async function main() {
  const { stack, base, key } = await startBenchStack('bench-engines', 930);
  try {
    const rows = [];
    for (const c of CASES) {
      await c.inProcess();
      const inProc: number[] = [];
      for (let k = 0; k < N; k++) {
        const t0 = performance.now();
        await c.inProcess();
        inProc.push(performance.now() - t0);
      }
      const http: number[] = [];
      let failures = 0;
      for (let k = 0; k < N; k++) {
        const t0 = performance.now();
        const res = await fetch(`${base}${c.path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': key },
          body: JSON.stringify(c.body),
        });
        await res.arrayBuffer();
        if (res.status !== 200) failures++;
        http.push(performance.now() - t0);
      }
      const a = stats(inProc);
      const b = stats(http);
      rows.push({
        engine: c.engine,
        'in-process p50': a.p50,
        'in-process p95': a.p95,
        'HTTP p50': b.p50,
        'HTTP p95': b.p95,
        'HTTP failures': failures,
      });
    }
    console.log(`requests per engine: ${N} (sequential)`);
    console.table(rows);
  } finally {
    await shutdownLogicPool();
    await stack.down();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
