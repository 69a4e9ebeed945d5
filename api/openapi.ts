// GET /openapi.json (OpenAPI 3.1, generated from contract/endpoints.ts with zod-openapi) and
// GET /docs (Swagger UI served from the installed swagger-ui-dist package: no CDN, works offline).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Router from '@koa/router';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { ENDPOINTS, type Credential, type Endpoint } from '../contract/endpoints.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../core/version.js';

/** OpenAPI security scheme names, one per credential of the contract ("Authentication"). */
const SECURITY_SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'API key (`svc_live_…` or `svc_test_…`).' },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Access token from /auth/signup or /auth/signin.' },
  agentToken: { type: 'apiKey', in: 'header', name: 'X-Agent-Token', description: 'Agent token (`svc_agent_…`) from /agents/register.' },
  webhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Github-Public-Key-Signature',
    description: 'ECDSA signature over the raw body (with Github-Public-Key-Identifier naming the key); the only credential of the webhook.',
  },
  a2aKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'Per-agent gateway key from SVC_A2A_API_KEYS.' },
} as const satisfies Record<Credential, unknown>;

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 202: 'Accepted' };

function operation(e: Endpoint): ZodOpenApiOperationObject {
  const op: ZodOpenApiOperationObject = {
    operationId: e.id,
    summary: e.summary,
    tags: [e.tag],
    // Several credentials: any one of them. None: explicitly anonymous.
    security: e.security.map((c) => ({ [c]: [] })),
    responses: Object.fromEntries(
      Object.entries(e.responses).map(([status, r]) => [
        status,
        {
          description: r.description || STATUS_TEXT[Number(status)] || status,
          ...(r.schema ? { content: { [r.contentType ?? 'application/json']: { schema: r.schema } } } : {}),
        },
      ]),
    ),
  };
  if (e.params || e.query || e.headers) {
    op.requestParams = {};
    if (e.params) op.requestParams.path = e.params;
    if (e.query) op.requestParams.query = e.query;
    if (e.headers) op.requestParams.header = e.headers;
  }
  if (e.body) op.requestBody = { required: true, content: { [e.body.contentType]: { schema: e.body.schema } } };
  return op;
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: ZodOpenApiPathsObject = {};
  for (const e of ENDPOINTS) {
    paths[e.path] ??= {};
    (paths[e.path] as Record<string, ZodOpenApiOperationObject>)[e.method] = operation(e);
  }
  return createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: `${SERVICE_NAME} API`,
        version: SERVICE_VERSION,
        description:
          'Deterministic verification of LLM output and agent actions. VERIFIED only with a deterministic proof and `proof_ref`; ' +
          'every failure is closed (BLOCKED, UNVERIFIABLE or an error status). Hosted paths carry the `/v1` prefix; local servers serve them at the root.',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: SECURITY_SCHEMES },
      paths,
    },
    { reused: 'inline' },
  ) as unknown as Record<string, unknown>;
}

let cached: string | null = null;
/** The document as JSON text, built once per process (the contract does not change at run time). */
export function openApiJson(): string {
  cached ??= JSON.stringify(buildOpenApiDocument());
  return cached;
}

const require = createRequire(import.meta.url);
const SWAGGER_DIR = path.dirname(require.resolve('swagger-ui-dist/package.json'));
/** The only files of the package the page needs. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${SERVICE_NAME} API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;
// A separate script (not inline) so the page runs under a CSP without 'unsafe-inline' scripts.
const INIT_JS = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true, presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });\n`;
const DOCS_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:";

const assetCache = new Map<string, Buffer>();

export function registerOpenApiRoutes(router: Router): void {
  router.get('/openapi.json', (ctx) => {
    ctx.type = 'application/json; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = openApiJson();
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Content-Security-Policy', DOCS_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = DOCS_HTML;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'application/javascript; charset=utf-8';
    ctx.body = INIT_JS;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const file = String(ctx.params.file);
    const type = ASSETS[file];
    if (!type) return; // 404 from the error handler
    let data = assetCache.get(file);
    if (!data) {
      data = readFileSync(path.join(SWAGGER_DIR, file));
      assetCache.set(file, data);
    }
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.body = data;
  });
}
