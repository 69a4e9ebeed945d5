// Typed caller-input errors of the logic engine. solveLogic/compileLogicQuery throw these;
// `refusal` says which kind (the route maps a policy refusal to 403 BLOCKED, invalid input to 400).

export type LogicBlockedReason =
  | 'input_too_long'
  | 'string_literal'
  | 'invalid_identifier'
  | 'invalid_number'
  | 'identifier_too_long'
  | 'number_too_long'
  | 'reserved_identifier'
  | 'unknown_operator'
  | 'wrong_arity'
  | 'nesting_too_deep'
  | 'too_many_nodes'
  | 'unsupported_exponent'
  | 'expression_too_complex';

export abstract class LogicInputError extends Error {
  abstract readonly refusal: 'policy' | 'invalid';
  /** Character offset (0-based, UTF-16 code units) in the query, when one applies. */
  readonly position: number | null;
  constructor(message: string, position: number | null) {
    super(message);
    this.position = position;
  }
}

/** Security policy rejection: status BLOCKED (the API answers 403). */
export class LogicBlockedError extends LogicInputError {
  readonly refusal = 'policy' as const;
  readonly status = 'BLOCKED' as const;
  readonly reason: LogicBlockedReason;
  constructor(reason: LogicBlockedReason, message: string, position: number | null = null) {
    super(message, position);
    this.name = 'LogicBlockedError';
    this.reason = reason;
  }
}

/** Malformed DSL (unbalanced parentheses, unexpected end, misplaced token): invalid input (400). */
export class LogicSyntaxError extends LogicInputError {
  readonly refusal = 'invalid' as const;
  declare readonly position: number;
  constructor(message: string, position: number) {
    super(message, position);
    this.name = 'LogicSyntaxError';
  }
}

/** Sort errors (Bool used as a number, conflicting declarations, MOD on Real...): invalid input (400). */
export class LogicTypeError extends LogicInputError {
  readonly refusal = 'invalid' as const;
  constructor(message: string, position: number | null) {
    super(message, position);
    this.name = 'LogicTypeError';
  }
}

/** Echo a fragment of caller input in messages without letting it grow the message. */
export function excerpt(text: string, max = 32): string {
  const shown = text.length > max ? `${text.slice(0, max)}…` : text;
  return JSON.stringify(shown);
}
