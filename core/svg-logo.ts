// SVG badge logos: parsed, checked against allow-lists, and re-serialized.
//
// No XML library is installed, so this is a strict parser of the small XML subset a logo
// needs, written to refuse rather than guess: elements, attributes in single or double
// quotes, text, comments, and one leading XML declaration. Anything else (DOCTYPE, entity
// declarations, CDATA, processing instructions, namespace prefixes, named entities other than
// the five of XML, malformed or unbalanced markup) rejects the whole logo. Character references
// are decoded BEFORE values are checked, so `jav&#x61;script:` is seen as `javascript:`.
//
// The logo that is embedded is the re-serialization of the parsed tree, never the input, so
// whatever a browser's XML parser would make of the input, it only ever sees the allow-listed
// tree written in canonical form (comments and the declaration dropped, every value escaped).
// All scanning is a single left-to-right pass with bounded look-ahead: linear in the input.

export const SVG_LOGO_LIMITS = { maxElements: 512, maxDepth: 32, maxValueLength: 4096 } as const;

const SVG_NS = 'http://www.w3.org/2000/svg';

/** Elements a logo may contain: shapes, groups, gradients, clipping, title and description. */
export const SVG_ELEMENTS: ReadonlySet<string> = new Set([
  'svg',
  'g',
  'path',
  'rect',
  'circle',
  'ellipse',
  'line',
  'polyline',
  'polygon',
  'title',
  'desc',
  'defs',
  'linearGradient',
  'radialGradient',
  'stop',
  'clipPath',
]);

/** Presentation and geometry attributes. No event handlers, links, styles or references other than `url(#id)`. */
export const SVG_ATTRIBUTES: ReadonlySet<string> = new Set([
  'xmlns',
  'version',
  'id',
  'width',
  'height',
  'viewBox',
  'preserveAspectRatio',
  'x',
  'y',
  'x1',
  'y1',
  'x2',
  'y2',
  'cx',
  'cy',
  'r',
  'rx',
  'ry',
  'fx',
  'fy',
  'd',
  'points',
  'fill',
  'fill-opacity',
  'fill-rule',
  'stroke',
  'stroke-width',
  'stroke-opacity',
  'stroke-linecap',
  'stroke-linejoin',
  'stroke-miterlimit',
  'stroke-dasharray',
  'stroke-dashoffset',
  'opacity',
  'transform',
  'offset',
  'stop-color',
  'stop-opacity',
  'gradientUnits',
  'gradientTransform',
  'spreadMethod',
  'clip-path',
  'clip-rule',
  'clipPathUnits',
]);

/** Elements whose text content is kept (everywhere else only whitespace is allowed, and dropped). */
const TEXT_ELEMENTS: ReadonlySet<string> = new Set(['title', 'desc']);

