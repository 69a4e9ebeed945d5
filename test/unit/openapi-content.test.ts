// The API reference is worth reading (issue 27, point 8), checked on the OpenAPI content itself:
// every operation has a description, every JSON operation a realistic request that the contract
// accepts (what "Try it out" pre-fills), every request field a description and an example, every
// error status its own real examples with the code of that status, and one X-API-Key scheme.
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../contract/endpoints.js';
import { buildOpenApiDocument } from '../../api/openapi.js';
import { codeForStatus, ERROR_CODES } from '../../contract/error-codes.js';
import { MISSING_KEY } from '../../api/middleware/auth.js';
import { BODY_TIMEOUT_DETAIL, bodyLimitDetail } from '../../api/middleware/body.js';
import { JSON_BODY_LIMIT } from '../../api/deps.js';

const doc: any = buildOpenApiDocument();
const components = doc.components.schemas;
const op = (path: string, method: string) => doc.paths[path][method];

function bodyObjects(schema: any): any[] {
  if (!schema) return [];
  const s = schema.$ref ? components[schema.$ref.split('/').pop()] : schema;
  if (s.properties) return [s];
  if (s.type === 'array' && s.items) return bodyObjects(s.items);
  return [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])].flatMap(bodyObjects);
}

/** Codes an error example of a status may carry: the status's own, or a more specific one. */
const SPECIFIC: Record<number, string[]> = { 400: [ERROR_CODES.invalidField], 503: [ERROR_CODES.storeUnavailable] };

describe('every operation', () => {
  it.each(ENDPOINTS.map((e) => [e.id, e] as const))('%s has a description', (_id, e) => {
    const o = op(e.path, e.method);
    expect(typeof o.description).toBe('string');
    expect(o.description.length).toBeGreaterThan(20);
  });

  it.each(ENDPOINTS.filter((e) => e.body?.contentType === 'application/json').map((e) => [e.id, e] as const))(
    '%s pre-fills a request the contract accepts',
    (_id, e) => {
      const media = op(e.path, e.method).requestBody.content['application/json'];
      expect(media.example, e.id).toBeDefined();
      const parsed = e.body!.schema.safeParse(media.example);
      expect(parsed.success, `${e.id}: ${JSON.stringify(parsed.error?.issues?.[0])}`).toBe(true);
      // No generated placeholders ("string", additionalProp1).
      expect(JSON.stringify(media.example)).not.toMatch(/"string"|additionalProp/);
    },
  );

  it.each(ENDPOINTS.map((e) => [e.id, e] as const))(
    '%s: every request field has a description and an example',
    (_id, e) => {
      const o = op(e.path, e.method);
      const missing: string[] = [];
      for (const p of o.parameters ?? []) {
        if (!p.description || p.example === undefined) missing.push(`${p.in}:${p.name}`);
      }
      for (const media of Object.values<any>(o.requestBody?.content ?? {})) {
        for (const obj of bodyObjects(media.schema)) {
          for (const [name, prop] of Object.entries<any>(obj.properties)) {
            if (!prop.description || !(prop.example !== undefined || prop.examples?.length)) missing.push(name);
          }
        }
      }
      expect(missing).toEqual([]);
    },
  );

  it.each(ENDPOINTS.map((e) => [e.id, e] as const))('%s: each error status shows its own real examples', (_id, e) => {
    const o = op(e.path, e.method);
    for (const [status, r] of Object.entries<any>(o.responses)) {
      const s = Number(status);
      const media = r.content?.['application/json'];
      if (s < 400 || media?.schema?.$ref !== '#/components/schemas/ErrorBody') continue;
      const examples = Object.values<any>(media.examples ?? {});
      expect(examples.length, `${e.id} ${status}`).toBeGreaterThan(0);
      for (const x of examples) {
        expect([codeForStatus(s), ...(SPECIFIC[s] ?? [])], `${e.id} ${status}: ${x.value.code}`).toContain(
          x.value.code,
        );
        expect(x.value.detail.length).toBeGreaterThan(3);
        expect(Object.keys(x.value)).toEqual(['detail', 'code', 'request_id']);
        expect(x.summary).toEqual(expect.any(String));
      }
    }
    // A detail belongs to one status: the 400 text is never shown under 401, 403, 408, 413 or 503.
    const byDetail = new Map<string, string>();
    for (const [status, r] of Object.entries<any>(o.responses)) {
      for (const x of Object.values<any>(r.content?.['application/json']?.examples ?? {})) {
        const seen = byDetail.get(x.value.detail);
        expect(seen === undefined || seen === status, `${e.id}: "${x.value.detail}" under ${seen} and ${status}`).toBe(
          true,
        );
        byDetail.set(x.value.detail, status);
      }
    }
  });
});

describe("examples are the service's own texts", () => {
  it('verify/math: 400 names the field, 401 the header, 408 and 413 the body', () => {
    const r = op('/verify/math', 'post').responses;
    const details = (s: number) =>
      Object.values<any>(r[s].content['application/json'].examples).map((x) => x.value.detail);
    expect(details(400)).toContain("Invalid field 'expression': expression is required");
    expect(details(401)).toContain(MISSING_KEY);
    expect(details(408)).toEqual([BODY_TIMEOUT_DETAIL]);
    expect(details(413)).toEqual([bodyLimitDetail(JSON_BODY_LIMIT)]);
    expect(details(503)).toContain('Verification backend unavailable — retry shortly.');
    expect(op('/verify/math', 'post').requestBody.content['application/json'].example).toEqual({
      expression: '(x+1)^2 = x^2 + 2*x + 1',
    });
  });
  it('the Authorize dialog names X-API-Key once', () => {
    const schemes = Object.values<any>(doc.components.securitySchemes);
    expect(schemes.filter((s) => s.name === 'X-API-Key')).toHaveLength(1);
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual([
      'agentToken',
      'apiKey',
      'bearer',
      'webhookSignature',
    ]);
    for (const s of schemes) expect(s.description).toEqual(expect.any(String));
  });
});
