// Exit codes of `svc` (docs/cli.md). 0 is reserved for a positive, proven outcome; every error
// has a code of its own so a script can never mistake a failure for a pass.
import { SvcApiError, SvcNetworkError } from '../http.js';
import type { Outcome } from '../outcome.js';

export const EXIT = {
  /** VERIFIED, or the endpoint's admitted outcome (code/SQL ADMIT, logic SAT, fact/image SUPPORTED, ...). */
  VERIFIED: 0,
  /** The service answered: not verified (UNVERIFIABLE, UNSAT, REFUTED, INCONCLUSIVE, ...). */
  NOT_VERIFIED: 1,
  /** The service answered: BLOCKED (status or admission). */
  BLOCKED: 2,
  /** The service answered, but the check could not complete (status ERROR, a failed batch item). */
  CHECK_ERROR: 3,
  /** Bad command line (sysexits EX_USAGE). */
  USAGE: 64,
  /** Bad input: the service refused it with a 4xx (400, 404, 409, 413, 422), or a malformed input file (EX_DATAERR). */
  DATA: 65,
  /** The service is unreachable or failed (5xx other than 503) (EX_UNAVAILABLE). */
  UNAVAILABLE: 69,
  /** Rate limited or busy (429, 503) after the bounded retries, or no answer in time (EX_TEMPFAIL). */
  TEMPFAIL: 75,
  /** Missing, invalid or insufficient credentials (401, 403) (EX_NOPERM). */
  NOPERM: 77,
} as const;

export const OUTCOME_EXIT: Record<Outcome, number> = {
  verified: EXIT.VERIFIED,
  not_verified: EXIT.NOT_VERIFIED,
  blocked: EXIT.BLOCKED,
  error: EXIT.CHECK_ERROR,
};

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A local input file that is not what the command needs (EX_DATAERR). */
export class InputError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}

export function exitCodeForError(err: unknown): number {
  if (err instanceof UsageError) return EXIT.USAGE;
  if (err instanceof InputError) return EXIT.DATA;
  if (err instanceof SvcApiError) {
    if (err.status === 429 || err.status === 503 || err.status === 408) return EXIT.TEMPFAIL;
    if (err.status === 401 || err.status === 403) return EXIT.NOPERM;
    if (err.status >= 400 && err.status < 500) return EXIT.DATA;
    return EXIT.UNAVAILABLE;
  }
  if (err instanceof SvcNetworkError) return err.timedOut ? EXIT.TEMPFAIL : EXIT.UNAVAILABLE;
  return EXIT.UNAVAILABLE;
}

/** Outcomes of several items: blocked wins, then an error, then not verified; 0 only if all verified. */
export function worstOutcome(outcomes: Iterable<Outcome>): Outcome {
  let worst: Outcome = 'verified';
  const rank: Record<Outcome, number> = { verified: 0, not_verified: 1, error: 2, blocked: 3 };
  let any = false;
  for (const o of outcomes) {
    any = true;
    if (rank[o] > rank[worst]) worst = o;
  }
  // Nothing checked is nothing verified.
  return any ? worst : 'not_verified';
}
