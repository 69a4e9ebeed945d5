// Issue 23, "refuse early, close gracefully", black box: through Node's own fetch (undici, what
// the reference's TypeScript client and most JavaScript callers use), every capped body gets its
// 413 with the contract's detail although the client is still sending when the answer comes
// (api/middleware/lingering-close.ts: answer at once, then read and drop the rest, bounded), and
// the API's memory does not grow with what it drops (measured on an API process of this file's
// own, so other files' load does not blur it). In-process rows: test/inproc/lingering-close.test.ts.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiUrl, newTenant } from './helpers.js';
import { startExtraApi, type ExtraApi } from './extra-api.js';

const JSON_DETAIL = 'Request body exceeds the 1000000 byte limit for this endpoint.';
const IMAGE_DETAIL = `Request body exceeds the ${10 * 1024 * 1024 + 64 * 1024} byte limit for this endpoint.`;
const CSV_DETAIL = `Request body exceeds the ${10_000_000 + 64 * 1024} byte limit for this endpoint.`;
const WEBHOOK_DETAIL = 'Request body exceeds the 1048576 byte limit for this endpoint.';
const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const MiB = 1024 * 1024;

function form(field: 'image' | 'file', size: number, text: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(text)) f.set(k, v);
  const content = Buffer.alloc(size, field === 'image' ? 0 : 0x31);
  if (field === 'image') PNG_HEAD.copy(content);
  else content.write('a,b\n');
  f.set(field, new Blob([content]), field === 'image' ? 'big.png' : 'big.csv');
  return f;
}

/** A body sent in pieces without a Content-Length: the cap is hit while it streams. */
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

type Row = [label: string, send: (base: string, key: string) => Promise<Response>, detail: string];
const ROWS: Row[] = [
  [
    'a 1.2 MB JSON body',
    (base, key) =>
      fetch(`${base}/verify/math`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ expression: 'x'.repeat(1_200_000) }),
      }),
    JSON_DETAIL,
  ],
  [
    'a 1.2 MB JSON body streamed without Content-Length',
    (base, key) =>
      fetch(`${base}/verify/math`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: streamed(1_200_000),
        duplex: 'half',
      } as RequestInit),
    JSON_DETAIL,
  ],
  [
    'a 12 MiB image',
    (base, key) =>
      fetch(`${base}/verify/image`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: form('image', 12 * MiB, { claim: 'the image is red' }),
      }),
    IMAGE_DETAIL,
  ],
  [
    'a 12 MB CSV',
    (base, key) =>
      fetch(`${base}/verify/stats`, {
        method: 'POST',
        headers: { 'x-api-key': key },
        body: form('file', 12_000_000, { query: 'mean(a) > 1' }),
      }),
    CSV_DETAIL,
  ],
  [
    'a webhook delivery over the 1 MiB cap',
    (base) =>
      fetch(`${base}/webhooks/secret-scanning`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'Github-Public-Key-Identifier': 'abc123',
          'Github-Public-Key-Signature': 'AAAA',
        },
        body: JSON.stringify([{ token: 'x'.repeat(1_100_000), type: 'svc_api_key' }]),
      }),
    WEBHOOK_DETAIL,
  ],
];

let key = '';
let own: ExtraApi | null = null;
beforeAll(async () => {
  key = (await newTenant()).key;
  own = await startExtraApi('linger-api', {});
});
afterAll(async () => {
  await own?.proc.stop();
});

describe("Node's fetch reads the 413 of every capped body", () => {
  it.each(ROWS)('%s', async (_label, send, detail) => {
    const res = await send(apiUrl(), key);
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
  });

  it('a body under the cap right after a refused one is answered normally (the refusal did not poison the next connection)', async () => {
    expect((await ROWS[0][1](apiUrl(), key)).status).toBe(413);
    const res = await fetch(`${apiUrl()}/verify/math`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ expression: '2 + 2 = 4' }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).is_valid).toBe(true);
  });
});

describe('what is dropped is not kept', () => {
  const rssBytes = (pid: number) =>
    Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) * 1024;

  it('the API drops 480 MiB of refused uploads and its resident memory grows by less than a tenth of that', async () => {
    const pid = own!.proc.pid as number;
    expect(pid).toBeGreaterThan(0);
    // Warm-up: every path once (code loaded, buffers allocated).
    for (const [, send, detail] of ROWS)
      expect(await (await send(own!.url, key)).json()).toEqual({
        detail,
        code: expect.any(String),
        request_id: expect.any(String),
      });
    const before = rssBytes(pid);
    let dropped = 0;
    for (let i = 0; i < 20; i++) {
      const image = await ROWS[2][1](own!.url, key);
      expect(image.status).toBe(413);
      await image.arrayBuffer();
      const csv = await ROWS[3][1](own!.url, key);
      expect(csv.status).toBe(413);
      await csv.arrayBuffer();
      dropped += 12 * MiB + 12_000_000;
    }
    const grown = rssBytes(pid) - before;
    console.info(
      `lingering close: ~${Math.round(dropped / MiB)} MiB sent after the refusals; API RSS ${Math.round(before / MiB)} MiB -> grew ${Math.round(grown / MiB)} MiB`,
    );
    // Kept, it would be ~480 MiB; the allocator and a late GC account for a few tens of MiB at most.
    expect(grown).toBeLessThan(dropped / 10);
  }, 180_000);
});
