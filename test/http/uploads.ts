// Multipart helpers for the /verify/stats tests: a fetch-based form post, and a raw HTTP
// client that reads the response even when the server stops reading the body early (413).
import http from 'node:http';
import { apiUrl } from './helpers.js';

export interface UploadResult {
  status: number;
  body: any;
  headers: http.IncomingHttpHeaders | Headers;
}

export async function postStats(
  key: string,
  parts: {
    file?: string | Buffer | null;
    query?: string | null;
    filename?: string;
    extraFields?: Record<string, string>;
  },
  base = apiUrl(),
): Promise<UploadResult> {
  const fd = new FormData();
  if (parts.query !== undefined && parts.query !== null) fd.append('query', parts.query);
  for (const [k, v] of Object.entries(parts.extraFields ?? {})) fd.append(k, v);
  if (parts.file !== undefined && parts.file !== null) {
    fd.append(
      'file',
      new Blob([typeof parts.file === 'string' ? parts.file : new Uint8Array(parts.file)], { type: 'text/csv' }),
      parts.filename ?? 'data.csv',
    );
  }
  const res = await fetch(`${base}/verify/stats`, { method: 'POST', body: fd, headers: { 'x-api-key': key } });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

export const BOUNDARY = 'svc-test-boundary-7d1f';

/** A multipart body with a `query` field and a `file` part. */
export function multipartBody(query: string, file: Buffer | string): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="query"\r\n\r\n${query}\r\n` +
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="data.csv"\r\nContent-Type: text/csv\r\n\r\n`,
    ),
    Buffer.isBuffer(file) ? file : Buffer.from(file),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

/**
 * Sends `body` in chunks (chunked transfer encoding unless contentLength is given) and resolves
 * with the response as soon as it arrives; write errors after the server gave up are ignored.
 */
export function rawPost(
  path: string,
  headers: Record<string, string>,
  body: Buffer,
  opts: { contentLength?: number; chunkBytes?: number; base?: string } = {},
): Promise<UploadResult> {
  const url = new URL(path, opts.base ?? apiUrl());
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: {
          'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
          ...(opts.contentLength !== undefined ? { 'content-length': String(opts.contentLength) } : {}),
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, headers: res.headers });
          req.destroy();
        });
      },
    );
    let responded = false;
    req.on('response', () => (responded = true));
    req.on('error', (err) => {
      if (!responded) reject(err);
    });
    const size = opts.chunkBytes ?? 256 * 1024;
    let offset = 0;
    const pump = () => {
      while (offset < body.length && !req.destroyed) {
        const part = body.subarray(offset, offset + size);
        offset += part.length;
        if (!req.write(part)) {
          req.once('drain', pump);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    pump();
  });
}
