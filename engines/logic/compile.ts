// The front half of the engine: query text -> typed query -> SMT-LIB2, with no solver.

import type { Expr, FreeVariable, TExpr, TypedQuery } from './ast.js';
import { buildAst } from './ast-builder.js';
import { parseRaw } from './parser.js';
import { printExpr, printNormalized } from './printer.js';
import { emitConjunctSmtLib, emitSmtLib, smtSymbol } from './smtlib.js';
import { typecheck } from './typecheck.js';

export interface CompiledVariable extends FreeVariable {
  smtSymbol: string;
}

/** A named conjunct: a top-level constraint, with top-level ANDs flattened. */
export interface CompiledConjunct {
  /** 1-based, in query order. */
  index: number;
  /** 0-based offset in the query of the conjunct's operator (or atom). */
  position: number;
  /** Canonical DSL text of the conjunct. */
  text: string;
  typed: TExpr;
}

export interface CompiledLogicQuery {
  typed: TypedQuery;
  variables: CompiledVariable[];
  /** Canonical DSL text (S-expression form): the statement actually evaluated. */
  normalizedQuery: string;
  /** declare-const/assert text given verbatim to Z3 and stored in the proof. */
  smtlib: string;
  /** The query's conjuncts, the units an unsat core is reported over. */
  conjuncts: CompiledConjunct[];
  /** Same declarations, one assert per conjunct (for unsat-core extraction). */
  conjunctSmtlib: string;
}

function flattenConjuncts(e: Expr, t: TExpr, out: Array<{ position: number; typed: TExpr }>): void {
  if (e.kind === 'app' && e.op === 'AND' && t.kind === 'app' && t.op === 'AND' && e.args.length === t.args.length) {
    for (let i = 0; i < e.args.length; i++) flattenConjuncts(e.args[i], t.args[i], out);
    return;
  }
  out.push({ position: e.pos, typed: t });
}

/**
 * Parses, polices and type-checks a DSL query. Throws LogicBlockedError (403),
 * LogicSyntaxError (400, with position) or LogicTypeError (400).
 */
export function compileLogicQuery(query: string): CompiledLogicQuery {
  const ast = buildAst(parseRaw(query));
  const typed = typecheck(ast);
  const flat: Array<{ position: number; typed: TExpr }> = [];
  ast.constraints.forEach((c, i) => flattenConjuncts(c, typed.constraints[i], flat));
  const conjuncts = flat.map((c, i) => ({
    index: i + 1,
    position: c.position,
    text: printExpr(c.typed),
    typed: c.typed,
  }));
  return {
    typed,
    variables: typed.variables.map((v) => ({ ...v, smtSymbol: smtSymbol(v.name) })),
    normalizedQuery: printNormalized(typed),
    smtlib: emitSmtLib(typed),
    conjuncts,
    conjunctSmtlib: emitConjunctSmtLib(
      typed,
      conjuncts.map((c) => c.typed),
    ),
  };
}
