// Issue 23, "null is absent": for every endpoint of the contract table and every optional field
// of its request (body, form or query; nested fields and batch item params included), the
// request with the field set to null gets the same answer as the request without it, the
// OpenAPI document declares the field nullable, and required fields that are null keep their
// 400 naming the field. Two levels: the contract's own schemas (every endpoint, including the
// ones whose handler needs the store or another credential), and the real Koa app in process
// for every JSON endpoint an API key reaches (same status, body and workflow input).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../contract/endpoints.js';
import { buildOpenApiDocument } from '../../api/openapi.js';
import { startInProcessApp, send, type InProcessApp } from './harness.js';
import { BASELINES, NULL_HAS_MEANING, setPath, walk, type Walked } from './null-walk.js';

const { walked, missingBaseline } = walk();
const label = (w: Walked) => `${w.endpoint} ${w.part} ${w.path.join('.')}`;

describe('the null walk covers the contract table', () => {
  it('every endpoint with optional fields has a baseline request, and the walk is not empty', () => {
    expect(missingBaseline).toEqual([]);
    // Counted in the issue's closing note; a drop means fields stopped being found.
    expect(walked.length).toBeGreaterThanOrEqual(60);
    expect(new Set(walked.map((w) => w.endpoint.replace(/\[.*\]$/, ''))).size).toBeGreaterThanOrEqual(20);
    for (const id of Object.keys(BASELINES))
      expect(
        ENDPOINTS.some((e) => e.id === id),
        id,
      ).toBe(true);
    for (const id of Object.keys(NULL_HAS_MEANING))
      expect(
        ENDPOINTS.some((e) => e.id === id),
        id,
      ).toBe(true);
    console.info(
      `null walk: ${walked.length} optional fields over ${new Set(walked.map((w) => w.endpoint)).size} endpoint requests`,
    );
  });
});

describe('contract schemas: null parses exactly as absent', () => {
  it.each(walked.map((w) => [label(w), w] as const))('%s', (_l, w) => {
    const without = w.schema.safeParse(setPath(w.baseline, w.path, undefined));
    const withNull = w.schema.safeParse(setPath(w.baseline, w.path, null));
    expect(without.success, JSON.stringify(without.error?.issues)).toBe(true);
    expect(withNull.success, JSON.stringify(withNull.error?.issues)).toBe(true);
    expect(withNull.data).toEqual(without.data);
  });
});

describe('OpenAPI: every walked top-level field is nullable', () => {
  const doc = buildOpenApiDocument() as {
    paths: Record<string, Record<string, any>>;
    components?: { schemas?: Record<string, any> };
  };
  const deref = (s: any): any => (s?.$ref ? doc.components?.schemas?.[String(s.$ref).split('/').pop() as string] : s);
  const nullable = (s: any): boolean => {
    const t = deref(s);
    if (!t) return false;
    if (Array.isArray(t.type)) return t.type.includes('null');
    if (t.type === 'null') return true;
    return [...(t.anyOf ?? []), ...(t.oneOf ?? [])].some(nullable);
  };
  const top = walked.filter((w) => w.path.length === 1);
  it.each(top.map((w) => [label(w), w] as const))('%s', (_l, w) => {
    const e = ENDPOINTS.find((x) => x.id === w.endpoint)!;
    const op = doc.paths[e.path][e.method];
    const field = String(w.path[0]);
    if (w.part === 'query') {
      const p = (op.parameters as any[]).find((x) => x.in === 'query' && x.name === field);
      expect(nullable(p.schema)).toBe(true);
    } else {
      const body = deref(op.requestBody.content[e.body!.contentType].schema);
      expect(nullable(body.properties[field])).toBe(true);
    }
  });
});

describe('the real app in process: null answers exactly as absent', () => {
  let app: InProcessApp;
  beforeAll(async () => {
    app = await startInProcessApp();
  });
  afterAll(async () => {
    await app?.close();
  });

  const comparable = (res: Awaited<ReturnType<typeof send>>, starts: InProcessApp['starts']) => ({
    status: res.status,
    // Timings differ from one request to the next.
    body: JSON.parse(
      JSON.stringify(res.body, (k, v) =>
        k === 'latency_ms' || k === 'issued_at' || k === 'created_at' ? undefined : v,
      ),
    ),
    // The workflow's input (the request digest of the audit context hashes the raw body and differs).
    starts: starts.map((s) => ({
      type: s.type,
      input: s.options.args?.[0]?.input,
      engine: s.options.args?.[0]?.engine,
    })),
  });

  // JSON bodies an API key can send (a query string or a form cannot carry a JSON null).
  const reachable = walked.filter((w) => {
    const e = ENDPOINTS.find((x) => x.id === w.endpoint.replace(/\[.*\]$/, ''))!;
    // The batch and agent-registration routes need the store, absent here: they are walked at the schema level and through the stack.
    return (
      w.part === 'body' &&
      e.body?.contentType === 'application/json' &&
      e.security.includes('apiKey') &&
      !e.path.includes('{') &&
      e.id !== 'verifyBatch' &&
      e.id !== 'registerAgent'
    );
  });

  it.each(reachable.map((w) => [label(w), w] as const))('%s', async (_l, w) => {
    const e = ENDPOINTS.find((x) => x.id === w.endpoint.replace(/\[.*\]$/, ''))!;
    app.script({ result: { status: 'UNVERIFIABLE', scripted: true } });
    app.starts.length = 0;
    const without = await send(app, e.path, setPath(w.baseline, w.path, undefined));
    const a = comparable(without, [...app.starts]);
    app.starts.length = 0;
    const withNull = await send(app, e.path, setPath(w.baseline, w.path, null));
    const b = comparable(withNull, [...app.starts]);
    expect(a.status).not.toBe(400);
    expect(b).toEqual(a);
    statuses.set(label(w), a.status);
  });

  const statuses = new Map<string, number>();
  it('every walked request reached its handler (2xx both ways, not a 401 or 503)', () => {
    console.info(`null walk through the app: ${reachable.length} optional fields of JSON bodies`);
    expect([...statuses].filter(([, s]) => s < 200 || s >= 300)).toEqual([]);
    expect(statuses.size).toBe(reachable.length);
    expect(reachable.length).toBeGreaterThanOrEqual(19);
  });

  // Required fields that are null keep their 400 naming the field.
  const requiredNull: Array<[string, unknown, string]> = [
    ['/verify/natural_language', { query: null, provider: null }, 'query'],
    ['/verify/fact', { claim: null, context: 'c' }, 'claim'],
    ['/verify/sql', { query: 'SELECT 1', schema_ddl: null, dialect: null }, 'schema_ddl'],
    ['/verify/consensus', { query: null, verification_mode: null }, 'query'],
    [
      '/verify/rag',
      { target_document_id: null, chunks: [{ id: 1, metadata: { document_id: 'd' } }] },
      'target_document_id',
    ],
    [
      '/verification-context/from-diagnostic',
      {
        query: 'q',
        verifier: null,
        diagnostic: { status: 'UNVERIFIABLE', agent_message: 'x', developer_fields: {}, proof_ref: null },
        verifier_version: null,
      },
      'verifier',
    ],
  ];
  it.each(requiredNull)('%s: a null required field is a 400 naming it', async (path, body, field) => {
    app.starts.length = 0;
    const res = await send(app, path, body);
    expect(res.status).toBe(400);
    expect(String(res.body.detail ?? JSON.stringify(res.body))).toContain(field);
    expect(app.starts).toHaveLength(0);
  });
});
