import { describe, it, expect } from 'vitest';
import {
  renderBadge,
  renderStatusBadge,
  isKnownStatus,
  attestationBadgeState,
  NOT_PROVEN_COLOR,
  renderVerifiedBadge,
  renderEngineBadge,
  renderAttestationBadge,
  renderNotFoundBadge,
  sanitizeBadgeText,
  sanitizeColor,
  sanitizeLogo,
  statusColor,
  MAX_BADGE_TEXT,
  MAX_LOGO_CHARS,
} from '../../core/badges.js';

// A small, strict XML reader: enough to walk badge-maker's output and fail on anything
// that is not well-formed (unbalanced tags, unescaped '<' or '&', bad attribute syntax).
interface XmlNode {
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
  text: string;
}

function decodeEntities(s: string): string {
  if (/&(?!(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)/.test(s)) throw new Error(`bare '&' in ${s}`);
  return s.replace(/&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);/g, (_, e: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    if (e in named) return named[e];
    return String.fromCodePoint(e.startsWith('#x') ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
  });
}

function parseXml(xml: string): XmlNode {
  let pos = 0;
  const root: XmlNode = { name: '#document', attrs: {}, children: [], text: '' };
  const stack: XmlNode[] = [root];
  while (pos < xml.length) {
    const lt = xml.indexOf('<', pos);
    const textEnd = lt === -1 ? xml.length : lt;
    const text = xml.slice(pos, textEnd);
    if (text.includes('>')) throw new Error(`unescaped '>' in text ${text}`);
    stack[stack.length - 1].text += decodeEntities(text);
    if (lt === -1) break;
    const close = /^<\/([A-Za-z][\w:.-]*)\s*>/.exec(xml.slice(lt));
    if (close) {
      const top = stack.pop();
      if (!top || top.name !== close[1]) throw new Error(`mismatched </${close[1]}>`);
      pos = lt + close[0].length;
      continue;
    }
    const open = /^<([A-Za-z][\w:.-]*)((?:\s+[A-Za-z_][\w:.-]*="[^"<]*")*)\s*(\/?)>/.exec(xml.slice(lt));
    if (!open) throw new Error(`malformed tag at ${lt}: ${xml.slice(lt, lt + 40)}`);
    const node: XmlNode = { name: open[1], attrs: {}, children: [], text: '' };
    for (const a of open[2].matchAll(/([A-Za-z_][\w:.-]*)="([^"]*)"/g)) {
      if (a[1] in node.attrs) throw new Error(`duplicate attribute ${a[1]}`);
      node.attrs[a[1]] = decodeEntities(a[2]);
    }
    stack[stack.length - 1].children.push(node);
    if (!open[3]) stack.push(node);
    pos = lt + open[0].length;
  }
  if (stack.length !== 1) throw new Error('unclosed element');
  if (root.children.length !== 1 || root.children[0].name !== 'svg') throw new Error('root must be a single <svg>');
  return root.children[0];
}

function walk(node: XmlNode, fn: (n: XmlNode) => void): void {
  fn(node);
  node.children.forEach((c) => walk(c, fn));
}

const ALLOWED_ELEMENTS = new Set([
  'svg',
  'title',
  'linearGradient',
  'stop',
  'clipPath',
  'rect',
  'g',
  'text',
  'image',
  'filter',
  'feGaussianBlur',
]);

/** Parses a badge and checks it is inert: known elements only, no event handlers or script URLs. */
function inspect(svg: string) {
  const root = parseXml(svg);
  const texts: string[] = [];
  let title = '';
  const images: string[] = [];
  const fills: string[] = [];
  walk(root, (n) => {
    expect(ALLOWED_ELEMENTS.has(n.name), `element ${n.name}`).toBe(true);
    for (const [k, v] of Object.entries(n.attrs)) {
      expect(/^on/i.test(k), `attribute ${k}`).toBe(false);
      if (k === 'href' || k === 'xlink:href') {
        expect(n.name).toBe('image');
        expect(v).toMatch(/^data:image\/(png|svg\+xml);base64,/);
        images.push(v);
      }
      expect(v.toLowerCase()).not.toContain('javascript:');
      if (k === 'fill' && n.name === 'rect') fills.push(v);
    }
    if (n.name === 'text') texts.push(n.text);
    if (n.name === 'title') title = n.text;
  });
  expect(svg).not.toMatch(/<script/i);
  expect(svg).not.toMatch(/<foreignObject/i);
  return { root, texts, title, images, fills, ariaLabel: root.attrs['aria-label'] };
}

const PNG_1x1 =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const svgLogo = (content: string) => `data:image/svg+xml;base64,${Buffer.from(content).toString('base64')}`;
const SAFE_SVG = svgLogo(
  '<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"><rect width="8" height="8" fill="#0a0"/></svg>',
);

describe('sanitizers', () => {
  it('cleans and limits text', () => {
    expect(sanitizeBadgeText('  build  ', 'x')).toBe('build');
    expect(sanitizeBadgeText(42, 'fallback')).toBe('fallback');
    expect(sanitizeBadgeText(['a'], 'fallback')).toBe('fallback');
    expect(sanitizeBadgeText('\u0000\u0007\u202e', 'fallback')).toBe('fallback');
    expect(sanitizeBadgeText('a\u202eb\u2066c\u0001d\u0085e', 'x')).toBe('abcde');
    expect(sanitizeBadgeText('bad\ud800half', 'x')).toBe('bad\ufffdhalf');
    const long = 'x'.repeat(200);
    expect(sanitizeBadgeText(long, '')).toBe(`${'x'.repeat(MAX_BADGE_TEXT - 1)}\u2026`);
    expect(Array.from(sanitizeBadgeText('😀'.repeat(100), ''))).toHaveLength(MAX_BADGE_TEXT);
    expect(sanitizeBadgeText('😀'.repeat(100), '')).not.toMatch(/[\uD800-\uDBFF]$/);
    expect(sanitizeBadgeText('x'.repeat(MAX_BADGE_TEXT), '')).toBe('x'.repeat(MAX_BADGE_TEXT));
  });

  it('accepts named and hex colors only', () => {
    expect(sanitizeColor('brightgreen')).toBe('brightgreen');
    expect(sanitizeColor('Critical')).toBe('critical');
    expect(sanitizeColor('#ABC')).toBe('#abc');
    expect(sanitizeColor('00ff7f')).toBe('#00ff7f');
    for (const bad of [
      'url(#x)',
      'rgb(0,0,0)',
      'hsl(0,0%,0%)',
      'aqua',
      '#abcd',
      '#12345',
      'red"onload="x',
      'red;',
      '',
      3,
      null,
    ]) {
      expect(sanitizeColor(bad)).toBe('grey');
    }
    expect(sanitizeColor('nope', 'lightgrey')).toBe('lightgrey');
  });

  it('accepts small PNG and inert SVG data URIs only', () => {
    expect(sanitizeLogo(PNG_1x1)).toBe(PNG_1x1);
    expect(sanitizeLogo(SAFE_SVG)).toBe(SAFE_SVG);
    const rejected = [
      'javascript:alert(1)',
      'https://example.com/logo.svg',
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'data:image/png;base64,not base64!',
      'data:image/png;base64,QUJD', // not a PNG
      `data:image/png;base64,${Buffer.from('<svg/>').toString('base64')}`,
      svgLogo('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
      svgLogo('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>'),
      svgLogo('<svg xmlns="http://www.w3.org/2000/svg"><a href="javascript:alert(1)"><rect/></a></svg>'),
      svgLogo('<svg xmlns="http://www.w3.org/2000/svg"><foreignObject><div/></foreignObject></svg>'),
      svgLogo('<!DOCTYPE svg [<!ENTITY x "y">]><svg xmlns="http://www.w3.org/2000/svg"/>'),
      svgLogo('<html>not svg</html>'),
      `${SAFE_SVG}"`,
      `data:image/png;base64,${'A'.repeat(MAX_LOGO_CHARS)}`,
      42,
      undefined,
    ];
    for (const logo of rejected) expect(sanitizeLogo(logo)).toBeUndefined();
  });
});

describe('renderBadge', () => {
  it('renders label, message and color', () => {
    const b = inspect(renderBadge({ label: 'build', message: 'passing', color: 'brightgreen' }));
    expect(b.title).toBe('build: passing');
    expect(b.ariaLabel).toBe('build: passing');
    expect(b.texts).toContain('build');
    expect(b.texts).toContain('passing');
    expect(b.fills).toContain('#4b0');
    expect(b.images).toEqual([]);
  });

  it('escapes hostile text so it stays text', () => {
    const hostile = [
      '<script>alert(1)</script>',
      '"onload="alert(1)',
      "' onmouseover='alert(1)",
      '</text></g></svg><script>alert(1)</script>',
      ']]><!--',
      '&lt;&amp;',
      'ünïcödé 😀 中文',
    ];
    for (const h of hostile) {
      const svg = renderBadge({ label: h, message: h, color: 'red' });
      const b = inspect(svg);
      const expected = sanitizeBadgeText(h, 'x');
      expect(b.title).toBe(`${expected}: ${expected}`);
      expect(b.texts.filter((t) => t === expected).length).toBeGreaterThanOrEqual(2);
      expect(b.root.children.filter((c) => c.name === 'svg')).toEqual([]);
    }
  });

  it('limits text length and falls back for non-strings', () => {
    const b = inspect(renderBadge({ label: 'L'.repeat(500), message: 'M'.repeat(500) }));
    expect(b.title).toBe(`${'L'.repeat(MAX_BADGE_TEXT - 1)}\u2026: ${'M'.repeat(MAX_BADGE_TEXT - 1)}\u2026`);
    const f = inspect(renderBadge({ label: { a: 1 }, message: ['x'], color: { toString: () => 'red' } }));
    expect(f.title).toBe('svc: unknown');
    expect(f.fills).toContain('#555');
  });

  it('falls back to grey for unsupported colors', () => {
    const b = inspect(
      renderBadge({ label: 'a', message: 'b', color: 'url(javascript:alert(1))', labelColor: 'expression(alert(1))' }),
    );
    expect(b.fills.filter((f) => f === '#555')).toHaveLength(2);
    expect(inspect(renderBadge({ label: 'a', message: 'b', color: '#0f0' })).fills).toContain('#0f0');
  });

  it('embeds only accepted logos', () => {
    expect(inspect(renderBadge({ label: 'a', message: 'b', logo: PNG_1x1 })).images).toEqual([PNG_1x1]);
    expect(inspect(renderBadge({ label: 'a', message: 'b', logo: SAFE_SVG })).images).toEqual([SAFE_SVG]);
    for (const logo of [
      'javascript:alert(1)',
      svgLogo('<svg><script>alert(1)</script></svg>'),
      `data:image/png;base64,${'A'.repeat(MAX_LOGO_CHARS)}`,
    ]) {
      expect(inspect(renderBadge({ label: 'a', message: 'b', logo })).images).toEqual([]);
    }
  });
});

describe('status, engine, attestation and not-found badges', () => {
  it('maps status colors', () => {
    expect(statusColor('VERIFIED')).toBe('brightgreen');
    expect(statusColor('failed')).toBe('red');
    expect(statusColor('CORRECTED')).toBe('yellow');
    expect(statusColor('BLOCKED')).toBe('critical');
    expect(statusColor('PENDING')).toBe('lightgrey');
    expect(statusColor('ERROR')).toBe('orange');
    expect(statusColor('SOMETHING')).toBe('grey');
    expect(statusColor('constructor')).toBe('grey');
    expect(statusColor('__proto__')).toBe('grey');
  });

  it('renders status badges', () => {
    const cases: Array<[string, string, string]> = [
      ['verified', 'VERIFIED', '#4b0'],
      ['FAILED', 'FAILED', '#dd4343'],
      ['Corrected', 'CORRECTED', '#d8b800'],
      ['BLOCKED', 'BLOCKED', '#dd4343'],
      ['pending', 'PENDING', '#939393'],
      ['ERROR', 'ERROR', '#ea7233'],
      ['unverifiable', 'UNVERIFIABLE', '#9a6700'],
      ['admit', 'ADMIT', '#4b0'],
      // Issue 27: a status the service does not have is the fixed "unknown" badge, never the URL's text.
      ['weird', 'unknown', '#939393'],
    ];
    for (const [input, message, fill] of cases) {
      const b = inspect(renderStatusBadge(input));
      expect(b.title).toBe(`svc: ${message}`);
      expect(b.fills).toContain(fill);
    }
    const hostile = inspect(renderStatusBadge('<img src=x onerror=alert(1)>'));
    expect(hostile.title).toBe('svc: unknown');
    for (const s of ['VERIFIED ', ' blocked', 'unverifiable']) expect(isKnownStatus(s), s).toBe(true);
    for (const s of ['constructor', '__proto__', 'VERIFIED!', '', 'hacked', 42])
      expect(isKnownStatus(s), String(s)).toBe(false);
  });

  it('renders verified, engine, attestation and not-found badges', () => {
    const v = inspect(renderVerifiedBadge(true));
    expect(v.title).toBe('svc: verified');
    expect(v.fills).toContain('#4b0');
    const f = inspect(renderVerifiedBadge(false));
    expect(f.title).toBe('svc: failed');
    expect(f.fills).toContain('#dd4343');

    const e = inspect(renderEngineBadge('SQL'));
    expect(e.title).toBe('engine: sql');
    expect(e.fills).toContain('#007ec6');
    expect(inspect(renderEngineBadge('"><script>')).title).toBe('engine: "><script>');

    expect(inspect(renderAttestationBadge('valid')).title).toBe('attestation: valid');
    expect(inspect(renderAttestationBadge('valid')).fills).toContain('#4b0');
    expect(inspect(renderAttestationBadge('REVOKED')).fills).toContain('#dd4343');
    expect(inspect(renderAttestationBadge('expired')).fills).toContain('#ea7233');
    expect(inspect(renderAttestationBadge('other')).fills).toContain('#555');
    expect(inspect(renderAttestationBadge('blocked')).fills).toContain('#dd4343');
    expect(inspect(renderAttestationBadge('admitted')).fills).toContain('#4b0');
    expect(inspect(renderAttestationBadge('admission unknown')).fills).toContain('#9a6700');

    const n = inspect(renderNotFoundBadge());
    expect(n.title).toBe('svc: not found');
    expect(n.fills).toContain('#939393');
    expect(inspect(renderNotFoundBadge('attestation')).title).toBe('attestation: not found');
  });
});

describe('issue 27: attestation badge state leads with the signed admission; readable not-proven badges', () => {
  it('blocked / admitted / admission unknown / verified', () => {
    expect(attestationBadgeState({ svc: { result: { engine: 'code', admission: 'BLOCKED' } } })).toBe('blocked');
    expect(attestationBadgeState({ svc: { result: { engine: 'sql', admission: 'ADMIT' } } })).toBe('admitted');
    // A code/SQL token without a signed admission (older tokens) is never shown as admissible.
    expect(attestationBadgeState({ svc: { result: { engine: 'code' } } })).toBe('admission unknown');
    expect(attestationBadgeState({ svc: { result: { engine: 'sql', admission: 'yes' } } })).toBe('admission unknown');
    expect(attestationBadgeState({ svc: { result: { engine: 'math' } } })).toBe('verified');
  });

  it('the UNVERIFIABLE badge is not grey on grey: white text on its message reads at WCAG AA (>= 4.5:1)', () => {
    const lum = (hex: string) => {
      const h = hex.replace('#', '');
      const full = h.length === 3 ? [...h].map((c) => c + c).join('') : h;
      const [r, g, b] = [0, 2, 4]
        .map((i) => parseInt(full.slice(i, i + 2), 16) / 255)
        .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)) as [number, number, number];
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const contrast = (a: string, b: string) => {
      const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p) as [number, number];
      return (x + 0.05) / (y + 0.05);
    };
    const svg = renderStatusBadge('UNVERIFIABLE');
    const fills = [...svg.matchAll(/<rect[^>]*fill="(#[0-9a-f]+)"/g)].map((m) => m[1] as string);
    const [label, message] = fills as [string, string];
    expect(message).not.toBe(label);
    expect(message).toBe(NOT_PROVEN_COLOR);
    const textFill = /<text x="\d+" y="140"(?: fill="(#[0-9a-f]+)")?[^>]*>UNVERIFIABLE</.exec(svg)?.[1] ?? '#fff';
    expect(contrast(textFill, message)).toBeGreaterThanOrEqual(4.5);
  });
});
