// The MCP server of one request (stateless Streamable HTTP: a server and a transport per POST,
// docs/mcp.md). The low-level SDK server: tools/list answers the tool table (api/mcp/tools.ts),
// tools/call runs the tool as its REST request with the caller's key. The SDK does not validate
// the arguments itself: the REST route is the one validation, so a bad argument is a tool error
// with the route's own detail.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { SERVICE_VERSION } from '../../core/version.js';
import type { McpToolName } from '../../contract/mcp.js';
import type { Loopback } from './loopback.js';
import { MCP_TOOL_TABLE, callTool } from './tools.js';

export const MCP_SERVER_NAME = 'svc-verification';

const INSTRUCTIONS =
  'Deterministic verification of AI output. Each tool is one REST verification of this service, with its audit entry, proof and signed attestation: ' +
  'VERIFIED only with a proof_ref. Bad arguments come back as tool errors naming the field. Batches run as durable jobs: batch_submit returns the job, batch_status reads it.';

export function mcpServer(loopback: Loopback, apiKey: string): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, title: 'Verification service', version: SERVICE_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS },
  );
  const tools = [...MCP_TOOL_TABLE.values()].map((t) => t.listing);
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = MCP_TOOL_TABLE.get(request.params.name as McpToolName);
    // An unknown tool is a protocol error (the specification's -32602), not a tool result.
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const args = request.params.arguments ?? {};
    const token = request.params._meta?.progressToken;
    const progress =
      token === undefined
        ? undefined
        : (value: number, total: number, message: string) =>
            extra.sendNotification({
              method: 'notifications/progress',
              params: { progressToken: token, progress: value, total, message },
            });
    return callTool(tool, args, { loopback, apiKey, signal: extra.signal, progress });
  });
  return server;
}
