// What analyzers extract from a syntax tree, and the lazy views rules use to inspect it.
//
// An analyzer resolves every call to its candidate fully-qualified names (after imports,
// aliases and re-bindings) and reports a few syntactic constructs. Arguments are inspected
// only when a rule whose name pattern matched asks for them.
import type { Node } from 'web-tree-sitter';
import type { Scope } from './scopes.js';
import { identifierWords, type SyntaxView } from './syntax.js';

export interface ArgView {
  readonly text: string;
  /** The value when the expression is a constant string (literals, concatenation, constant names). */
  constant(): string | null;
  /** Every constant string the expression may hold on the paths to it (Python's path analysis), or null when one may not be constant. */
  constants?(): readonly string[] | null;
  /** A string built at run time from non-constant parts (concatenation, interpolation, formatting). */
  dynamicString(): boolean;
  /** Certainly the source text of one plain string literal (a guard checked it; python-literal-guard.ts): evaluating it runs nothing. */
  inertLiteral?(): boolean;
  /** Session 16: every result of an exact standard decoder applied to a constant (payload-decode.ts): bytes, or `raises`; null when not one. */
  decoded?(): readonly (Uint8Array | 'raises')[] | null;
  /** Candidate values (see scopes.ts Value): references, constants, dynamic-string markers. */
  values(): string[];
  /** Identifier names used in the expression. */
  names(): string[];
  /** Integer literal value (any base), or null. */
  number(): number | null;
  /** A false-y literal: false, False, 0, nil, null. */
  isFalse(): boolean;
  /** The 1-based line the expression starts on. */
  readonly line?: number;
}

export interface CallSite {
  readonly line: number;
  readonly args: readonly ArgView[];
  kwarg(name: string): ArgView | undefined;
  /** Identifier names of the statement around the call (e.g. the assignment target). */
  contextNames(): string[];
}

export interface CallFact {
  kind: 'call';
  line: number;
  /** Candidate fully-qualified callee names (constructor calls: the class name). */
  names: readonly string[];
  site: () => CallSite;
}

/** Attribute/property names read (`x.__globals__`), bare identifiers, property writes, syntax forms. */
export interface NameFact {
  kind: 'attribute' | 'identifier' | 'property_write' | 'syntax';
  line: number;
  name: string;
  detail?: string;
}

/**
 * A callable referenced as a value rather than called where it stands: passed as an argument
 * (`map(eval, xs)`, `Thread(target=os.system)`), stored in a container (`{'run': os.system}`)
 * or returned. Whoever receives it may call it with anything, so it is matched against the
 * critical call rules without their argument conditions (fail closed).
 */
export interface ReferenceFact {
  kind: 'reference';
  line: number;
  /** Candidate fully-qualified names of the referenced callable. */
  names: readonly string[];
}

export type Fact = CallFact | NameFact | ReferenceFact;

/** How one language evaluates expressions; used by the generic argument view. */
export interface ExprOps {
  readonly view: SyntaxView;
  constant(node: Node, scope: Scope): string | null;
  constants?(node: Node, scope: Scope): readonly string[] | null;
  inertLiteral?(node: Node, scope: Scope): boolean;
  decoded?(node: Node, scope: Scope): readonly (Uint8Array | 'raises')[] | null;
  dynamicString(node: Node, scope: Scope): boolean;
  values(node: Node, scope: Scope): string[];
  number(node: Node): number | null;
  isFalse(node: Node): boolean;
  /** Node types that are identifiers (for name heuristics). */
  readonly identifierTypes: readonly string[];
  /** Statement-like node types whose identifiers give a call its context. */
  readonly statementTypes: ReadonlySet<string>;
}

export class NodeArg implements ArgView {
  private c: string | null | undefined;
  private d: boolean | undefined;
  private r: string[] | undefined;

  constructor(
    readonly node: Node,
    private readonly scope: Scope,
    private readonly ops: ExprOps,
  ) {}

  get text(): string {
    return this.ops.view.text(this.node);
  }

  get line(): number {
    return this.ops.view.line(this.node);
  }

  constant(): string | null {
    if (this.c === undefined) this.c = this.ops.constant(this.node, this.scope);
    return this.c;
  }

  constants(): readonly string[] | null {
    const c = this.constant();
    if (c !== null) return [c];
    return this.ops.constants ? this.ops.constants(this.node, this.scope) : null;
  }

  inertLiteral(): boolean {
    return this.ops.inertLiteral?.(this.node, this.scope) ?? false;
  }

  decoded(): readonly (Uint8Array | 'raises')[] | null {
    return this.ops.decoded?.(this.node, this.scope) ?? null;
  }

  dynamicString(): boolean {
    if (this.d === undefined) this.d = this.constant() === null && this.ops.dynamicString(this.node, this.scope);
    return this.d;
  }

  values(): string[] {
    if (this.r === undefined) this.r = this.ops.values(this.node, this.scope);
    return this.r;
  }

  names(): string[] {
    return namesIn(this.node, this.ops);
  }

  number(): number | null {
    return this.ops.number(this.node);
  }

  isFalse(): boolean {
    return this.ops.isFalse(this.node);
  }
}

function namesIn(node: Node, ops: ExprOps): string[] {
  const v = ops.view;
  if (ops.identifierTypes.includes(v.type(node))) return identifierWords(v.text(node));
  return v.ofType(node, ops.identifierTypes).flatMap((n) => identifierWords(v.text(n)));
}

export interface CallSiteParts {
  node: Node;
  scope: Scope;
  ops: ExprOps;
  args: readonly Node[];
  kwargs?: ReadonlyMap<string, Node>;
}

export function makeCallSite(p: CallSiteParts): CallSite {
  const args = p.args.map((n) => new NodeArg(n, p.scope, p.ops));
  const kw = new Map<string, ArgView>();
  for (const [k, n] of p.kwargs ?? []) kw.set(k, new NodeArg(n, p.scope, p.ops));
  let context: string[] | undefined;
  return {
    line: p.ops.view.line(p.node),
    args,
    kwarg: (name) => kw.get(name),
    contextNames() {
      if (!context) {
        const stmt = p.ops.view.ancestor(p.node, p.ops.statementTypes, 12) ?? p.node;
        context = namesIn(stmt, p.ops);
      }
      return context;
    },
  };
}

/** Memoises a call-site factory so several rules share one inspection. */
export function lazySite(build: () => CallSite): () => CallSite {
  let site: CallSite | undefined;
  return () => (site ??= build());
}
