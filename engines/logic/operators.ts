// The operator table of the DSL: names (case-insensitive), arity, and the reserved words
// that cannot be variable names.

export type OperatorName =
  | 'AND'
  | 'OR'
  | 'NOT'
  | 'IMPLIES'
  | 'IFF'
  | 'XOR'
  | 'EQ'
  | 'NEQ'
  | 'GT'
  | 'LT'
  | 'GTE'
  | 'LTE'
  | 'PLUS'
  | 'MINUS'
  | 'MULT'
  | 'DIV'
  | 'MOD'
  | 'POW'
  | 'ITE'
  | 'DISTINCT'
  | 'FORALL'
  | 'EXISTS';

export type SortName = 'Int' | 'Real' | 'Bool';

/** Arity as [min, max]; max = Infinity for n-ary operators. */
export const OPERATOR_ARITY: Readonly<Record<OperatorName, readonly [number, number]>> = Object.freeze({
  AND: [1, Infinity],
  OR: [1, Infinity],
  NOT: [1, 1],
  IMPLIES: [2, 2],
  IFF: [2, 2],
  XOR: [2, 2],
  EQ: [2, 2],
  NEQ: [2, 2],
  GT: [2, 2],
  LT: [2, 2],
  GTE: [2, 2],
  LTE: [2, 2],
  PLUS: [2, Infinity],
  MINUS: [1, Infinity],
  MULT: [2, Infinity],
  DIV: [2, 2],
  MOD: [2, 2],
  POW: [2, 2],
  ITE: [3, 3],
  DISTINCT: [2, Infinity],
  FORALL: [2, 2],
  EXISTS: [2, 2],
});

export const DECLARATION_KEYWORD = 'VAR';

export function lookupOperator(name: string): OperatorName | null {
  const upper = name.toUpperCase();
  return Object.prototype.hasOwnProperty.call(OPERATOR_ARITY, upper) ? (upper as OperatorName) : null;
}

export function lookupSort(name: string): SortName | null {
  switch (name.toLowerCase()) {
    case 'int':
      return 'Int';
    case 'real':
      return 'Real';
    case 'bool':
      return 'Bool';
    default:
      return null;
  }
}

/** Operator names, VAR and sort names, compared case-insensitively, cannot name variables. */
export function isReservedWord(name: string): boolean {
  return lookupOperator(name) !== null || name.toUpperCase() === DECLARATION_KEYWORD || lookupSort(name) !== null;
}

export function formatArity([min, max]: readonly [number, number]): string {
  if (min === max) return `exactly ${min}`;
  if (max === Infinity) return `at least ${min}`;
  return `${min} to ${max}`;
}
