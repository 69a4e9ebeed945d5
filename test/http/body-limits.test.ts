import { beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { inject } from 'vitest';
import { http, newTenant } from './helpers.js';

function rawRequest(
  payload: string,
  { holdOpenMs = 0 } = {},
): Promise<{ status: number; body: string; elapsedMs: number }> {
  const url = new URL(inject('apiUrl'));
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const sock = net.connect(Number(url.port), url.hostname, () => {
      sock.write(payload);
      if (holdOpenMs === 0) return;
    });
    let data = '';
    sock.on('data', (d) => (data += d.toString()));
    sock.on('error', reject);
    sock.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0);
      const body = data.split('\r\n\r\n').slice(1).join('\r\n\r\n');
      resolve({ status, body, elapsedMs: Date.now() - started });
    });
  });
}

describe('request body caps', () => {
  let apiKey = '';
  beforeAll(async () => {
    apiKey = (await newTenant()).key;
  });

  it('rejects a declared body over 1,000,000 bytes with 413 before reading it', async () => {
    const res = await rawRequest(
      'POST /verify/math HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000001\r\n\r\n{"expression":"',
    );
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body)).toEqual({
      detail: 'Request body exceeds the 1000000 byte limit for this endpoint.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('rejects a chunked body as soon as it passes the cap', async () => {
    const big = 'x'.repeat(1_000_050);
    const res = await http('POST', '/verify/math', {
      rawBody: JSON.stringify({ expression: big }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      detail: 'Request body exceeds the 1000000 byte limit for this endpoint.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
  });

  it('accepts a body of exactly 1,000,000 bytes (and validates it)', async () => {
    const prefix = '{"expression":"1+1","pad":"';
    const suffix = '"}';
    const body = prefix + 'p'.repeat(1_000_000 - prefix.length - suffix.length) + suffix;
    expect(Buffer.byteLength(body)).toBe(1_000_000);
    const res = await http('POST', '/verify/math', {
      rawBody: body,
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    });
    expect(res.status).toBe(200);
    expect(res.body.is_valid).toBe(true);
  });

  it('rejects an invalid Content-Length with 400', async () => {
    const res = await rawRequest(
      'POST /verify/math HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 12abc\r\n\r\n',
    );
    expect(res.status).toBe(400);
  });

  it('answers 408 when the body is not received within 10 s', async () => {
    const res = await rawRequest(
      'POST /verify/math HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"expression":',
      { holdOpenMs: 1 },
    );
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({
      detail: 'Request body not received in time.',
      code: expect.any(String),
      request_id: expect.any(String),
    });
    expect(res.elapsedMs).toBeGreaterThanOrEqual(9_900);
    expect(res.elapsedMs).toBeLessThan(15_000);
  }, 20_000);
});
