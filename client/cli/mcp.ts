// `svc mcp`: a stdio MCP server for clients that only speak stdio (docs/mcp.md). It forwards to
// the service's own MCP server (POST <base URL>/mcp, Streamable HTTP) with the caller's API key:
// tools/list and tools/call go through unchanged, progress notifications come back to the local
// client. Nothing is decided here (no tool table of its own): the remote server is the authority.
// stdout carries the protocol only; messages for a person go to stderr.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  CallToolRequestSchema,
  CallToolResultSchema,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { EXIT } from './exit-codes.js';

/** A tool call may wait for a batch up to a minute and reports progress meanwhile. */
const CALL_TIMEOUT_MS = 120_000;
/** The pause between the last relayed progress notification and the result (see below). */
const PROGRESS_GAP_MS = 100;

export interface McpProxyOptions {
  baseUrl: string;
  apiKey: string;
  version: string;
  err: (text: string) => void;
}

/** The MCP endpoint under a base URL (a path prefix such as /v1 is kept). */
export function mcpUrl(baseUrl: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl;
  return new URL(`${base}/mcp`);
}

/** Runs until stdin closes; the exit code says why it ended. */
export async function runMcpProxy(o: McpProxyOptions): Promise<number> {
  const remote = new Client({ name: 'svc-cli', version: o.version });
  const upstream = new StreamableHTTPClientTransport(mcpUrl(o.baseUrl), {
    requestInit: { headers: { 'X-API-Key': o.apiKey } },
  });
  try {
    await remote.connect(upstream);
  } catch (err) {
    if (err instanceof StreamableHTTPError && (err.code === 401 || err.code === 403)) {
      o.err(`svc mcp: the service refused the API key (HTTP ${err.code})`);
      return EXIT.NOPERM;
    }
    o.err(`svc mcp: cannot reach ${mcpUrl(o.baseUrl).href}: ${(err as Error).message}`);
    return EXIT.UNAVAILABLE;
  }
  const info = remote.getServerVersion();
  const local = new Server(
    { name: info?.name ?? 'svc-verification', title: info?.title, version: info?.version ?? o.version },
    { capabilities: { tools: {} }, instructions: remote.getInstructions() },
  );
  local.setRequestHandler(ListToolsRequestSchema, (req, extra) =>
    remote.listTools(req.params, { signal: extra.signal }),
  );
  local.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const token = req.params._meta?.progressToken;
    // Relayed notifications are written in order and before the result: the remote sends its
    // last progress before its answer, and the local client must see it that way too.
    let relayed = Promise.resolve();
    const result = await remote.request({ method: 'tools/call', params: req.params }, CallToolResultSchema, {
      signal: extra.signal,
      timeout: CALL_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress:
        token === undefined
          ? undefined
          : (p) => {
              relayed = relayed.then(() =>
                extra
                  .sendNotification({ method: 'notifications/progress', params: { ...p, progressToken: token } })
                  .catch(() => undefined),
              );
            },
    });
    await relayed;
    // As the remote server does (api/mcp/tools.ts, followBatch): the SDK's client drops a request's
    // progress handler with its response, so a last notification read in the same chunk as the
    // result is lost. A pause after the relayed notifications writes them apart.
    if (token !== undefined) await new Promise((r) => setTimeout(r, PROGRESS_GAP_MS));
    return result;
  });
  const stdio = new StdioServerTransport();
  const ended = new Promise<void>((resolve) => {
    stdio.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await local.connect(stdio);
  await ended;
  await local.close().catch(() => undefined);
  await remote.close().catch(() => undefined);
  return EXIT.VERIFIED;
}
