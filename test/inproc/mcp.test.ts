// POST /mcp in process (test/inproc/harness.ts): a tool call starts exactly the workflow its REST
// route starts (type, task queue, execution time-out, id of the same form), a bad argument starts
// none, and each way the workflow engine fails is the route's own 503 detail as a tool error.
// The black-box rows are in test/http/mcp.test.ts.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BACKEND_UNAVAILABLE } from '../../api/temporal.js';
import { startInProcessApp, send, type InProcessApp } from './harness.js';

let app: InProcessApp;
let client: Client;
beforeAll(async () => {
  app = await startInProcessApp();
  client = new Client({ name: 'inproc', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
      requestInit: { headers: { 'X-API-Key': app.key } },
    }),
  );
});
afterAll(async () => {
  await client?.close();
  await app?.close();
});
beforeEach(() => {
  app.starts.length = 0;
  app.script({
    result: { status: 'UNVERIFIABLE', is_valid: true, proof_ref: null, is_authoritative: false, value: 14 },
  });
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;
const text = (r: CallToolResult) => (r.content[0] as { text: string }).text;
const shape = (o: Record<string, any>) => ({
  taskQueue: o.taskQueue,
  workflowExecutionTimeout: o.workflowExecutionTimeout,
  id: String(o.workflowId).replace(/[0-9a-f-]{36}$/, '<uuid>'),
});

describe('POST /mcp in process', () => {
  it('verify_math starts the workflow POST /verify/math starts', async () => {
    const body = { expression: '2 + 3*4' };
    await send(app, '/verify/math', body);
    expect(app.starts).toHaveLength(1);
    const rest = app.starts[0]!;
    app.starts.length = 0;
    const r = await call('verify_math', body);
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({ status: 'UNVERIFIABLE', value: 14 });
    expect(app.starts).toHaveLength(1);
    const viaMcp = app.starts[0]!;
    expect(viaMcp.type).toBe(rest.type);
    expect(shape(viaMcp.options)).toEqual(shape(rest.options));
    expect(shape(viaMcp.options).id).toMatch(/^verify-math-org-inproc-<uuid>$/);
  });

  it('a bad argument starts no workflow; a Temporal outage is the route 503 as a tool error', async () => {
    const bad = await call('verify_math', { expression: 42 });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toMatch(/^math: HTTP 400: Invalid field 'expression'/);
    expect(app.starts).toHaveLength(0);
    app.script({ startError: Object.assign(new Error('unavailable'), { code: 14 }) });
    const down = await call('verify_math', { expression: '1+1' });
    expect(down.isError).toBe(true);
    expect(text(down)).toBe(`math: HTTP 503: ${BACKEND_UNAVAILABLE}`);
  });
});
