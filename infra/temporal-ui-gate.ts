// The dev and test stacks' Temporal UI, read-only (issue 28 item 1; docs/deployment.md). The
// temporal CLI's dev server embeds the UI server without its `disableWriteActions` setting, and
// its UI takes anyone who reaches it: a tenant's batch was terminated through the UI's API. So the
// stack runs that UI on an internal loopback port and this gate on the UI's public port:
//   - reads (GET, HEAD) pass; `GET /api/v1/settings` is answered with every write action off,
//     so the UI hides terminate, cancel, signal, reset, start and batch actions, and with the
//     codec's cross-origin credentials on (the operator's codec-server cookie is sent);
//   - workflow queries (POST …/workflows/{id}/query/{type}) pass: read-only by Temporal's
//     contract (the UI's stack-trace view uses them);
//   - every other request (terminate, cancel, signal, reset, start, update, batch, delete…) gets
//     403, whatever the UI shows, and so does any method-override header.
// Production runs the UI server itself with auth on and write actions off for non-operators.
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';

export const UI_WRITE_REFUSED = 'Write actions are off in this Temporal UI (read-only; docs/deployment.md).';

/** UI server settings that turn every write action off (ui-server config names). */
export const READ_ONLY_SETTINGS: Record<string, boolean> = {
  DisableWriteActions: true,
  WorkflowTerminateDisabled: true,
  WorkflowCancelDisabled: true,
  WorkflowSignalDisabled: true,
  WorkflowUpdateDisabled: true,
  WorkflowResetDisabled: true,
  WorkflowPauseDisabled: true,
  BatchActionsDisabled: true,
  StartWorkflowDisabled: true,
  ActivityCommandsDisabled: true,
};

/**
 * The codec settings the UI gets (issue 27, point 5): with a codec endpoint configured, the UI
 * sends cookies with every decode call ("Include cross-origin credentials" on, where the dev
 * server's UI has no flag for it), so an operator who signed in at the codec server sees
 * decrypted payloads on the first try; a failed decode names where to sign in.
 */
export function codecSettings(codec: unknown): Record<string, unknown> | undefined {
  if (!codec || typeof codec !== 'object') return undefined;
  const c = codec as Record<string, unknown>;
  if (typeof c.Endpoint !== 'string' || c.Endpoint === '') return c;
  const signIn = c.Endpoint.replace(/\/+$/, '') + '/';
  return {
    ...c,
    IncludeCredentials: true,
    DefaultErrorMessage: `Payloads are encrypted. Platform operators: sign in at the codec server (${signIn}) with your access token, then reload.`,
    DefaultErrorLink: signIn,
  };
}

/** The UI settings as the gate serves them: write actions off, codec credentials on. */
export function gatedSettings(upstream: Record<string, unknown>): Record<string, unknown> {
  const codec = codecSettings(upstream.Codec);
  return { ...upstream, ...READ_ONLY_SETTINGS, ...(codec ? { Codec: codec } : {}) };
}

const QUERY_PATH = /^\/api\/v1\/namespaces\/[^/]+\/workflows\/[^/]+\/query\/[^/]+\/?$/;
const SETTINGS_PATH = /^\/api\/v1\/settings\/?$/;
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

/** Whether the gate lets this request through to the UI server. */
export function uiRequestAllowed(method: string, path: string, headers: IncomingHttpHeaders): boolean {
  if (Object.keys(headers).some((h) => /^x-(?:http-)?method(?:-override)?$/i.test(h))) return false;
  if (method === 'GET' || method === 'HEAD') return true;
  return method === 'POST' && QUERY_PATH.test(path);
}

function forwardHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out = { ...headers };
  for (const h of HOP_BY_HOP) delete out[h];
  return out;
}

function refuse(res: ServerResponse): void {
  const body = JSON.stringify({ code: 7, message: UI_WRITE_REFUSED, detail: UI_WRITE_REFUSED });
  res.writeHead(403, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function createUiGate(upstream: { host: string; port: number }): Server {
  return createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? '/';
    const method = (req.method ?? 'GET').toUpperCase();
    if (!uiRequestAllowed(method, path, req.headers)) {
      req.resume();
      refuse(res);
      return;
    }
    const settings = method === 'GET' && SETTINGS_PATH.test(path);
    const headers = forwardHeaders(req.headers);
    // The settings answer is rewritten: ask for it uncompressed.
    if (settings) delete headers['accept-encoding'];
    const up = request({ host: upstream.host, port: upstream.port, method, path: url, headers }, (ur) => {
      if (!settings || (ur.statusCode ?? 500) !== 200) {
        res.writeHead(ur.statusCode ?? 502, forwardHeaders(ur.headers));
        ur.pipe(res);
        return;
      }
      const chunks: Buffer[] = [];
      ur.on('data', (c: Buffer) => chunks.push(c));
      ur.on('end', () => {
        let body: string;
        try {
          body = JSON.stringify(
            gatedSettings(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>),
          );
        } catch {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end('unreadable UI settings');
          return;
        }
        const h = forwardHeaders(ur.headers);
        delete h['content-length'];
        delete h['content-encoding'];
        res.writeHead(200, { ...h, 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
      ur.on('error', () => res.destroy());
    });
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end('Temporal UI unavailable');
    });
    req.pipe(up);
  });
}

// Entry point (infra/stack.ts): SVC_TEMPORAL_UI_GATE_PORT (listen) → SVC_TEMPORAL_UI_UPSTREAM_PORT (the embedded UI).
if (process.argv[1] && /temporal-ui-gate\.[jt]s$/.test(process.argv[1])) {
  const port = Number(process.env.SVC_TEMPORAL_UI_GATE_PORT);
  const upstreamPort = Number(process.env.SVC_TEMPORAL_UI_UPSTREAM_PORT);
  const server = createUiGate({ host: '127.0.0.1', port: upstreamPort });
  server.listen(port, '127.0.0.1', () =>
    console.log(
      JSON.stringify({
        component: 'temporal-ui-gate',
        msg: 'read-only Temporal UI gate listening',
        port,
        upstream: upstreamPort,
      }),
    ),
  );
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
