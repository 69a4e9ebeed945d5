// The null walk of issue 23: every optional field of every request in the contract table
// (contract/endpoints.ts), found by reading the zod schemas themselves, so a field added later
// is walked without anyone listing it. Used by test/inproc/null-absent.test.ts.
import type { z } from 'zod';
import { ENDPOINTS, type Endpoint } from '../../contract/endpoints.js';
import { BATCH_PARAMS_SCHEMAS } from '../../contract/batch.js';

type Def = { type: string; [k: string]: unknown };
const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;
const optin = (s: z.ZodType): unknown => (s as unknown as { _zod: { optin?: unknown } })._zod.optin;

/** The schema under the wrappers that do not change the shape (optional, default, nullable, pipes). */
function unwrap(s: z.ZodType): z.ZodType {
  for (;;) {
    const d = defOf(s);
    if (
      d.type === 'optional' ||
      d.type === 'default' ||
      d.type === 'nullable' ||
      d.type === 'prefault' ||
      d.type === 'readonly'
    )
      s = d.innerType as z.ZodType;
    else if (d.type === 'pipe')
      s = defOf(d.in as z.ZodType).type === 'transform' ? (d.out as z.ZodType) : (d.in as z.ZodType);
    else return s;
  }
}

export type Path = ReadonlyArray<string | number>;

/** Paths of the optional fields of a schema (nested objects and the first element of arrays included). */
export function optionalPaths(schema: z.ZodType, at: Path = []): Path[] {
  const s = unwrap(schema);
  const d = defOf(s);
  const out: Path[] = [];
  if (d.type === 'object') {
    for (const [key, field] of Object.entries(d.shape as Record<string, z.ZodType>)) {
      if (optin(field) !== undefined) out.push([...at, key]);
      out.push(...optionalPaths(field, [...at, key]));
    }
  } else if (d.type === 'array') {
    out.push(...optionalPaths(d.element as z.ZodType, [...at, 0]));
  }
  return out;
}

/** Where a request carries fields: the JSON or form body, and the query string. */
export type Part = 'body' | 'query';

export interface Walked {
  endpoint: string;
  part: Part;
  schema: z.ZodType;
  /** A valid request part of this endpoint. */
  baseline: unknown;
  path: Path;
}

/** A deep copy with `value` at `path` (undefined: the key removed); missing parent objects are created. */
export function setPath(value0: unknown, path: Path, value: unknown): unknown {
  const root = structuredClone(value0) as Record<string | number, unknown>;
  let node = root;
  for (const key of path.slice(0, -1)) {
    if (node[key] === undefined || node[key] === null) node[key] = {};
    node = node[key] as Record<string | number, unknown>;
  }
  const last = path[path.length - 1];
  if (value === undefined) delete node[last];
  else node[last] = value;
  return root;
}

/**
 * A valid request per endpoint whose request has optional fields. The walk fails if an endpoint
 * with optional fields has none, so a new endpoint cannot be skipped silently.
 */
export const BASELINES: Record<string, Partial<Record<Part, unknown>>> = {
  verifyNaturalLanguage: { body: { query: 'What is 15% of 240?' } },
  verifyMath: { body: { expression: '2 + 2 = 4' } },
  verifyLogic: { body: { query: '(AND (GT x 1) (LT x 3))' } },
  verifyCode: { body: { code: 'print(1)' } },
  verifySql: { body: { query: 'SELECT a FROM t', schema_ddl: 'CREATE TABLE t (a INTEGER)' } },
  verifyFact: { body: { claim: 'Paris is in France.', context: 'Paris is the capital of France.' } },
  verifyConsensus: { body: { query: '2 + 2 = 4' } },
  verifyImage: { body: { claim: 'the image is red', image: 'binary' } },
  verifyProcess: { body: { trace: 'Issue: x. Rule: y. Application: z. Conclusion: w.', milestones: ['x'] } },
  verifyRag: { body: { target_document_id: 'd', chunks: [{ id: 'c0', metadata: { document_id: 'd' } }] } },
  verifyBatch: { body: { items: [{ query: '2 + 2 = 4', type: 'math' }] } },
  vcFromDiagnostic: {
    body: {
      query: 'SELECT 1',
      verifier: 'sql',
      diagnostic: {
        status: 'UNVERIFIABLE',
        agent_message: 'not proven',
        developer_fields: { constraint_id: 'sql_verifier.sql_valid' },
        proof_ref: null,
      },
    },
  },
  registerAgent: { body: { name: 'walker' } },
  agentVerify: { body: { query: 'What is 2 + 2?', context: { conversation_id: 'c1', step_number: 1 } } },
  agentActivity: { query: {} },
  listAgentApprovals: { query: {} },
  getAgentApproval: { query: {} },
  reportActionOutcome: { body: { status: 'succeeded' } },
  logs: { query: {} },
  createApiKey: { body: { name: 'ci' } },
  auditLogs: { query: {} },
  complianceCsv: { query: {} },
  badgeVerified: { query: {} },
  badgeStatus: { query: {} },
  badgeCustom: { query: {} },
  secretScanning: { body: [{ token: 'svc_live_x', type: 'svc_api_key' }] },
  a2aIntercept: { body: { receiver_agent_id: 'agent-b', payload_type: 'general', payload: { text: 'hello' } } },
};

/**
 * Endpoints whose request is a document in which null has a meaning of its own: validate and
 * resolve check a Verification Context document against the v1.0 schema, where a null in place
 * of an optional string is a finding (`valid: false` with the path), not an absent key.
 */
export const NULL_HAS_MEANING: Record<string, string> = {
  vcValidate: 'the body is a Verification Context document checked against the v1.0 schema',
  vcResolve: 'the body is a Verification Context document checked against the v1.0 schema',
};

/** Every (endpoint, part, optional field) of the contract table, plus each batch item type's params. */
export function walk(endpoints: readonly Endpoint[] = ENDPOINTS): { walked: Walked[]; missingBaseline: string[] } {
  const walked: Walked[] = [];
  const missingBaseline: string[] = [];
  for (const e of endpoints) {
    if (NULL_HAS_MEANING[e.id]) continue;
    const parts: Array<[Part, z.ZodType | undefined]> = [
      ['body', e.body?.schema],
      ['query', e.query],
    ];
    for (const [part, schema] of parts) {
      if (!schema) continue;
      const paths = optionalPaths(schema);
      if (paths.length === 0) continue;
      const baseline = BASELINES[e.id]?.[part];
      if (baseline === undefined) {
        missingBaseline.push(`${e.id} ${part}`);
        continue;
      }
      for (const path of paths) walked.push({ endpoint: e.id, part, schema, baseline, path });
    }
    // A batch item's params are read by the item type's own schema (contract/batch.ts).
    if (e.id === 'verifyBatch') {
      for (const [type, schema] of Object.entries(BATCH_PARAMS_SCHEMAS)) {
        const item = {
          query: type === 'sql' ? 'SELECT a FROM t' : type === 'code' ? 'print(1)' : '2 + 2 = 4',
          type,
          params: type === 'sql' ? { schema_ddl: 'CREATE TABLE t (a INTEGER)' } : {},
        };
        for (const p of optionalPaths(schema as z.ZodType)) {
          walked.push({
            endpoint: `verifyBatch[${type}]`,
            part: 'body',
            schema: e.body!.schema,
            baseline: { items: [item] },
            path: ['items', 0, 'params', ...p],
          });
        }
      }
    }
  }
  return { walked, missingBaseline };
}
