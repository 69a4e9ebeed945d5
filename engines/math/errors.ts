// The two ways an expression is refused.
//   GuardError: the request is not evaluated at all (resource guard, forbidden construct,
//     ambiguity, parse failure) → status BLOCKED, is_valid false.
//   MathDomainError: the expression is well-formed but has no value (division by zero,
//     log(0), sqrt of a negative in the real domain, ...) → is_valid false with error/message.

export class GuardError extends Error {
  constructor(
    /** Names the guard, e.g. `exponent_too_large`; also used in constraint ids. */
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'GuardError';
  }
}

export class MathDomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'MathDomainError';
  }
}

/** Raised inside the canonical-form builder when a size budget runs out; never user-visible. */
export class CanonicalLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CanonicalLimitError';
  }
}

export const divisionByZero = () => new MathDomainError('division_by_zero', 'Division by zero is undefined.');
export const logOfZero = () => new MathDomainError('log_of_zero', 'The logarithm of zero is undefined.');
export const sqrtOfNegative = () =>
  new MathDomainError('sqrt_of_negative', 'The square root of a negative number is undefined in the real domain.');
export const logOfNegative = () =>
  new MathDomainError('log_of_negative', 'The logarithm of a negative number is undefined in the real domain.');
export const complexInRealDomain = (what: string) =>
  new MathDomainError('complex_in_real_domain', `${what} has a complex value, which is outside the real domain.`);
export const resultOutOfRange = (what = 'The value') =>
  new MathDomainError('result_out_of_range', `${what} is outside the representable range.`);
