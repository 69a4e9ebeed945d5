// Errors that map to an HTTP status and a `detail` body. Anything else becomes a 500 with a
// generic detail (stack traces never reach a client).
import type { ZodError } from 'zod';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly headers: Record<string, string> = {},
    /** A body other than {detail} (e.g. the SVC-005 rate-limit object). */
    readonly body?: Record<string, unknown>,
    /** A stable machine-readable code more specific than the status (contract/error-codes.ts). */
    readonly code?: string,
  ) {
    super(detail);
    this.name = 'HttpError';
  }
}

/** A 400 detail that names the offending field, from a zod error. */
export function zodDetail(err: ZodError): string {
  const issue = err.issues[0];
  if (!issue) return 'Invalid request body';
  const path = issue.path.length ? issue.path.join('.') : 'body';
  return `Invalid field '${path}': ${issue.message}`;
}
