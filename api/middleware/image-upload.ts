// Reads the multipart body of /verify/image: one image file (field `image`), the `claim` field
// and an optional `provider` field. Everything is capped while it arrives: the whole body
// (10 MiB file + 64 KiB envelope, from Content-Length up front and counted while streaming),
// the file part (busboy's fileSize limit), the text fields (64 KiB), and a read deadline (408).
// The format is recognised from the file's first bytes (magic bytes) as soon as they arrive:
// anything but PNG, JPEG, GIF or WebP is refused (400) without reading the rest.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import busboy from 'busboy';
import { HttpError } from '../errors.js';
import { BODY_TIMEOUT_DETAIL, bodyLimitDetail } from './body.js';
import { isMultipart, MULTIPART_REQUIRED } from './csv-upload.js';
import {
  MAGIC_BYTES_NEEDED,
  sniffImageFormat,
  UNSUPPORTED_IMAGE_DETAIL,
  type ImageFormat,
} from '../../core/image-format.js';
import { IMAGE_BODY_LIMIT_BYTES, IMAGE_ENVELOPE_BYTES, IMAGE_FILE_LIMIT_BYTES } from '../../contract/image.js';

export interface ImageUpload {
  fields: Record<string, string>;
  content: Buffer;
  sha256: string;
  format: ImageFormat;
}

const TEXT_FIELDS = new Set(['claim', 'provider']);

export function readImageUpload(ctx: Context, timeoutMs: number): Promise<ImageUpload> {
  if (!isMultipart(ctx)) throw new HttpError(415, MULTIPART_REQUIRED);
  const req = ctx.req;
  const lengthHeader = req.headers['content-length'];
  if (lengthHeader !== undefined) {
    if (!/^\d+$/.test(lengthHeader)) throw new HttpError(400, 'Invalid Content-Length header.');
    if (Number(lengthHeader) > IMAGE_BODY_LIMIT_BYTES)
      throw new HttpError(413, bodyLimitDetail(IMAGE_BODY_LIMIT_BYTES), { Connection: 'close' });
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      limits: {
        fileSize: IMAGE_FILE_LIMIT_BYTES,
        files: 1,
        fields: 8,
        parts: 10,
        fieldSize: IMAGE_ENVELOPE_BYTES,
        fieldNameSize: 100,
        headerPairs: 20,
      },
    });
  } catch {
    throw new HttpError(400, 'Malformed multipart body: the Content-Type needs a boundary.');
  }

  return new Promise<ImageUpload>((resolve, reject) => {
    let settled = false;
    let received = 0;
    const fields: Record<string, string> = {};
    let fileSeen = false;
    let fileEnded = false;
    let busboyClosed = false;
    const chunks: Buffer[] = [];
    let size = 0;
    let format: ImageFormat | null = null;
    const hash = createHash('sha256');
    const timer = setTimeout(() => fail(new HttpError(408, BODY_TIMEOUT_DETAIL)), timeoutMs);

    const cleanup = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('aborted', onAborted);
      req.off('error', onAborted);
      req.unpipe(bb);
    };
    function fail(err: HttpError) {
      if (settled) return;
      settled = true;
      cleanup();
      bb.on('error', () => undefined);
      setImmediate(() => bb.destroy());
      err.headers.Connection = 'close';
      // Answered at once; the rest of the body is read and dropped after the answer (lingering-close.ts).
      reject(err);
    }
    const head = () => Buffer.concat(chunks, Math.min(size, 64)).subarray(0, MAGIC_BYTES_NEEDED);
    const maybeFinish = () => {
      if (settled || !busboyClosed || (fileSeen && !fileEnded)) return;
      if (fields.claim === undefined) return fail(new HttpError(400, "Field 'claim' is required."));
      if (fields.claim.trim() === '') return fail(new HttpError(400, "Field 'claim' must not be empty."));
      if (!fileSeen) return fail(new HttpError(400, "Field 'image' (a PNG, JPEG, GIF or WebP file) is required."));
      if (size === 0) return fail(new HttpError(400, 'The image file is empty.'));
      format ??= sniffImageFormat(head());
      if (format === null) return fail(new HttpError(400, UNSUPPORTED_IMAGE_DETAIL));
      settled = true;
      cleanup();
      resolve({ fields, content: Buffer.concat(chunks, size), sha256: hash.digest('hex'), format });
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > IMAGE_BODY_LIMIT_BYTES) fail(new HttpError(413, bodyLimitDetail(IMAGE_BODY_LIMIT_BYTES)));
    };
    const onAborted = () => fail(new HttpError(400, 'Request body could not be read.'));

    bb.on('file', (name, stream) => {
      stream.on('error', () => undefined);
      if (name !== 'image' || fileSeen) {
        stream.resume();
        fail(new HttpError(400, "Send exactly one file, in the field 'image'."));
        return;
      }
      fileSeen = true;
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        const before = size;
        size += chunk.length;
        hash.update(chunk);
        chunks.push(chunk);
        // Recognise the format as soon as its magic bytes are in.
        if (before < MAGIC_BYTES_NEEDED && size >= MAGIC_BYTES_NEEDED) {
          format = sniffImageFormat(head());
          if (format === null) fail(new HttpError(400, UNSUPPORTED_IMAGE_DETAIL));
        }
      });
      stream.on('limit', () => fail(new HttpError(413, bodyLimitDetail(IMAGE_FILE_LIMIT_BYTES))));
      stream.on('end', () => {
        fileEnded = true;
        maybeFinish();
      });
    });
    bb.on('field', (name, value, info) => {
      if (!TEXT_FIELDS.has(name)) return;
      if (info.valueTruncated) return fail(new HttpError(413, bodyLimitDetail(IMAGE_BODY_LIMIT_BYTES)));
      if (fields[name] !== undefined) return fail(new HttpError(400, `Send the field '${name}' once.`));
      fields[name] = value;
    });
    bb.on('filesLimit', () => fail(new HttpError(400, "Send exactly one file, in the field 'image'.")));
    bb.on('fieldsLimit', () => fail(new HttpError(400, 'Too many form fields.')));
    bb.on('partsLimit', () => fail(new HttpError(400, 'Too many form fields.')));
    bb.on('error', () => fail(new HttpError(400, 'Malformed multipart body.')));
    bb.on('close', () => {
      busboyClosed = true;
      maybeFinish();
    });
    req.on('data', onData);
    req.on('aborted', onAborted);
    req.on('error', onAborted);
    req.pipe(bb);
  });
}
