// GET /openapi.json (OpenAPI 3.1, generated from contract/endpoints.ts with zod-openapi) and
// GET /docs (Swagger UI served from the installed swagger-ui-dist package: no CDN, works offline).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type Router from '@koa/router';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { ENDPOINTS, type Credential, type Endpoint } from '../contract/endpoints.js';
import { errorBodySchema } from '../contract/common.js';
import { OPERATION_DOCS } from '../contract/endpoint-docs.js';
import { errorExamples } from './openapi-examples.js';
import { SERVICE_NAME, SERVICE_VERSION } from '../core/version.js';

/**
 * OpenAPI security schemes. One X-API-Key scheme (named once in the Authorize dialog): the
 * organization's API key on the data plane and the gateway's per-agent key on /a2a/* are the
 * same header, so the contract's `a2aKey` credential is shown as `apiKey`.
 */
const SECURITY_SCHEMES = {
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'API key (`svc_live_…` or `svc_test_…`) from POST /auth/api-keys; on /a2a/* the per-agent gateway key from SVC_A2A_API_KEYS.',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Access token from /auth/signup or /auth/signin (1 hour).',
  },
  agentToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Agent-Token',
    description: 'Agent token (`svc_agent_…`) from /agents/register.',
  },
  webhookSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'Github-Public-Key-Signature',
    description:
      'Scanning partner only: ECDSA signature over the raw body (with Github-Public-Key-Identifier naming the key).',
  },
} as const;
const SCHEME_OF: Record<Credential, keyof typeof SECURITY_SCHEMES> = {
  apiKey: 'apiKey',
  bearer: 'bearer',
  agentToken: 'agentToken',
  webhookSignature: 'webhookSignature',
  a2aKey: 'apiKey',
};

const STATUS_TEXT: Record<number, string> = { 200: 'OK', 202: 'Accepted' };

function operation(e: Endpoint): ZodOpenApiOperationObject {
  const op: ZodOpenApiOperationObject = {
    operationId: e.id,
    summary: e.summary,
    description: OPERATION_DOCS[e.id]?.description,
    tags: [e.tag],
    // Several credentials: any one of them. None: explicitly anonymous.
    security: e.security.map((c) => ({ [SCHEME_OF[c]]: [] })),
    responses: Object.fromEntries(
      Object.entries(e.responses).map(([status, r]) => [
        status,
        {
          description: r.description || STATUS_TEXT[Number(status)] || status,
          ...(r.schema
            ? {
                content: {
                  [r.contentType ?? 'application/json']: {
                    schema: r.schema,
                    ...(r.schema === errorBodySchema ? { examples: errorExamples(e, Number(status)) } : {}),
                  },
                },
              }
            : {}),
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
  const example = OPERATION_DOCS[e.id]?.example;
  if (e.body)
    op.requestBody = {
      required: true,
      content: { [e.body.contentType]: { schema: e.body.schema, ...(example !== undefined ? { example } : {}) } },
    };
  return op;
}

// JSON Schema documents as zod-openapi emits them: walked by key, untyped on purpose.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = Record<string, any>;

/** The schemas whose properties are the fields of a request body: the object, or each branch of a union. */
function bodyObjects(schema: Json | undefined, components: Json): Json[] {
  if (!schema) return [];
  const s = schema.$ref ? components[String(schema.$ref).split('/').pop() as string] : schema;
  if (!s) return [];
  if (s.properties) return [s];
  if (s.type === 'array' && s.items) return bodyObjects(s.items, components);
  return [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap((b: Json) => bodyObjects(b, components));
}

/** Every request field (body, form, path, query) gets the description and example of contract/endpoint-docs.ts. */
function documentFields(doc: Json): void {
  const components = doc.components?.schemas ?? {};
  for (const e of ENDPOINTS) {
    const op = doc.paths[e.path]?.[e.method] as Json | undefined;
    const fields = OPERATION_DOCS[e.id]?.fields ?? {};
    if (!op) continue;
    for (const p of op.parameters ?? []) {
      const f = fields[p.name];
      if (f) Object.assign(p, { description: f[0], example: f[1] });
    }
    for (const media of Object.values<Json>(op.requestBody?.content ?? {})) {
      for (const obj of bodyObjects(media.schema, components)) {
        for (const [name, prop] of Object.entries<Json>(obj.properties)) {
          const f = fields[name];
          if (f)
            Object.assign(prop, {
              description: f[0],
              examples: [f[1]],
              ...(prop.format === 'binary' ? {} : { example: f[1] }),
            });
        }
      }
    }
  }
}

export function buildOpenApiDocument(): Record<string, unknown> {
  const paths: ZodOpenApiPathsObject = {};
  for (const e of ENDPOINTS) {
    paths[e.path] ??= {};
    (paths[e.path] as Record<string, ZodOpenApiOperationObject>)[e.method] = operation(e);
  }
  const doc = createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: `${SERVICE_NAME} API`,
        version: SERVICE_VERSION,
        description:
          'Deterministic verification of LLM output and agent actions. VERIFIED only with a deterministic proof and `proof_ref`; ' +
          'every failure is closed (BLOCKED, UNVERIFIABLE or an error status). Hosted paths carry the `/v1` prefix; local servers serve them at the root. ' +
          'Not an operation of this document: `POST /mcp`, the MCP server (Streamable HTTP, JSON-RPC; the same X-API-Key) whose tools run these verification operations (docs/mcp.md).',
      },
      servers: [{ url: '/' }],
      components: { securitySchemes: SECURITY_SCHEMES },
      paths,
    },
    { reused: 'inline' },
  ) as unknown as Record<string, unknown>;
  documentFields(doc);
  return doc;
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
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:";

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
