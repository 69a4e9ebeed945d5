// CSV exports of the audit trail (GET /audit/export, GET /admin/compliance/export/csv).
//
// Cells can hold caller-controlled text (the verified query, raw LLM output). A spreadsheet
// treats a cell that starts with = + - @ (or tab / carriage return, which some programs strip
// before evaluating) as a formula, so such cells are prefixed with a single quote (OWASP "CSV
// injection"), and so is every such start after a CR or LF inside a cell; the full-width forms
// of = + - @ are treated alike, since some spreadsheet programs normalise them. Quoting and
// escaping are csv-stringify's, told to quote every field holding a CR or LF as well.
import { Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import type { AuditLogView } from './audit-log.js';

export const AUDIT_CSV_COLUMNS = [
  'id',
  'seq',
  'timestamp',
  'organization_id',
  'user_id',
  'key_id',
  'engine',
  'status',
  'verified',
  'admission',
  'query',
  'raw_llm_output',
  'proof_ref',
  'attestation_id',
  'workflow_id',
  'request_digest',
  'previous_hash',
  'entry_hash',
  'signature',
] as const satisfies readonly (keyof AuditLogView)[];

// A formula may start at the start of the cell or after any line break inside it: a reader
// that splits the field on the break (or a spreadsheet's multi-line import) sees a new cell
// there. The class matches one character after one anchor: linear time.
const FORMULA_START = /(^|[\r\n])(?=[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20])/g;

/** The text of one cell, with spreadsheet formulas neutralised at its start and after every line break. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(FORMULA_START, "$1'");
}

/**
 * csv-stringify quotes a field holding the delimiter, the quote or the record delimiter (CRLF
 * here), but not a lone CR or LF; a field with either is quoted too, so no reader splits a row.
 */
export const CSV_OPTIONS = { eof: true, record_delimiter: 'windows', quoted_match: /[\r\n]/ } as const;

function row(view: AuditLogView): string[] {
  return AUDIT_CSV_COLUMNS.map((c) => csvCell(view[c]));
}

/** A complete CSV document (header plus rows), for bounded exports. */
export function auditCsv(views: AuditLogView[]): string {
  return stringifySync([[...AUDIT_CSV_COLUMNS], ...views.map(row)], { ...CSV_OPTIONS });
}

/** A streamed CSV document for unbounded exports (rows are produced as the cursor yields them). */
export function auditCsvStream(views: AsyncIterable<AuditLogView>): Readable {
  const out = stringify({ ...CSV_OPTIONS });
  out.write([...AUDIT_CSV_COLUMNS]);
  (async () => {
    for await (const view of views) {
      if (!out.write(row(view))) await new Promise((r) => out.once('drain', r));
    }
    out.end();
  })().catch((err: Error) => out.destroy(err));
  return out;
}
