// Reads the multipart body of /verify/stats: one CSV file (field `file`) and the `query` field.
//
// Everything is streamed and capped while it arrives (docs/stats.md): the whole body
// (10,000,000-byte file + 64 KiB envelope, from Content-Length up front and counted while
// streaming), the file part (busboy's fileSize limit), the parsed dataset (rows x columns,
// counted record by record by the streaming CSV parser, so an over-cap dataset is refused
// before it is fully received), and a read deadline (408). The CSV is parsed here only to
// validate it and learn its header; the statistics run in the sandbox on the original bytes.
import { createHash } from 'node:crypto';
import type { Context } from 'koa';
import busboy from 'busboy';
import { parse as csvParser, CsvError } from 'csv-parse';
import { HttpError } from '../errors.js';
import { BODY_TIMEOUT_DETAIL, bodyLimitDetail } from './body.js';

export const STATS_FILE_LIMIT_BYTES = 10_000_000;
export const STATS_ENVELOPE_BYTES = 64 * 1024;
export const STATS_BODY_LIMIT_BYTES = STATS_FILE_LIMIT_BYTES + STATS_ENVELOPE_BYTES;
export const STATS_CELL_LIMIT = 1_000_000;
/** One CSV record (a line, or several when quoted fields hold newlines), in characters. */
export const CSV_MAX_RECORD_CHARS = 1_048_576;

export const cellLimitDetail = (limit: number) =>
  `Dataset exceeds the ${limit} cell limit (rows x columns) for this endpoint.`;
export const MULTIPART_REQUIRED = 'Unsupported Content-Type: send multipart/form-data.';

export interface CsvUploadLimits {
  fileLimitBytes: number;
  bodyLimitBytes: number;
  cellLimit: number;
  timeoutMs: number;
}

export interface CsvUpload {
  query: string;
  content: Buffer;
  /** Hex SHA-256 of the file bytes. */
  sha256: string;
  columns: string[];
  /** Data rows (the header row not counted). */
  rows: number;
  filename: string | null;
}

const MULTIPART = /^multipart\/form-data\s*;/i;

export function isMultipart(ctx: Context): boolean {
  return MULTIPART.test(ctx.get('Content-Type'));
}

