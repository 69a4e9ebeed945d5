// Thin helpers over web-tree-sitter nodes.
//
// Every Node getter is a call into WebAssembly, so analyzers never walk the whole tree in
// JavaScript: they ask tree-sitter for the nodes of the kinds they need (descendantsOfType,
// one native traversal) and inspect only those, with node types cached by node id.
import type { Language, Node, Point, Tree } from 'web-tree-sitter';

const ORIGIN: Point = { row: 0, column: 0 };
const END: Point = { row: 0x7fffffff, column: 0 };

export class SyntaxView {
  private readonly types = new Map<number, string>();
  private readonly ends = new Map<number, number>();

  constructor(
    readonly source: string,
    readonly tree: Tree,
  ) {}

  get root(): Node {
    return this.tree.rootNode;
  }

  type(n: Node): string {
    let t = this.types.get(n.id);
    if (t === undefined) {
      t = n.type;
      this.types.set(n.id, t);
    }
    return t;
  }

  end(n: Node): number {
    let e = this.ends.get(n.id);
    if (e === undefined) {
      e = n.endIndex;
      this.ends.set(n.id, e);
    }
    return e;
  }

  text(n: Node): string {
    return this.source.slice(n.startIndex, this.end(n));
  }

  /** 1-based line of the node's first character. */
  line(n: Node): number {
    return n.startPosition.row + 1;
  }

  field(n: Node, name: string): Node | null {
    return n.childForFieldName(name);
  }

  fields(n: Node, name: string): Node[] {
    return n.childrenForFieldName(name).filter((c): c is Node => c !== null);
  }

  named(n: Node): Node[] {
    return n.namedChildren.filter((c): c is Node => c !== null);
  }

  /** Named children that are not comments. */
  args(n: Node): Node[] {
    return this.named(n).filter((c) => this.type(c) !== 'comment');
  }

  /**
   * All named descendants (document order) whose type is in `types`; includes `from` itself if
   * it matches. tree-sitter matches anonymous tokens of the same name too (the `lambda`
   * keyword inside a `lambda` node), so those are filtered out.
   */
  ofType(from: Node, types: readonly string[]): Node[] {
    const found = from.descendantsOfType(types as string[], ORIGIN, END).filter((c): c is Node => c !== null);
    const tokens = anonymousTwins(this.tree.language, types);
    if (tokens.size === 0) return found;
    return found.filter((n) => !tokens.has(this.type(n)) || n.isNamed);
  }

  /** The smallest named node spanning [start, end). */
  namedAt(start: number, end: number): Node | null {
    return this.root.namedDescendantForIndex(start, Math.max(start, end - 1));
  }

  /** Nearest ancestor (or the node itself) whose type is in `types`, stopping after `maxDepth` steps. */
  ancestor(n: Node, types: ReadonlySet<string>, maxDepth = 64): Node | null {
    let cur: Node | null = n;
    for (let i = 0; cur && i <= maxDepth; i++) {
      if (types.has(this.type(cur))) return cur;
      cur = cur.parent;
    }
    return null;
  }
}

const twins = new WeakMap<Language, Map<string, boolean>>();

/** Which of `types` also name an anonymous token in the grammar. */
function anonymousTwins(language: Language, types: readonly string[]): Set<string> {
  let cache = twins.get(language);
  if (!cache) twins.set(language, (cache = new Map()));
  const out = new Set<string>();
  for (const t of types) {
    let has = cache.get(t);
    if (has === undefined) {
      has = t !== 'ERROR' && language.idForNodeType(t, false) !== null;
      cache.set(t, has);
    }
    if (has) out.add(t);
  }
  return out;
}

/** Identifier-like words inside a piece of code (used for password-name heuristics). */
export function identifierWords(text: string): string[] {
  return text.match(/[A-Za-z_$][A-Za-z0-9_$]*/g) ?? [];
}

/** A dotted chain like `a.b.c` (optional whitespace around dots), split into its parts; null otherwise. */
export function dottedParts(text: string): string[] | null {
  if (!/^[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*)*$/.test(text)) return null;
  return text.split('.').map((p) => p.trim());
}

/** Decodes the escapes of a quoted literal body (shared subset of Python/JS/Go/Java/Ruby/PHP double quotes). */
export function unescapeLiteral(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|[0-7]{1,3}|[\s\S])/g, (_m, e: string) => {
    switch (e[0]) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '\r';
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7':
        return String.fromCharCode(parseInt(e, 8));
      case 'x':
        return String.fromCharCode(parseInt(e.slice(1), 16));
      case 'u':
        return String.fromCodePoint(parseInt(e.replace(/[u{}]/g, ''), 16));
      case '\n':
        return '';
      default:
        return e;
    }
  });
}
