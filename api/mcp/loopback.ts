// Runs a REST request through this process's own Koa app, so that an MCP tool call is the REST
// call: the same guard (key, scope, plan limit), validation, workflow, audit entry, proof and
// attestation, with nothing copied. The app's handler (app.callback(), what the API's server
// runs) is served on a private loopback listener, opened on first use and never keeping the
// process alive; it grants nothing of its own: every request carries the caller's API key and
// is authenticated like any other.
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackAnswer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or undefined when the answer is not JSON. */
  json: unknown;
  text: string;
}

export interface LoopbackRequest {
  method: 'GET' | 'POST';
  path: string;
  apiKey: string;
  /** A JSON body, or a multipart form (upload routes). */
  body?: { json: unknown } | { form: FormData };
  signal?: AbortSignal;
}

export class Loopback {
  private listening: Promise<string> | null = null;

  constructor(private readonly handler: () => RequestListener) {}

  private base(): Promise<string> {
    this.listening ??= new Promise<string>((resolve, reject) => {
      const server = createServer(this.handler());
      server.requestTimeout = 0; // as the API's own server: body deadlines are per route
      server.headersTimeout = 15_000;
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => {
        server.unref();
        resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      });
    }).catch((err) => {
      this.listening = null;
      throw err;
    });
    return this.listening;
  }

  async request(req: LoopbackRequest): Promise<LoopbackAnswer> {
    const headers: Record<string, string> = {
      'X-API-Key': req.apiKey,
      Accept: 'application/json',
      'User-Agent': 'svc-mcp',
    };
    let body: string | FormData | undefined;
    if (req.body && 'json' in req.body) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(req.body.json);
    } else if (req.body) {
      body = req.body.form;
    }
    const res = await fetch(`${await this.base()}${req.path}`, {
      method: req.method,
      headers,
      body,
      signal: req.signal,
    });
    const text = await res.text();
    let json: unknown;
    if (/^application\/(?:[\w.+-]+\+)?json/i.test(res.headers.get('content-type') ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    return { status: res.status, headers: res.headers, json, text };
  }
}
