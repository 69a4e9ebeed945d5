// POST /verify/image through the real stack: every measurement on images generated here with
// sharp, content claims (VLM_REQUIRED; with the scripted vision provider INCONCLUSIVE and the
// description reported), and every refusal: wrong magic bytes, decompression bomb, oversized
// file and body, missing fields, stalled upload (408).
import net from 'node:net';
import { deflateSync, crc32 } from 'node:zlib';
import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManagedProcess } from '../../infra/stack.js';
import { apiUrl, db, newTenant, type Member } from './helpers.js';
import { startExtraApi } from './extra-api.js';
import { BOUNDARY, rawPost } from './uploads.js';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function postImage(
  key: string,
  parts: { image?: Buffer | null; claim?: string | null; provider?: string; filename?: string; type?: string },
  base = apiUrl(),
) {
  const fd = new FormData();
  if (parts.claim !== undefined && parts.claim !== null) fd.append('claim', parts.claim);
  if (parts.provider !== undefined) fd.append('provider', parts.provider);
  if (parts.image)
    fd.append(
      'image',
      new Blob([new Uint8Array(parts.image)], { type: parts.type ?? 'application/octet-stream' }),
      parts.filename ?? 'upload.bin',
    );
  const res = await fetch(`${base}/verify/image`, { method: 'POST', body: fd, headers: { 'x-api-key': key } });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body, headers: res.headers };
}

/** A valid grayscale PNG of zero pixels: tiny file, huge decoded size (a decompression bomb). */
function pngBomb(width: number, height: number, idatRows = height): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const raw = Buffer.alloc((width + 1) * idatRows); // filter byte 0 + zero pixels per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const solid = (width: number, height: number, background: any, channels: 3 | 4 = 3) =>
  sharp({ create: { width, height, channels, background } });

