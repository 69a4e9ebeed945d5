// The translation of a consensus query's text into the plain-data arithmetic of arith.ts, with
// the math engine's own parser and guards (so every engine sees the same parse of the same text,
// under the same size limits). Loads mathjs: it runs in the engine threads
// (ENGINE_TASKS.consensus_translate), never on the worker's main thread.
import { GuardError, MathDomainError } from '../../engines/math/errors.js';
import { guardTrees } from '../../engines/math/guards.js';
import type { AstNode } from '../../engines/math/mathjs-instance.js';
import { parseInput } from '../../engines/math/parse.js';
import { Unsupported, type Arith, type ArithTranslation } from './arith.js';

const BINARY: Record<string, 'add' | 'sub' | 'mul' | 'div' | 'pow'> = {
  add: 'add',
  subtract: 'sub',
  multiply: 'mul',
  divide: 'div',
  pow: 'pow',
};

function convert(node: AstNode, vars: Set<string>): Arith {
  switch (node.type) {
    case 'ConstantNode': {
      const v = node.value as { toFixed?: () => string } | number;
      // Literals parse as decimal.js BigNumbers: toFixed() is their exact plain decimal text.
      const text = typeof v === 'object' && typeof v?.toFixed === 'function' ? v.toFixed() : String(v);
      if (!/^\d+(?:\.\d+)?$/.test(text)) throw new Unsupported(`the literal ${text} is not a plain decimal number`);
      return { op: 'num', value: text };
    }
    case 'ParenthesisNode':
      return convert(node.content as AstNode, vars);
    case 'SymbolNode': {
      const name = node.name as string;
      if (name === 'pi' || name === 'e' || name === 'i') throw new Unsupported(`the constant ${name}`);
      vars.add(name);
      return { op: 'var', name };
    }
    case 'OperatorNode': {
      const fn = String(node.fn);
      const args = (node.args ?? []).map((a) => convert(a, vars));
      if (node.isPercentage) throw new Unsupported('percentages');
      if (fn === 'unaryMinus' && args.length === 1) return { op: 'neg', arg: args[0] as Arith };
      if (fn === 'unaryPlus' && args.length === 1) return args[0] as Arith;
      const op = BINARY[fn];
      if (op && args.length === 2) return { op, args: [args[0] as Arith, args[1] as Arith] };
      throw new Unsupported(`the operator ${node.op ?? fn}`);
    }
    case 'FunctionNode': {
      const name = (node.fn as AstNode).name as string;
      const args = (node.args ?? []).map((a) => convert(a, vars));
      if ((name === 'sqrt' || name === 'abs') && args.length === 1) return { op: name, arg: args[0] as Arith };
      throw new Unsupported(`the function ${name}()`);
    }
    default:
      throw new Unsupported(`the element ${node.type}`);
  }
}

/** Parses `expression` with the math engine's parser and guards, then converts it. */
export function translateArithmetic(expression: string): ArithTranslation {
  let parsed;
  try {
    parsed = parseInput(expression);
    guardTrees(
      parsed.sides.map((s) => s.node),
      parsed.kind === 'equation',
    );
  } catch (err) {
    if (err instanceof GuardError || err instanceof MathDomainError)
      return { ok: false, kind: 'refused', message: err.message };
    return { ok: false, kind: 'refused', message: 'The expression could not be parsed.' };
  }
  const vars = new Set<string>();
  try {
    const sides = parsed.sides.map((s) => convert(s.node, vars));
    return { ok: true, shape: parsed.kind, sides, variables: [...vars].sort() };
  } catch (err) {
    if (err instanceof Unsupported)
      return { ok: false, kind: 'unsupported', message: `Not supported by this engine: ${err.message}.` };
    throw err;
  }
}
