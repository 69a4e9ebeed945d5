// Issue 23, "refuse early, close gracefully", in process: Node's fetch (undici) reads the 413 of
// every capped body although it is still sending when the answer comes (api/middleware/
// lingering-close.ts), the rest is dropped and never parsed, and the lingering ends at its bounds.
// The black-box rows, with the server's memory, are in test/http/body-linger.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInProcessApp, type InProcessApp } from './harness.js';
import { lingerStats } from '../../api/middleware/lingering-close.js';
import { bodyLimitDetail } from '../../api/middleware/body.js';
import { IMAGE_BODY_LIMIT_BYTES } from '../../contract/image.js';
import { STATS_BODY_LIMIT_BYTES } from '../../contract/stats.js';
import { WEBHOOK_BODY_LIMIT_BYTES, KEY_ID_HEADER, SIGNATURE_HEADER } from '../../contract/webhooks.js';

let app: InProcessApp;
beforeAll(async () => {
  app = await startInProcessApp();
});
afterAll(async () => {
  await app?.close();
});

const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

function form(field: 'image' | 'file', size: number, text: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(text)) f.set(k, v);
  const content = Buffer.alloc(size, field === 'image' ? 0 : 0x31);
  if (field === 'image') PNG_HEAD.copy(content);
  else content.write('a,b\n');
  f.set(field, new Blob([content]), field === 'image' ? 'big.png' : 'big.csv');
  return f;
}

/** A body that arrives in pieces (chunked, no Content-Length): the cap is hit while streaming. */
function streamed(total: number, piece = 64 * 1024): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(c) {
      if (sent >= total) return c.close();
      const n = Math.min(piece, total - sent);
      sent += n;
      c.enqueue(new Uint8Array(n).fill(0x20));
    },
  });
}

describe("Node's fetch reads every 413 (lingering close)", () => {
  const rows: Array<[string, () => Promise<Response>, string]> = [
    [
      'a 1.2 MB JSON body (Content-Length over the cap)',
      () =>
        fetch(`${app.url}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': app.key },
          body: JSON.stringify({ expression: 'x'.repeat(1_200_000) }),
        }),
      bodyLimitDetail(1_000_000),
    ],
    [
      'a 1.2 MB JSON body streamed (no Content-Length)',
      () =>
        fetch(`${app.url}/verify/math`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': app.key },
          body: streamed(1_200_000),
          duplex: 'half',
        } as RequestInit),
      bodyLimitDetail(1_000_000),
    ],
    [
      'a 12 MiB image',
      () =>
        fetch(`${app.url}/verify/image`, {
          method: 'POST',
          headers: { 'x-api-key': app.key },
          body: form('image', 12 * 1024 * 1024, { claim: 'the image is red' }),
        }),
      bodyLimitDetail(IMAGE_BODY_LIMIT_BYTES),
    ],
    [
      'a 12 MB CSV',
      () =>
        fetch(`${app.url}/verify/stats`, {
          method: 'POST',
          headers: { 'x-api-key': app.key },
          body: form('file', 12_000_000, { query: 'mean(a) > 1' }),
        }),
      bodyLimitDetail(STATS_BODY_LIMIT_BYTES),
    ],
    [
      'a webhook delivery over 1 MiB',
      () =>
        fetch(`${app.url}/webhooks/secret-scanning`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [KEY_ID_HEADER]: 'abc123', [SIGNATURE_HEADER]: 'AAAA' },
          body: JSON.stringify([{ token: 'x'.repeat(WEBHOOK_BODY_LIMIT_BYTES), type: 't' }]),
        }),
      bodyLimitDetail(WEBHOOK_BODY_LIMIT_BYTES),
    ],
  ];
  it.each(rows)('%s', async (_label, request, detail) => {
    const res = await request();
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
    expect(app.starts).toHaveLength(0);
  });

  it('stops lingering at its bounds: a client that never finishes its body is cut off', async () => {
    const { createConnection } = await import('node:net');
    const url = new URL(app.url);
    const cutBefore = lingerStats.cutAtBound;
    const started = Date.now();
    // Half-open: the client does not close on the server's FIN, it just never sends the rest.
    const sock = createConnection({ port: Number(url.port), host: url.hostname, allowHalfOpen: true });
    const refused = new Promise<string>((resolve) =>
      sock.on('error', (e: NodeJS.ErrnoException) => resolve(String(e.code))),
    );
    const answer = await new Promise<string>((resolve) => {
      let data = '';
      sock.on('data', (d) => (data += d.toString()));
      sock.on('end', () => resolve(data));
      sock.write(
        `POST /verify/math HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${app.key}\r\nContent-Length: 5000000\r\n\r\n{"expression":"`,
      );
    });
    // The answer and the server's FIN come at once; reading goes on.
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain(bodyLimitDetail(1_000_000));
    // At once: the answer came before the 2 s idle bound cut the socket (order, not a clock: load-proof).
    expect(lingerStats.cutAtBound).toBe(cutBefore);
    // Idle bound: 2 s without a byte, then the socket is closed (the poll's 15 s is half the 30 s total bound).
    await expect.poll(() => lingerStats.cutAtBound, { timeout: 15_000, interval: 100 }).toBeGreaterThan(cutBefore);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1_900);
    // What the client sends now meets a closed socket (reset; seen on the next write).
    const writer = setInterval(() => sock.write('x'.repeat(10_000)), 50);
    try {
      expect(['ECONNRESET', 'EPIPE']).toContain(await refused);
    } finally {
      clearInterval(writer);
      sock.destroy();
    }
  });
});
