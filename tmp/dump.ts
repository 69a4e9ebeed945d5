import { buildOpenApiDocument } from '../api/openapi.js';
const doc: any = buildOpenApiDocument();
const schemas = doc.components.schemas;
const res = (s: any): any => (s?.$ref ? schemas[s.$ref.split('/').pop()] : s);
let n = 0;
for (const [p, item] of Object.entries<any>(doc.paths)) for (const [m, op] of Object.entries<any>(item)) {
  const c = op.requestBody?.content; const fields: string[] = [];
  if (c) { const sch = res(Object.values<any>(c)[0].schema); for (const [k, v] of Object.entries<any>(sch?.properties ?? {})) { fields.push(k + (v.description ? '' : '!') ); n++; } }
  for (const prm of op.parameters ?? []) { fields.push(prm.in + ':' + prm.name + (prm.description || prm.schema?.description ? '' : '!')); n++; }
  console.log(op.operationId, fields.join(' '));
}
console.log(n);