/** Reads and validates the upload; every problem is an HttpError (400, 408, 413, 415). */
export function readCsvUpload(ctx: Context, limits: CsvUploadLimits): Promise<CsvUpload> {
  if (!isMultipart(ctx)) throw new HttpError(415, MULTIPART_REQUIRED);
  const req = ctx.req;
  const lengthHeader = req.headers['content-length'];
  if (lengthHeader !== undefined) {
    if (!/^\d+$/.test(lengthHeader)) throw new HttpError(400, 'Invalid Content-Length header.');
    if (Number(lengthHeader) > limits.bodyLimitBytes) {
      throw new HttpError(413, bodyLimitDetail(limits.bodyLimitBytes), { Connection: 'close' });
    }
  }
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: req.headers,
      limits: {
        fileSize: limits.fileLimitBytes,
        files: 1,
        fields: 8,
        parts: 10,
        fieldSize: STATS_ENVELOPE_BYTES,
        fieldNameSize: 100,
        headerPairs: 20,
      },
    });
  } catch {
    // No boundary, or an unusable Content-Type.
    throw new HttpError(400, 'Malformed multipart body: the Content-Type needs a boundary.');
  }

  return new Promise<CsvUpload>((resolve, reject) => {
    let settled = false;
    let received = 0;
    let query: string | null = null;
    let fileSeen = false;
    let csvEnded = false;
    let busboyClosed = false;
    let filename: string | null = null;
    const chunks: Buffer[] = [];
    let size = 0;
    const hash = createHash('sha256');
    let header: string[] | null = null;
    let rows = 0;
    let parser: ReturnType<typeof csvParser> | null = null;

    const timer = setTimeout(
      () => fail(new HttpError(408, BODY_TIMEOUT_DETAIL, { Connection: 'close' })),
      limits.timeoutMs,
    );

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
      // fail() can run inside one of busboy's own event emissions (e.g. the file 'limit'),
      // which continues after the listener returns: tear the parsers down on the next turn.
      bb.on('error', () => undefined);
      setImmediate(() => {
        parser?.destroy();
        bb.destroy();
      });
      // The connection is not reused.
      err.headers.Connection = 'close';
      // Answered at once; the rest of the body is read and dropped after the answer (lingering-close.ts).
      reject(err);
    }
    const maybeFinish = () => {
      if (settled || !busboyClosed || (fileSeen && !csvEnded)) return;
      if (query === null) return fail(new HttpError(400, "Field 'query' is required."));
      if (query.trim() === '') return fail(new HttpError(400, "Field 'query' must not be empty."));
      if (!fileSeen) return fail(new HttpError(400, "Field 'file' (a CSV file) is required."));
      if (size === 0 || header === null) return fail(new HttpError(400, 'The CSV file is empty.'));
      if (rows === 0) return fail(new HttpError(400, 'The CSV file has a header but no data rows.'));
      settled = true;
      cleanup();
      resolve({
        query,
        content: Buffer.concat(chunks, size),
        sha256: hash.digest('hex'),
        columns: header,
        rows,
        filename,
      });
    };

    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > limits.bodyLimitBytes) fail(new HttpError(413, bodyLimitDetail(limits.bodyLimitBytes)));
    };
    const onAborted = () => fail(new HttpError(400, 'Request body could not be read.'));

    const checkHeader = (record: string[]): HttpError | null => {
      // Names are kept as written (pandas does not trim them either); blank ones are refused.
      const names = record;
      if (names.length === 0 || names.every((n) => n.trim() === ''))
        return new HttpError(400, 'The CSV file has no columns.');
      const empty = names.findIndex((n) => n.trim() === '');
      if (empty >= 0) return new HttpError(400, `The CSV header has an empty column name (column ${empty + 1}).`);
      const seen = new Set<string>();
      for (const n of names) {
        if (seen.has(n)) return new HttpError(400, `The CSV header repeats the column name ${JSON.stringify(n)}.`);
        seen.add(n);
      }
      if (names.length > limits.cellLimit) return new HttpError(413, cellLimitDetail(limits.cellLimit));
      return null;
    };

    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || fileSeen) {
        stream.on('error', () => undefined);
        stream.resume();
        fail(new HttpError(400, "Send exactly one file, in the field 'file'."));
        return;
      }
      fileSeen = true;
      filename = info.filename ?? null;
      stream.on('error', () => undefined);
      const p = csvParser({
        bom: true,
        skip_empty_lines: true,
        max_record_size: CSV_MAX_RECORD_CHARS,
        relax_column_count: false,
      });
      parser = p;
      p.on('readable', () => {
        let record: string[] | null;
        while (!settled && (record = p.read() as string[] | null) !== null) {
          if (header === null) {
            const problem = checkHeader(record);
            if (problem) return fail(problem);
            header = record;
            continue;
          }
          rows++;
          if (rows * header.length > limits.cellLimit)
            return fail(new HttpError(413, cellLimitDetail(limits.cellLimit)));
        }
      });
      p.on('error', (err) => {
        const detail = err instanceof CsvError ? err.message.slice(0, 200) : 'unreadable data';
        fail(new HttpError(400, `The CSV file could not be parsed: ${detail}`));
      });
      p.on('end', () => {
        csvEnded = true;
        maybeFinish();
      });
      stream.on('data', (chunk: Buffer) => {
        if (settled) return;
        size += chunk.length;
        hash.update(chunk);
        chunks.push(chunk);
      });
      stream.on('limit', () => fail(new HttpError(413, bodyLimitDetail(limits.fileLimitBytes))));
      stream.pipe(p);
    });
    bb.on('field', (name, value, info) => {
      if (name !== 'query') return;
      if (info.valueTruncated) return fail(new HttpError(413, bodyLimitDetail(limits.bodyLimitBytes)));
      if (query !== null) return fail(new HttpError(400, "Send the field 'query' once."));
      query = value;
    });
    bb.on('filesLimit', () => fail(new HttpError(400, "Send exactly one file, in the field 'file'.")));
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
