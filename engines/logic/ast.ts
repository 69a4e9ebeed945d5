// AST of a parsed query (after structural/policy checks) and its typed form (after sort
// inference, with explicit Int->Real coercions). The SMT-LIB emitter, the independent
// evaluator and the normalized printer all consume the typed form.

import type { OperatorName, SortName } from './operators.js';
import type { Rational } from './rational.js';

export interface Binder {
  name: string;
  sort: SortName;
  pos: number;
}

export interface Declaration {
  name: string;
  sort: SortName;
  pos: number;
}

/** Operators that are plain applications (POW and the quantifiers have their own node kinds). */
export type AppOperator = Exclude<OperatorName, 'POW' | 'FORALL' | 'EXISTS'>;

export type Expr =
  | { kind: 'num'; value: Rational; isDecimal: boolean; pos: number }
  | { kind: 'bool'; value: boolean; pos: number }
  | { kind: 'var'; name: string; pos: number }
  | { kind: 'app'; op: AppOperator; args: Expr[]; pos: number }
  | { kind: 'pow'; base: Expr; exponent: number; pos: number }
  | { kind: 'quant'; q: 'FORALL' | 'EXISTS'; binders: Binder[]; body: Expr; pos: number };

export interface QueryAst {
  declarations: Declaration[];
  constraints: Expr[];
}

export type TExpr =
  | { kind: 'num'; sort: 'Int' | 'Real'; value: Rational }
  | { kind: 'bool'; sort: 'Bool'; value: boolean }
  | { kind: 'var'; sort: SortName; name: string; bound: boolean }
  | { kind: 'app'; sort: SortName; op: AppOperator; args: TExpr[] }
  | { kind: 'pow'; sort: 'Int' | 'Real'; base: TExpr; exponent: number }
  | { kind: 'quant'; sort: 'Bool'; q: 'FORALL' | 'EXISTS'; binders: Binder[]; body: TExpr }
  | { kind: 'to_real'; sort: 'Real'; arg: TExpr };

export interface FreeVariable {
  name: string;
  sort: SortName;
  /** true when the query declared it with VAR; false when it defaulted to Int. */
  declared: boolean;
}

export interface TypedQuery {
  /** Every free variable (declared or defaulted), sorted by name. */
  variables: FreeVariable[];
  /** Top-level constraints in query order; all are Bool and are conjoined. */
  constraints: TExpr[];
  /** Whether any constraint contains FORALL/EXISTS. */
  hasQuantifiers: boolean;
}
