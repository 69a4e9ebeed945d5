// The front half of the engine: query text -> typed query -> SMT-LIB2, with no solver.

import type { FreeVariable, TypedQuery } from './ast.js';
import { buildAst } from './ast-builder.js';
import { parseRaw } from './parser.js';
import { printNormalized } from './printer.js';
import { emitSmtLib, smtSymbol } from './smtlib.js';
import { typecheck } from './typecheck.js';

export interface CompiledVariable extends FreeVariable {
  smtSymbol: string;
}

export interface CompiledLogicQuery {
  typed: TypedQuery;
  variables: CompiledVariable[];
  /** Canonical DSL text (S-expression form): the statement actually evaluated. */
  normalizedQuery: string;
  /** declare-const/assert text given verbatim to Z3 and stored in the proof. */
  smtlib: string;
}

/**
 * Parses, polices and type-checks a DSL query. Throws LogicBlockedError (403),
 * LogicSyntaxError (400, with position) or LogicTypeError (400).
 */
export function compileLogicQuery(query: string): CompiledLogicQuery {
  const typed = typecheck(buildAst(parseRaw(query)));
  return {
    typed,
    variables: typed.variables.map((v) => ({ ...v, smtSymbol: smtSymbol(v.name) })),
    normalizedQuery: printNormalized(typed),
    smtlib: emitSmtLib(typed),
  };
}
