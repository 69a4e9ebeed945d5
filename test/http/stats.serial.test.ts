// POST /verify/stats: the upload-capacity row. It holds every upload slot of the stack's API
// process, which all tenants share, so the file runs alone (vitest.config.ts); the other
// /verify/stats rows are in stats.test.ts.
import net from 'node:net';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newTenant, type Member } from './helpers.js';
import { postStats, BOUNDARY } from './uploads.js';

const CSV = 'name,price,qty\napple,10,3\npear,15,5\nplum,12.5,4\nfig,12.5,8\n';

describe('POST /verify/stats', () => {
  let t: Member;
  const stats = (file: string | Buffer | null, query: string | null) => postStats(t.key, { file, query });
  beforeAll(async () => {
    t = await newTenant();
  });

  it('holds at most 8 uploads per process: the 9th gets 503 until one finishes', async () => {
    const url = new URL(inject('apiUrl'));
    const stalled: net.Socket[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        const sock = net.connect(Number(url.port), url.hostname);
        await new Promise<void>((r) => sock.once('connect', () => r()));
        sock.on('error', () => undefined);
        sock.write(
          `POST /verify/stats HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.key}\r\n` +
            `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 5000\r\n\r\n--${BOUNDARY}\r\n`,
        );
        stalled.push(sock);
      }
      // Every stalled request has passed authentication and holds its slot.
      await new Promise((r) => setTimeout(r, 1500));
      const busy = await stats(CSV, 'count');
      expect(busy.status).toBe(503);
      expect(busy.body).toEqual({
        detail: 'Upload capacity reached — retry shortly.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    } finally {
      for (const s of stalled) s.destroy();
    }
    await new Promise((r) => setTimeout(r, 500));
    const after = await stats(CSV, 'count');
    expect(after.status).toBe(200);
    expect(after.body.developer_fields.observed_result).toBe(4);
  });
});
