import { buildOpenApiDocument } from './api/openapi.js';
const d = buildOpenApiDocument() as any;
console.log(Object.keys(d.components.schemas).join(' '));
console.log(JSON.stringify(d.components.schemas.HealthResponse));
console.log(JSON.stringify(d.components.schemas.ErrorBody));
console.log(JSON.stringify(d.paths['/health/identity']).slice(0,600));
