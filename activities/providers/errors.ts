// Typed provider failures. Every one of them fails closed: the caller reports ERROR (or
// INCONCLUSIVE for a fact judgement), never VERIFIED. Messages carry no secrets and no raw
// provider output beyond a short, sanitised reason.

export type ProviderErrorCode =
  /** The provider did not answer within its time-out. */
  | 'provider_timeout'
  /** Network failure, connection refused, 5xx. */
  | 'provider_unavailable'
  /** The provider answered with an HTTP error (4xx: bad key, unknown model...). */
  | 'provider_http_error'
  /** The answer is not valid JSON or does not match the expected schema. */
  | 'malformed_answer'
  /** The model refused, or a content filter stopped it. */
  | 'refused'
  /** The answer was cut off (token limit). */
  | 'truncated'
  /** The provider or its model cannot do this (no vision, `local` cannot judge entailment...). */
  | 'unsupported';

export class ProviderError extends Error {
  constructor(
    readonly code: ProviderErrorCode,
    readonly provider: string,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** The provider/model lacks the capability asked for (vision, entailment on `local`). */
export class ProviderCapabilityError extends ProviderError {
  constructor(provider: string, message: string) {
    super('unsupported', provider, message);
    this.name = 'ProviderCapabilityError';
  }
}

export function isProviderError(err: unknown): err is ProviderError {
  return err instanceof ProviderError;
}
