// Input limits of the logic DSL. Exceeding any of them is a security-policy block
// (LogicBlockedError), checked before anything reaches the solver.

export const LOGIC_LIMITS = Object.freeze({
  /** Characters in a query. */
  maxQueryLength: 50_000,
  /** Nested parenthesized forms (S-expression lists, call forms, binder lists). */
  maxDepth: 64,
  /** Parse-tree nodes (every atom and every list counts one). */
  maxNodes: 5_000,
  /** Characters in an identifier. */
  maxIdentifierLength: 64,
  /** Characters in a numeric literal (sign and decimal point included). */
  maxNumberLength: 100,
  /** Largest POW exponent (exponents must be non-negative integer literals). */
  maxExponent: 64,
  /**
   * Leaves after POW expansion: each leaf counts the product of the exponents of the
   * POWs enclosing it. Bounds the size of values the evaluator (and Z3) must handle.
   */
  maxExpandedLeaves: 20_000,
});
