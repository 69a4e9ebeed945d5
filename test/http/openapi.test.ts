// GET /openapi.json and GET /docs (black box): the document is OpenAPI 3.1, lists every path of
// the contract with its security, and real responses of the running stack match the response
// schemas the contract declares for their status.
import { beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { z, type ZodType } from 'zod';
import { ENDPOINTS, type Endpoint } from '../../contract/endpoints.js';
import { apiUrl, get, http, newTenant, post, type HttpResult, type Member } from './helpers.js';
import { postStats } from './uploads.js';

let doc: any;
let owner: Member;

beforeAll(async () => {
  const res = await get('/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  owner = await newTenant('enterprise');
});

/** Every `$ref` of the document, resolved against the document. */
function refs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

describe('GET /openapi.json', () => {
  it('is a structurally valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: expect.any(String), version: '7.3.0' });
    const schemes = doc.components.securitySchemes;
    expect(Object.keys(schemes).sort()).toEqual(['agentToken', 'apiKey', 'bearer', 'webhookSignature']);
    expect(schemes.bearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const ref of refs(doc)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[ref.split('/').pop() as string], ref).toBeDefined();
    }
    const ids = new Set<string>();
    for (const [p, item] of Object.entries<any>(doc.paths)) {
      expect(p.startsWith('/')).toBe(true);
      for (const [method, op] of Object.entries<any>(item)) {
        expect(['get', 'post', 'delete']).toContain(method);
        expect(ids.has(op.operationId)).toBe(false);
        ids.add(op.operationId);
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const [status, r] of Object.entries<any>(op.responses)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(typeof r.description).toBe('string');
        }
        for (const s of op.security) for (const name of Object.keys(s)) expect(schemes[name]).toBeDefined();
        // Every {param} of the path is declared as a required path parameter.
        for (const [, name] of p.matchAll(/\{([^}]+)\}/g)) {
          expect(
            op.parameters?.find((x: any) => x.in === 'path' && x.name === name),
            `${method} ${p} {${name}}`,
          ).toMatchObject({ required: true });
        }
      }
    }
  });

  it('has every path of the contract, with its credential, bodies and error bodies', () => {
    for (const e of ENDPOINTS) {
      const op = doc.paths[e.path]?.[e.method];
      expect(op, `${e.method} ${e.path}`).toBeDefined();
      expect(op.security).toEqual(e.security.map((c) => ({ [c === 'a2aKey' ? 'apiKey' : c]: [] })));
      if (e.body) expect(Object.keys(op.requestBody.content)).toEqual([e.body.contentType]);
      expect(Object.keys(op.responses).map(Number).sort()).toEqual(Object.keys(e.responses).map(Number).sort());
    }
    const math = doc.paths['/verify/math'].post;
    expect(math.responses['429'].content['application/json'].schema.$ref).toBe('#/components/schemas/RateLimitError');
    expect(math.responses['400'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBody');
    expect(
      doc.paths['/verify/stats'].post.requestBody.content['multipart/form-data'].schema.properties.file,
    ).toMatchObject({ type: 'string', format: 'binary' });
    expect(doc.components.schemas.RateLimitError.example.error.code).toBe('SVC-005');
    // One X-API-Key scheme: the gateway's per-agent key is the same header.
    expect(doc.paths['/a2a/intercept'].post.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/webhooks/secret-scanning'].post.security).toEqual([{ webhookSignature: [] }]);
    expect(doc.paths['/metrics'].get.security).toEqual([{ apiKey: [] }, { bearer: [] }]);
    expect(doc.paths['/health'].get.security).toEqual([]);
  });
});

describe('GET /docs', () => {
  it('serves the API reference page and its assets from the installed package (no CDN)', async () => {
    const res = await get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.text).not.toMatch(/https?:\/\//);
    const assets = [...res.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets).toContain('/docs/assets/swagger-ui-bundle.js');
    for (const a of assets) {
      const r = await fetch(`${apiUrl()}${a}`);
      expect(r.status, a).toBe(200);
      expect((await r.arrayBuffer()).byteLength, a).toBeGreaterThan(0);
    }
    const init = await get('/docs/init.js');
    expect(init.text).toContain("url: '/openapi.json'");
    expect((await get('/docs/assets/package.json')).status).toBe(404);
  });
});

describe('real responses match their declared schemas', () => {
  const byId = new Map(ENDPOINTS.map((e) => [e.id, e]));
  function check(id: string, res: HttpResult) {
    const e = byId.get(id) as Endpoint;
    const declared = e.responses[res.status];
    expect(declared, `${id} ${res.status} is declared: ${res.text.slice(0, 200)}`).toBeDefined();
    const parsed = (declared.schema as ZodType).safeParse(res.body ?? res.text);
    expect(parsed.success, `${id} ${res.status}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
  }
  const key = () => ({ 'x-api-key': owner.key });
  const bearer = () => ({ authorization: `Bearer ${owner.token}` });

  /**
   * A real 200 of an engine: it matches its declared schema, and its top level has no key the
   * schema does not declare (the response schemas are open for engine detail, so the check
   * closes them here: every field an endpoint returns must be in the contract).
   */
  function checkDeclared(id: string, res: HttpResult) {
    expect(res.status, `${id}: ${res.text.slice(0, 300)}`).toBe(200);
    check(id, res);
    const schema = (byId.get(id) as Endpoint).responses[200].schema as ZodType;
    expect(schema).toBeInstanceOf(z.ZodObject);
    const closed = (schema as z.ZodObject).strict().safeParse(res.body);
    expect(closed.success, `${id} 200 returns undeclared fields: ${JSON.stringify(closed.error?.issues)}`).toBe(true);
  }

  it('every engine: a real success response declares every field it returns', async () => {
    // Math: a proven identity (VERIFIED, proof_ref, attestation) and an evaluation (never VERIFIED).
    const proven = await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' }, key());
    checkDeclared('verifyMath', proven);
    expect(proven.body).toMatchObject({
      status: 'VERIFIED',
      is_authoritative: true,
      proof_ref: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
      attestation: { id: expect.any(String) },
    });
    const evaluated = await post('/verify/math', { expression: '2 + 3 * 4' }, key());
    checkDeclared('verifyMath', evaluated);
    expect(evaluated.body).toMatchObject({
      status: 'UNVERIFIABLE',
      is_authoritative: false,
      proof_ref: null,
      value: 14,
    });
    const differs = await post('/verify/math', { expression: 'x^2 = 2*x' }, key());
    checkDeclared('verifyMath', differs);
    expect(differs.body).toMatchObject({ is_valid: false, proof_ref: null });
    checkDeclared('verifyMath', await post('/verify/math', { expression: '1/0' }, key()));

    const sat = await post('/verify/logic', { query: '(AND (GT x 5) (LT x 10))' }, key());
    checkDeclared('verifyLogic', sat);
    expect(sat.body.status).toBe('SAT');
    checkDeclared('verifyLogic', await post('/verify/logic', { query: '(AND (GT x 5) (LT x 3))' }, key()));
    checkDeclared(
      'verifyCode',
      await post('/verify/code', { code: 'def add(a, b):\n    return a + b\n', language: 'python' }, key()),
    );
    checkDeclared(
      'verifyCode',
      await post('/verify/code', { code: 'import os\nos.system("ls")', language: 'python' }, key()),
    );
    checkDeclared(
      'verifySql',
      await post('/verify/sql', { query: 'SELECT id FROM t', schema_ddl: 'CREATE TABLE t (id INT)' }, key()),
    );
    checkDeclared(
      'verifySql',
      await post('/verify/sql', { query: 'SELECT nope FROM missing', schema_ddl: 'CREATE TABLE t (id INT)' }, key()),
    );
    checkDeclared(
      'verifyFact',
      await post(
        '/verify/fact',
        { claim: 'The Eiffel Tower is in Paris.', context: 'The Eiffel Tower stands in Paris, France.' },
        key(),
      ),
    );
    checkDeclared(
      'verifyConsensus',
      await post('/verify/consensus', { query: '2 + 2 = 4', verification_mode: 'single' }, key()),
    );
    checkDeclared(
      'verifyNaturalLanguage',
      await post('/verify/natural_language', { query: 'What is 15% of 200?' }, key()),
    );
    checkDeclared(
      'verifyProcess',
      await post('/verify/process', { trace: 'The issue is X. The rule is Y. In this case Z. Therefore W.' }, key()),
    );
    checkDeclared(
      'verifyProcess',
      await post(
        '/verify/process',
        { trace: 'First we plan, then we build.', mode: 'milestones', milestones: ['plan', 'build', 'ship'] },
        key(),
      ),
    );
    checkDeclared(
      'verifyRag',
      await post(
        '/verify/rag',
        {
          target_document_id: 'd',
          chunks: [
            { id: 1, metadata: { document_id: 'd' } },
            { id: 2, metadata: { document_id: 'e' } },
          ],
          max_drm_rate: '1/2',
        },
        key(),
      ),
    );
    checkDeclared('verifyBatch', await post('/verify/batch', { items: [{ query: '2 + 2 = 4', type: 'math' }] }, key()));

    const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 220, g: 20, b: 30 } } })
      .png()
      .toBuffer();
    const fd = new FormData();
    fd.append('claim', 'The image is 64 pixels wide.');
    fd.append('image', new Blob([new Uint8Array(png)], { type: 'image/png' }), 'red.png');
    const image = await fetch(`${apiUrl()}/verify/image`, { method: 'POST', body: fd, headers: key() });
    const imageText = await image.text();
    checkDeclared('verifyImage', {
      status: image.status,
      headers: image.headers,
      text: imageText,
      body: JSON.parse(imageText),
    });

    const stats = await postStats(owner.key, { file: 'revenue\n120\n90\n150\n', query: 'mean(revenue) > 100' });
    checkDeclared('verifyStats', {
      status: stats.status,
      headers: stats.headers as Headers,
      text: JSON.stringify(stats.body),
      body: stats.body,
    });
    expect(stats.body).toMatchObject({ status: 'UNVERIFIABLE', proof_ref: null, is_authoritative: false });
  });

  it('verification routes: results and 400s', async () => {
    check('health', await get('/health'));
    check('healthIdentity', await get('/health/identity?nonce=abc'));
    check('healthIdentity', await get('/health/identity'));
    check('verifyMath', await post('/verify/math', { expression: '(x+1)^2 = x^2 + 2*x + 1' }, key()));
    check('verifyMath', await post('/verify/math', { expression: 7 }, key()));
    check('verifyMath', await post('/verify/math', { expression: '1+1' }));
    check('verifyCode', await post('/verify/code', { code: 'import os\nos.system("ls")', language: 'python' }, key()));
    check(
      'verifySql',
      await post('/verify/sql', { query: 'SELECT id FROM t', schema_ddl: 'CREATE TABLE t (id INT)' }, key()),
    );
    check('verifyLogic', await post('/verify/logic', { query: '(AND (GT x 5) (LT x 10))' }, key()));
    check(
      'verifyProcess',
      await post('/verify/process', { trace: 'The issue is X. The rule is Y. In this case Z. Therefore W.' }, key()),
    );
    check(
      'verifyRag',
      await post(
        '/verify/rag',
        { target_document_id: 'd', chunks: [{ id: 1, metadata: { document_id: 'd' } }] },
        key(),
      ),
    );
    check('verifyRag', await post('/verify/rag', { target_document_id: 'd', chunks: [], max_drm_rate: 0.1 }, key()));
    check('verifyBatch', await post('/verify/batch', { items: [{ query: '2 + 2 = 4', type: 'math' }] }, key()));
    check('verifyBatch', await post('/verify/batch', { items: [] }, key()));
    check('vcValidate', await post('/verification-context/validate', { spec_version: '1.0' }, key()));
    check('verifyAttestation', await post('/attestation/verify', { token: 'a.b.c' }, key()));
    check('getAttestation', await get('/attestation/att_00000000000000000000000000000000', key()));
  });

  it('account, audit and badge routes', async () => {
    check('me', await get('/auth/me', bearer()));
    check('listApiKeys', await get('/auth/api-keys', bearer()));
    check('createApiKey', await post('/auth/api-keys', { name: 'openapi' }, bearer()));
    check('auditLogs', await get('/audit/logs?limit=5', bearer()));
    check('auditLogs', await get('/audit/logs?limit=0', bearer()));
    check('logs', await get('/logs', key()));
    check('orgMetrics', await get(`/metrics/${owner.orgId}`, key()));
    check('revokeApiKey', await http('DELETE', '/auth/api-keys/nope', { headers: bearer() }));
    check('badgeEngine', await get('/badge/engine/math'));
    check(
      'signin',
      await post(
        '/auth/signin',
        { email: owner.email, password: 'wrong password here' },
        { 'x-forwarded-for': '198.51.100.77' },
      ),
    );
  });
});