describe('POST /verify/image', () => {
  let t: Member;
  const img: Record<string, Buffer> = {};
  beforeAll(async () => {
    t = await newTenant();
    img.red = await solid(800, 600, { r: 220, g: 20, b: 30 }).png().toBuffer();
    img.alpha = await solid(100, 100, { r: 0, g: 0, b: 255, alpha: 0.5 }, 4).png().toBuffer();
    img.opaqueAlpha = await solid(120, 80, { r: 0, g: 128, b: 0, alpha: 1 }, 4).png().toBuffer();
    img.gray = await solid(300, 400, { r: 90, g: 90, b: 90 }).jpeg().toBuffer();
    img.rotated = await solid(400, 200, { r: 10, g: 10, b: 200 }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const f1 = await solid(64, 48, '#00c000').png().toBuffer();
    const f2 = await solid(64, 48, '#0000ff').png().toBuffer();
    img.gif = await sharp([f1, f2, f1], { join: { animated: true } })
      .gif({ delay: [100, 100, 100], loop: 0 })
      .toBuffer();
    img.webp = await sharp([f1, f2], { join: { animated: true } })
      .webp({ lossless: true })
      .toBuffer();
    img.stillWebp = await solid(160, 90, '#ffd700').webp({ lossless: true }).toBuffer();
    // Mostly white with a blue quarter: dominant white, average light blue-grey.
    img.mixed = await solid(200, 200, '#ffffff')
      .composite([{ input: await solid(100, 100, '#0000ff').png().toBuffer(), left: 0, top: 0 }])
      .png()
      .toBuffer();
  });

  const verify = (name: string, claim: string, extra: { provider?: string } = {}) =>
    postImage(t.key, { image: img[name]!, claim, ...extra });

  it('dimensions: SUPPORTED with the measured values, methods_used and every measurement', async () => {
    const res = await verify('red', 'The image is 800x600 pixels');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-workflow-id')).toMatch(/^verify-image-/);
    expect(res.body).toMatchObject({
      verdict: 'SUPPORTED',
      confidence: 1,
      methods_used: ['dimensions'],
      content_terms: [],
      vlm_description: null,
      provider_used: 'local',
      provider_error: null,
    });
    expect(res.body.reasoning).toBe('Supported by measurement: "800x600 pixels": holds (800x600 pixels).');
    expect(res.body.image_sha256).toBe(sha(img.red!));
    expect(res.body.measurements).toMatchObject({
      format: 'png',
      width: 800,
      height: 600,
      stored_width: 800,
      stored_height: 600,
      exif_orientation: null,
      megapixels: 0.48,
      aspect_ratio: { value: 1.3333, ratio: '4:3' },
      orientation: 'landscape',
      has_alpha: false,
      transparent: false,
      animated: false,
      frame_count: 1,
      grayscale: false,
      max_channel_difference: 200,
      dominant_color: { hex: '#dc141e', name: 'red', family: 'red', share: 1 },
      average_color: { hex: '#dc141e', name: 'red', family: 'red' },
      file_size_bytes: img.red!.length,
    });
  });

  it.each([
    ['red', 'The image is 1920x1080', 'REFUTED', ['dimensions'], /800x600 pixels/],
    ['red', 'It is at least 1000 pixels wide', 'REFUTED', ['dimensions'], /width 800 px \(claimed ≥ 1000\)/],
    ['red', 'The height is 600 px', 'SUPPORTED', ['dimensions'], /height 600 px/],
    ['red', 'The image is a PNG file', 'SUPPORTED', ['format'], /format PNG/],
    ['red', 'This is a JPEG', 'REFUTED', ['format'], /format PNG/],
    ['red', 'The aspect ratio is 4:3', 'SUPPORTED', ['aspect_ratio'], /aspect ratio 4:3/],
    ['red', 'The aspect ratio is 16:9', 'REFUTED', ['aspect_ratio'], /aspect ratio 4:3/],
    ['red', 'The image is in landscape orientation', 'SUPPORTED', ['orientation'], /orientation landscape/],
    ['red', 'The image is mostly red', 'SUPPORTED', ['dominant_color'], /dominant colour #dc141e \(red/],
    ['red', 'The image is mostly blue', 'REFUTED', ['dominant_color'], /dominant colour #dc141e/],
    ['red', 'The file is under 100 KB', 'SUPPORTED', ['file_size'], /file size \d+ bytes/],
    ['red', 'The file is larger than 1 MB', 'REFUTED', ['file_size'], /claimed > 1000000 bytes/],
    [
      'red',
      'The image is not animated and has no transparency',
      'SUPPORTED',
      ['animation', 'transparency'],
      /a single frame/,
    ],
    ['red', 'The image is 0.48 megapixels', 'SUPPORTED', ['dimensions'], /0\.48 megapixels/],
    ['alpha', 'The image has transparency', 'SUPPORTED', ['transparency'], /10000 pixels are not fully opaque/],
    ['alpha', 'The image is opaque', 'REFUTED', ['transparency'], /not fully opaque/],
    ['alpha', 'The PNG has an alpha channel', 'SUPPORTED', ['format', 'alpha'], /an alpha channel is present/],
    [
      'opaqueAlpha',
      'The image has transparency',
      'REFUTED',
      ['transparency'],
      /every pixel is fully opaque \(alpha channel present\)/,
    ],
    ['opaqueAlpha', 'The image has an alpha channel', 'SUPPORTED', ['alpha'], /alpha channel is present/],
    [
      'gray',
      'The photo is grayscale',
      'SUPPORTED',
      ['grayscale'],
      /largest difference between colour channels of a pixel: 0/,
    ],
    ['red', 'The picture is black and white', 'REFUTED', ['grayscale'], /largest difference .*: 200/],
    ['gray', 'The image is in portrait orientation', 'SUPPORTED', ['orientation'], /portrait \(300x400/],
    ['rotated', 'The image is 200x400 and portrait', 'SUPPORTED', ['dimensions', 'orientation'], /200x400 pixels/],
    ['gif', 'This is an animated GIF', 'SUPPORTED', ['animation', 'format'], /animated, 3 frames/],
    ['gif', 'The GIF has 3 frames', 'SUPPORTED', ['format', 'animation'], /3 frames \(claimed = 3\)/],
    ['gif', 'The image is static', 'REFUTED', ['animation'], /animated, 3 frames/],
    ['webp', 'An animated WebP with 2 frames', 'SUPPORTED', ['animation', 'format'], /2 frames/],
    ['stillWebp', 'The image is animated', 'REFUTED', ['animation'], /a single frame/],
    [
      'stillWebp',
      'The image has a 16:9 aspect ratio and is mostly yellow',
      'SUPPORTED',
      ['aspect_ratio', 'dominant_color'],
      /gold, a yellow/,
    ],
    [
      'mixed',
      'The image is predominantly white',
      'SUPPORTED',
      ['dominant_color'],
      /#ffffff \(white, a white, 75 % of visible pixels\)/,
    ],
    ['mixed', 'The average colour is blue', 'REFUTED', ['average_color'], /average colour #bfbfff/],
  ])('%s: "%s" → %s', async (name, claim, verdict, methods, reasoning) => {
    const res = await verify(name, claim);
    expect(res.status).toBe(200);
    expect(res.body.verdict).toBe(verdict);
    expect(res.body.methods_used).toEqual(methods);
    expect(res.body.reasoning).toMatch(reasoning);
    expect(res.body.confidence).toBeGreaterThan(0.8);
  });

  it('EXIF orientation: dimensions as displayed, stored ones reported too', async () => {
    const res = await verify('rotated', 'The image is 200x400');
    expect(res.body.measurements).toMatchObject({
      width: 200,
      height: 400,
      stored_width: 400,
      stored_height: 200,
      exif_orientation: 6,
      orientation: 'portrait',
      format: 'jpeg',
    });
  });

  it('animated images: frame count, per-frame height, pixels of every frame', async () => {
    const res = await verify('gif', 'The image is 64x48');
    expect(res.body.verdict).toBe('SUPPORTED');
    expect(res.body.measurements).toMatchObject({
      format: 'gif',
      width: 64,
      height: 48,
      animated: true,
      frame_count: 3,
    });
    const webp = await verify('webp', 'The image is 64x48');
    expect(webp.body.measurements).toMatchObject({ format: 'webp', animated: true, frame_count: 2, has_alpha: false });
  });

  it('a content claim is VLM_REQUIRED (no model configured for the request)', async () => {
    const res = await verify('red', 'A photo of a cat sleeping on a sofa');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      verdict: 'VLM_REQUIRED',
      confidence: 0,
      methods_used: [],
      content_terms: ['cat', 'sleeping', 'sofa'],
      vlm_description: null,
    });
    expect(res.body.reasoning).toMatch(
      /^The claim is about the image's content \("cat", "sleeping", "sofa"\), which no measurement settles\./,
    );
  });

  it('a colour word on content is content: "a red car" is VLM_REQUIRED, not a dominant-colour claim', async () => {
    const res = await verify('red', 'A red car');
    expect(res.body).toMatchObject({ verdict: 'VLM_REQUIRED', content_terms: ['car', 'red'] });
  });

  it('content + a false measurable part is REFUTED by the measurement', async () => {
    const res = await verify('red', 'A 640x480 photo of a cat');
    expect(res.body).toMatchObject({ verdict: 'REFUTED', confidence: 1, methods_used: ['dimensions'] });
  });

  it('with a vision provider the reading is reported but never decides: INCONCLUSIVE', async () => {
    for (const provider of ['openai', 'anthropic']) {
      const res = await verify('red', 'A photo of a cat sleeping on a sofa', { provider });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        verdict: 'INCONCLUSIVE',
        confidence: 0,
        provider_used: provider,
        provider_error: null,
        vlm_description: 'A flat, single-coloured image with no recognisable objects.',
        methods_used: ['vlm_description'],
      });
      expect(res.body.reasoning).toMatch(/a model's description is not a measurement/);
    }
  });

  it('a measurable claim never asks the model', async () => {
    const res = await verify('red', 'The image is 800x600', { provider: 'openai' });
    expect(res.body).toMatchObject({ verdict: 'SUPPORTED', vlm_description: null, provider_used: 'openai' });
  });

  describe('refusals', () => {
    const UNSUPPORTED =
      'Unsupported image format: the file is not PNG, JPEG, GIF or WebP (recognised by its magic bytes).';

    it.each([
      [
        'text named .png with an image/png part type',
        Buffer.from('this is not an image at all, just text'),
        'x.png',
        'image/png',
      ],
      ['a BMP', Buffer.concat([Buffer.from('BM'), Buffer.alloc(60)]), 'x.bmp', 'image/bmp'],
      [
        'an SVG',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>'),
        'x.svg',
        'image/svg+xml',
      ],
      [
        'a RIFF that is not WebP',
        Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVEfmt '), Buffer.alloc(40)]),
        'x.webp',
        'image/webp',
      ],
      ['three bytes', Buffer.from([0x89, 0x50, 0x4e]), 'x.png', 'image/png'],
    ])('wrong magic bytes (%s) → 400', async (_n, image, filename, type) => {
      const res = await postImage(t.key, { image, claim: 'The image is a PNG', filename, type });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: UNSUPPORTED, code: expect.any(String), request_id: expect.any(String) });
    });

    it('a real PNG sent as "photo.gif" with an image/gif part type is still a PNG', async () => {
      const res = await postImage(t.key, {
        image: img.red!,
        claim: 'The image is a GIF',
        filename: 'photo.gif',
        type: 'image/gif',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ verdict: 'REFUTED', measurements: { format: 'png' } });
    });

    it('valid magic bytes, corrupt content → 400, never a verdict', async () => {
      const image = Buffer.concat([img.red!.subarray(0, 40), Buffer.alloc(200, 7)]);
      const res = await postImage(t.key, { image, claim: 'The image is 800x600' });
      expect(res.status).toBe(400);
      expect(res.body.detail).toMatch(/^The image could not be decoded: /);
    });

    it('decompression bombs are refused by the pixel limit (413) before decoding', async () => {
      // 50,000 x 50,000 declared, a few hundred bytes on the wire.
      const declared = pngBomb(50_000, 50_000, 1);
      expect(declared.length).toBeLessThan(1000);
      const a = await postImage(t.key, { image: declared, claim: 'The image is 50000x50000' });
      expect(a.status).toBe(413);
      expect(a.body).toEqual({
        detail: 'Image exceeds the 40000000 pixel limit (width x height x frames); it is refused before decoding.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
      // A complete, valid 6,400 x 6,400 PNG (41 megapixels of zeros) of ~40 KB.
      const full = pngBomb(6400, 6400);
      expect(full.length).toBeLessThan(100_000);
      const b = await postImage(t.key, { image: full, claim: 'The image is grayscale' });
      expect(b.status).toBe(413);
      expect(b.body.detail).toMatch(/pixel limit/);
    });

    it('just under the pixel limit decodes (a 6,000 x 6,000 bomb-like PNG is measured)', async () => {
      const res = await postImage(t.key, {
        image: pngBomb(6000, 6000),
        claim: 'The image is 6000x6000, grayscale and mostly black',
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        verdict: 'SUPPORTED',
        measurements: { width: 6000, height: 6000, grayscale: true, megapixels: 36 },
      });
    });

    it('a file over 10 MiB → 413 as soon as the cap is passed (streamed, no Content-Length)', async () => {
      const big = Buffer.concat([img.red!.subarray(0, 16), Buffer.alloc(10 * 1024 * 1024 + 10)]);
      const body = Buffer.concat([
        Buffer.from(
          `--${BOUNDARY}\r\nContent-Disposition: form-data; name="claim"\r\n\r\nThe image is a PNG\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="image"; filename="big.png"\r\nContent-Type: image/png\r\n\r\n`,
        ),
        big,
        Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
      ]);
      const res = await rawPost('/verify/image', { 'x-api-key': t.key }, body);
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        detail: 'Request body exceeds the 10485760 byte limit for this endpoint.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    });

    it('a Content-Length over file + envelope → 413 before reading', async () => {
      const res = await rawPost('/verify/image', { 'x-api-key': t.key }, Buffer.from(`--${BOUNDARY}\r\n`), {
        contentLength: 10 * 1024 * 1024 + 64 * 1024 + 1,
      });
      expect(res.status).toBe(413);
      expect(res.body).toEqual({
        detail: 'Request body exceeds the 10551296 byte limit for this endpoint.',
        code: expect.any(String),
        request_id: expect.any(String),
      });
    });

    it.each([
      [{ image: 'red' }, "Field 'claim' is required."],
      [{ image: 'red', claim: '  ' }, "Field 'claim' must not be empty."],
      [{ claim: 'The image is a PNG' }, "Field 'image' (a PNG, JPEG, GIF or WebP file) is required."],
      [{ image: 'empty', claim: 'The image is a PNG' }, 'The image file is empty.'],
      [
        { image: 'red', claim: 'x', provider: 'mystery' },
        "Unknown provider 'mystery'. Available providers: local, openai, anthropic.",
      ],
    ])('400 for %j', async (p: any, detail) => {
      const image = p.image === 'empty' ? Buffer.alloc(0) : p.image ? img[p.image] : null;
      const fd = new FormData();
      if (p.claim !== undefined) fd.append('claim', p.claim);
      if (p.provider !== undefined) fd.append('provider', p.provider);
      if (image) fd.append('image', new Blob([new Uint8Array(image)]), 'a.png');
      else if (p.image === 'empty') fd.append('image', new Blob([]), 'a.png');
      const res = await fetch(`${apiUrl()}/verify/image`, {
        method: 'POST',
        body: fd,
        headers: { 'x-api-key': t.key },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ detail, code: expect.any(String), request_id: expect.any(String) });
    });

    it('JSON instead of multipart → 415; no key → 401', async () => {
      const json = await fetch(`${apiUrl()}/verify/image`, {
        method: 'POST',
        body: '{"claim":"x"}',
        headers: { 'x-api-key': t.key, 'content-type': 'application/json' },
      });
      expect(json.status).toBe(415);
      const anon = await postImage('', { image: img.red!, claim: 'x' });
      expect(anon.status).toBe(401);
    });

    it('the upload is deleted after the answer, and only its reference went through the workflow', async () => {
      const res = await verify('red', 'The image is a PNG');
      expect(res.status).toBe(200);
      const audit = await (await db()).collection('audit_logs').find({ organization_id: t.orgId }).toArray();
      expect(audit.length).toBeGreaterThan(0);
      expect(JSON.stringify(audit)).toContain('The image is a PNG');
      expect(JSON.stringify(audit)).not.toContain(img.red!.toString('base64').slice(0, 40));
      // Polled, not after a fixed sleep: the delete follows the answer, later on a loaded machine (kept: fails at 10 s).
      await expect
        .poll(async () => (await db()).collection('uploads').countDocuments({ sha256: sha(img.red!) }), {
          timeout: 10_000,
          interval: 100,
        })
        .toBe(0);
    });
  });

  describe('body deadline', () => {
    let proc: ManagedProcess | null = null;
    let base = '';
    beforeAll(async () => {
      const a = await startExtraApi('api-image-408', { SVC_UPLOAD_READ_TIMEOUT: '2' });
      proc = a.proc;
      base = a.url;
    }, 120_000);
    afterAll(async () => {
      await proc?.stop();
    });

    it('an upload that stalls past SVC_UPLOAD_READ_TIMEOUT answers 408', async () => {
      const url = new URL(base);
      const started = Date.now();
      const reply = await new Promise<string>((resolve, reject) => {
        const sock = net.connect(Number(url.port), url.hostname, () =>
          sock.write(
            `POST /verify/image HTTP/1.1\r\nHost: x\r\nX-API-Key: ${t.key}\r\n` +
              `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\nContent-Length: 4000\r\n\r\n--${BOUNDARY}\r\n`,
          ),
        );
        let data = '';
        sock.on('data', (d) => (data += d.toString()));
        sock.on('error', reject);
        sock.on('close', () => resolve(data));
      });
      expect(reply).toMatch(/^HTTP\/1\.1 408/);
      expect(reply).toContain('{"detail":"Request body not received in time.","code":"request_timeout","request_id":"');
      expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
      expect(Date.now() - started).toBeLessThan(10_000);
    });
  });
});