// Attribute values: no ':' (so no URL scheme), no quotes, '<', '&', ';' or '\' after decoding.
const SAFE_VALUE = /^[A-Za-z0-9#.,%\s()+_-]*$/;
const LOCAL_URL = /url\(#[A-Za-z0-9_-]+\)/g;
const ANY_URL = /url\s*\(/i;
const NAME_START = /[A-Za-z_]/;
const NAME_CHAR = /[A-Za-z0-9_.-]/;

export class SvgLogoError extends Error {}

export interface SvgNode {
  name: string;
  attrs: Array<[string, string]>;
  children: Array<SvgNode | string>;
}

const fail = (why: string): never => {
  throw new SvgLogoError(why);
};

function isXmlChar(cp: number): boolean {
  return (
    cp === 0x9 ||
    cp === 0xa ||
    cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Decodes the five XML entities and character references; any other '&' is an error. */
function decodeText(raw: string): string {
  let out = '';
  let i = 0;
  while (i < raw.length) {
    const amp = raw.indexOf('&', i);
    if (amp < 0) {
      out += raw.slice(i);
      break;
    }
    out += raw.slice(i, amp);
    const semi = raw.indexOf(';', amp);
    if (semi < 0 || semi - amp > 10) fail('bare ampersand');
    const ent = raw.slice(amp + 1, semi);
    if (Object.prototype.hasOwnProperty.call(NAMED, ent)) out += NAMED[ent];
    else {
      const m = /^#(?:x([0-9A-Fa-f]{1,6})|([0-9]{1,7}))$/.exec(ent);
      if (!m) fail(`entity '&${ent};' not allowed`);
      const cp = m![1] !== undefined ? parseInt(m![1], 16) : parseInt(m![2] as string, 10);
      if (!isXmlChar(cp)) fail('character reference to a non-XML character');
      out += String.fromCodePoint(cp);
    }
    i = semi + 1;
  }
  for (const ch of out) if (!isXmlChar(ch.codePointAt(0) as number)) fail('non-XML character');
  return out;
}

function checkAttribute(element: string, name: string, value: string): void {
  if (!SVG_ATTRIBUTES.has(name)) fail(`attribute '${name}' not allowed`);
  if (value.length > SVG_LOGO_LIMITS.maxValueLength) fail('attribute value too long');
  if (name === 'xmlns') {
    if (element !== 'svg' || value !== SVG_NS) fail('unexpected namespace');
    return;
  }
  if (!SAFE_VALUE.test(value)) fail(`attribute '${name}' has a disallowed character`);
  if (ANY_URL.test(value.replace(LOCAL_URL, '')))
    fail(`attribute '${name}' references something other than a local id`);
}

class Parser {
  private pos = 0;
  private elements = 0;

  constructor(private readonly text: string) {}

  parse(): SvgNode {
    const t = this.text;
    if (t.startsWith('<?xml')) {
      const end = t.indexOf('?>');
      if (end < 0) fail('unterminated XML declaration');
      this.pos = end + 2;
    }
    this.skipMisc();
    if (t[this.pos] !== '<') fail('no root element');
    const root = this.element(0);
    if (root.name !== 'svg') fail('root element is not svg');
    this.skipMisc();
    if (this.pos !== t.length) fail('content after the root element');
    return root;
  }

  /** Whitespace and comments between top-level constructs. */
  private skipMisc(): void {
    const t = this.text;
    for (;;) {
      this.skipSpace();
      if (t.startsWith('<!--', this.pos)) this.comment();
      else return;
    }
  }

  private comment(): void {
    const end = this.text.indexOf('-->', this.pos + 4);
    if (end < 0) fail('unterminated comment');
    if (this.text.slice(this.pos + 4, end).includes('--')) fail("'--' inside a comment");
    this.pos = end + 3;
  }

  private name(): string {
    const t = this.text;
    const start = this.pos;
    if (!NAME_START.test(t[this.pos] ?? '')) fail('expected a name');
    this.pos++;
    while (this.pos < t.length && NAME_CHAR.test(t[this.pos] as string)) this.pos++;
    if (t[this.pos] === ':') fail('namespace prefixes are not allowed');
    return t.slice(start, this.pos);
  }

  private skipSpace(): boolean {
    const start = this.pos;
    while (this.pos < this.text.length && /[ \t\r\n]/.test(this.text[this.pos] as string)) this.pos++;
    return this.pos > start;
  }

  private element(depth: number): SvgNode {
    const t = this.text;
    if (depth >= SVG_LOGO_LIMITS.maxDepth) fail('nesting too deep');
    if (++this.elements > SVG_LOGO_LIMITS.maxElements) fail('too many elements');
    this.pos++; // '<'
    const name = this.name();
    if (!SVG_ELEMENTS.has(name)) fail(`element '${name}' not allowed`);
    const node: SvgNode = { name, attrs: [], children: [] };
    const seen = new Set<string>();
    for (;;) {
      const spaced = this.skipSpace();
      const c = t[this.pos];
      if (c === '>') {
        this.pos++;
        break;
      }
      if (c === '/' && t[this.pos + 1] === '>') {
        this.pos += 2;
        return node;
      }
      if (!spaced) fail('expected whitespace before an attribute');
      const attr = this.name();
      this.skipSpace();
      if (t[this.pos] !== '=') fail('expected =');
      this.pos++;
      this.skipSpace();
      const quote = t[this.pos];
      if (quote !== '"' && quote !== "'") fail('attribute value must be quoted');
      const end = t.indexOf(quote as string, this.pos + 1);
      if (end < 0) fail('unterminated attribute value');
      const raw = t.slice(this.pos + 1, end);
      if (raw.includes('<')) fail("'<' in an attribute value");
      this.pos = end + 1;
      if (seen.has(attr)) fail(`duplicate attribute '${attr}'`);
      seen.add(attr);
      const value = decodeText(raw);
      checkAttribute(name, attr, value);
      node.attrs.push([attr, value]);
    }
    // Content until the matching end tag.
    for (;;) {
      const lt = t.indexOf('<', this.pos);
      if (lt < 0) fail(`unclosed element '${name}'`);
      const raw = t.slice(this.pos, lt);
      if (raw.length > 0) {
        const text = decodeText(raw);
        if (TEXT_ELEMENTS.has(name)) node.children.push(text);
        else if (text.trim() !== '') fail(`text inside '${name}'`);
      }
      this.pos = lt;
      if (t.startsWith('</', lt)) {
        this.pos = lt + 2;
        const closing = this.name();
        this.skipSpace();
        if (closing !== name || t[this.pos] !== '>') fail(`mismatched end tag '${closing}'`);
        this.pos++;
        return node;
      }
      if (t.startsWith('<!--', lt)) {
        this.comment();
        continue;
      }
      if (t.startsWith('<!', lt) || t.startsWith('<?', lt))
        fail('declarations, CDATA and processing instructions are not allowed');
      if (TEXT_ELEMENTS.has(name)) fail(`element inside '${name}'`);
      node.children.push(this.element(depth + 1));
    }
  }
}

const escapeAttr = (v: string) =>
  v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const escapeText = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Canonical form of a parsed tree: double-quoted attributes in input order, empty elements self-closed. */
export function serializeSvg(node: SvgNode, root = true): string {
  const attrs = [...node.attrs];
  if (root && !attrs.some(([n]) => n === 'xmlns')) attrs.unshift(['xmlns', SVG_NS]);
  const open = `<${node.name}${attrs.map(([n, v]) => ` ${n}="${escapeAttr(v)}"`).join('')}`;
  if (node.children.length === 0) return `${open}/>`;
  const inner = node.children.map((c) => (typeof c === 'string' ? escapeText(c) : serializeSvg(c, false))).join('');
  return `${open}>${inner}</${node.name}>`;
}

/** Parses an SVG logo; throws SvgLogoError for anything outside the allow-lists. */
export function parseSvgLogo(text: string): SvgNode {
  return new Parser(text).parse();
}

/** The canonical, allow-listed form of an SVG logo (UTF-8 bytes in), or null when it is refused. */
export function sanitizeSvgLogo(bytes: Buffer): string | null {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return null;
  }
  try {
    return serializeSvg(parseSvgLogo(text));
  } catch (err) {
    if (err instanceof SvgLogoError) return null;
    throw err;
  }
}
