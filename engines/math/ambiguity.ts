// Implicit multiplication directly after a division is ambiguous: `8/2(2+2)` reads as
// (8/2)·(2+2) = 16 or as 8/(2·(2+2)) = 1, and conventions differ. mathjs marks implicit
// multiplication on the parse tree (OperatorNode.implicit), so the check is structural:
//   - a division whose right operand is an implicit product  (mathjs: 8/(2)(2+2), a/b sin(x))
//   - an implicit product whose left operand is a division    (mathjs: 8/2(2+2), 1/2x, 6/2x)
// Unary signs are looked through (`1/-2x`). Parentheses end the ambiguity: `(8/2)(2+2)`,
// `8/(2(2+2))` and `2x/3` (the product comes first) are not ambiguous.
import type { AstNode } from './mathjs-instance.js';

const isOp = (node: AstNode, fn: string) => node.type === 'OperatorNode' && node.fn === fn;
const isImplicitProduct = (node: AstNode) => isOp(node, 'multiply') && node.implicit === true;
const isDivision = (node: AstNode) => isOp(node, 'divide') && !node.isPercentage;

function stripUnary(node: AstNode): AstNode {
  let n = node;
  while (isOp(n, 'unaryMinus') || isOp(n, 'unaryPlus')) n = (n.args as AstNode[])[0] as AstNode;
  return n;
}

function children(node: AstNode): AstNode[] {
  if (node.type === 'ParenthesisNode') return [node.content as AstNode];
  return node.args ?? [];
}

/** The first ambiguous sub-expression (depth-first), or null. */
export function findAmbiguity(node: AstNode): AstNode | null {
  if (isDivision(node) && isImplicitProduct(stripUnary((node.args as AstNode[])[1] as AstNode))) return node;
  if (isImplicitProduct(node) && isDivision(stripUnary((node.args as AstNode[])[0] as AstNode))) return node;
  for (const child of children(node)) {
    const found = findAmbiguity(child);
    if (found) return found;
  }
  return null;
}

/** Both readings of an ambiguous node, as text with explicit multiplication (the other reading is
 * spelled out only when no unary sign sits between the two operators). */
export function readings(node: AstNode): { parsed: string; alternative: string | null } {
  const args = node.args as AstNode[];
  const show = (n: AstNode) => n.toString({ implicit: 'show' });
  if (isDivision(node)) {
    // Parsed as a / (b c); the other reading is (a / b) c.
    if (!isImplicitProduct(args[1] as AstNode)) return { parsed: show(node), alternative: null };
    const product = (args[1] as AstNode).args as AstNode[];
    return {
      parsed: `${show(args[0] as AstNode)} / (${show(args[1] as AstNode)})`,
      alternative: `(${show(args[0] as AstNode)} / ${show(product[0] as AstNode)}) * ${show(product[1] as AstNode)}`,
    };
  }
  // Parsed as (a / b) c; the other reading is a / (b c).
  if (!isDivision(args[0] as AstNode)) return { parsed: show(node), alternative: null };
  const division = (args[0] as AstNode).args as AstNode[];
  return {
    parsed: `(${show(args[0] as AstNode)}) * ${show(args[1] as AstNode)}`,
    alternative: `${show(division[0] as AstNode)} / (${show(division[1] as AstNode)} * ${show(args[1] as AstNode)})`,
  };
}
