// Reads an image claim into assertions about measurable facts, and says what is left over.
// One pass over the claim's tokens with small fixed patterns (no regular expression sees the
// claim). A word that no pattern explains and that is not filler ("the", "image", "is"...) is
// content ("a cat", "a sofa"): only a vision model could read it, and a model never decides.
// Single adjectives that are also ordinary content words ("red", "square", "transparent",
// "portrait") count as measurable only when the claim has no content left over: in "a photo of
// a red car" the red is the car's, not the image's dominant colour.
import { tokenize, type Token } from '../fact/tokens.js';
import { STOPWORDS } from '../fact/lexicon.js';
import { COLOR_WORDS } from './colors.js';
import type { ImageFormat } from '../../core/image-format.js';

export type CmpOp = 'eq' | 'approx' | 'gt' | 'ge' | 'lt' | 'le';

export type Assertion =
  | { kind: 'dimensions'; width: number; height: number }
  | {
      kind: 'width' | 'height' | 'megapixels' | 'frame_count' | 'file_size';
      op: CmpOp;
      value: number;
      step: number;
      unit?: string;
    }
  | { kind: 'format'; format: ImageFormat }
  | { kind: 'aspect_ratio'; value: number; text: string }
  | { kind: 'orientation'; orientation: 'landscape' | 'portrait' | 'square' }
  | { kind: 'has_alpha' }
  | { kind: 'transparent' }
  | { kind: 'animated' }
  | { kind: 'grayscale' }
  | { kind: 'dominant_color' | 'average_color'; color: string };

export interface ParsedAssertion {
  assertion: Assertion;
  negated: boolean;
  /** The words of the claim this assertion was read from. */
  text: string;
  /** A lone adjective that is measurable only when nothing else is claimed. */
  weak: boolean;
}

export interface ParsedClaim {
  assertions: ParsedAssertion[];
  /** Words about the image's content, which no measurement settles. */
  content: string[];
}

const FILLER = new Set(
  (
    "the a an this that these it its it's is are was be has have having with in of and as which image images picture pic photo photograph " +
    'file format encoded saved stored exactly precisely size sized dimensions dimension resolution pixel pixels px orientation oriented ' +
    'aspect ratio frame frames colour color colours colors overall whole entire total contains contain mode also both has uses use using ' +
    'channel channels one single looks appears seems to type kind version there'
  ).split(/\s+/),
);

const NEGATIONS = new Set([
  'not',
  'no',
  'non',
  'without',
  "isn't",
  "doesn't",
  "hasn't",
  "aren't",
  'never',
  'lacks',
  'lack',
]);

const FORMATS: ReadonlyMap<string, ImageFormat> = new Map([
  ['png', 'png'],
  ['jpeg', 'jpeg'],
  ['jpg', 'jpeg'],
  ['gif', 'gif'],
  ['webp', 'webp'],
]);

const COMPARATORS: ReadonlyArray<{ words: string[]; op: CmpOp }> = [
  { words: ['at', 'least'], op: 'ge' },
  { words: ['at', 'most'], op: 'le' },
  { words: ['no', 'more', 'than'], op: 'le' },
  { words: ['no', 'less', 'than'], op: 'ge' },
  { words: ['more', 'than'], op: 'gt' },
  { words: ['less', 'than'], op: 'lt' },
  { words: ['fewer', 'than'], op: 'lt' },
  { words: ['larger', 'than'], op: 'gt' },
  { words: ['bigger', 'than'], op: 'gt' },
  { words: ['greater', 'than'], op: 'gt' },
  { words: ['smaller', 'than'], op: 'lt' },
  { words: ['wider', 'than'], op: 'gt' },
  { words: ['taller', 'than'], op: 'gt' },
  { words: ['over'], op: 'gt' },
  { words: ['above'], op: 'gt' },
  { words: ['under'], op: 'lt' },
  { words: ['below'], op: 'lt' },
  { words: ['up', 'to'], op: 'le' },
  { words: ['exactly'], op: 'eq' },
  { words: ['about'], op: 'approx' },
  { words: ['approximately'], op: 'approx' },
  { words: ['around'], op: 'approx' },
  { words: ['roughly'], op: 'approx' },
  { words: ['nearly'], op: 'approx' },
  { words: ['almost'], op: 'approx' },
];

const SIZE_UNITS: ReadonlyMap<string, number> = new Map([
  ['b', 1],
  ['byte', 1],
  ['bytes', 1],
  ['kb', 1e3],
  ['kilobyte', 1e3],
  ['kilobytes', 1e3],
  ['kib', 1024],
  ['mb', 1e6],
  ['megabyte', 1e6],
  ['megabytes', 1e6],
  ['mib', 1024 * 1024],
  ['gb', 1e9],
  ['gib', 1024 ** 3],
]);

const COLOR_QUALIFIERS: ReadonlyMap<string, 'dominant_color' | 'average_color'> = new Map([
  ['mostly', 'dominant_color'],
  ['predominantly', 'dominant_color'],
  ['mainly', 'dominant_color'],
  ['primarily', 'dominant_color'],
  ['largely', 'dominant_color'],
  ['dominant', 'dominant_color'],
  ['dominantly', 'dominant_color'],
  ['average', 'average_color'],
  ['mean', 'average_color'],
]);

const isNum = (t: Token | undefined): t is Token & { value: number; step: number } =>
  t !== undefined && t.kind === 'number';
const is = (t: Token | undefined, ...words: string[]) => t !== undefined && words.includes(t.lower);

export function parseImageClaim(claim: string): ParsedClaim {
  // "1920x1080" tokenizes as "1920" + "x1080": split such words back into "x" + number.
  const tokens: Token[] = [];
  for (const t of tokenize(claim)) {
    if (
      t.kind === 'word' &&
      (t.lower.startsWith('x') || t.lower.startsWith('×')) &&
      t.lower.length > 1 &&
      /^[0-9]+$/.test(t.lower.slice(1))
    ) {
      tokens.push({ ...t, text: 'x', lower: 'x', end: t.start + 1 });
      const raw = t.text.slice(1);
      tokens.push({
        kind: 'number',
        text: raw,
        lower: raw,
        start: t.start + 1,
        end: t.end,
        capitalized: false,
        value: Number(raw),
        step: 1,
      });
    } else tokens.push(t);
  }
  const used = new Uint8Array(tokens.length);
  const out: ParsedAssertion[] = [];
  const take = (a: number, b: number) => {
    for (let k = a; k <= b; k++) used[k] = 1;
  };
  const textOf = (a: number, b: number) => claim.slice(tokens[a]!.start, tokens[b]!.end);

  /** Comparator words ending right before token `at`; returns the op and the first index. */
  const comparatorBefore = (at: number): { op: CmpOp; first: number } => {
    for (const c of COMPARATORS) {
      const first = at - c.words.length;
      if (first >= 0 && c.words.every((w, k) => tokens[first + k]!.lower === w && !used[first + k]))
        return { op: c.op, first };
    }
    return { op: 'eq', first: at };
  };
  /** Comparator words starting at token `at`; returns the op and the index after them. */
  const comparatorAt = (at: number): { op: CmpOp; next: number } => {
    for (const c of COMPARATORS) {
      if (c.words.every((w, k) => tokens[at + k]?.lower === w)) return { op: c.op, next: at + c.words.length };
    }
    return { op: 'eq', next: at };
  };
  /** A negation within three tokens before `at` (skipping filler): "is not a PNG", "has no alpha". */
  const negationBefore = (at: number): number | null => {
    for (let k = at - 1, seen = 0; k >= 0 && seen < 4; k--, seen++) {
      const t = tokens[k]!;
      if (used[k]) return null;
      if (NEGATIONS.has(t.lower) || t.lower.endsWith("n't")) return k;
      if (t.kind !== 'word' || !(FILLER.has(t.lower) || t.lower === 'does' || t.lower === 'do' || t.lower === 'any'))
        return null;
    }
    return null;
  };
  const push = (assertion: Assertion, first: number, last: number, weak = false) => {
    const neg = negationBefore(first);
    if (neg !== null) take(neg, neg);
    take(first, last);
    out.push({ assertion, negated: neg !== null, text: textOf(neg ?? first, last), weak });
  };

  for (let i = 0; i < tokens.length; i++) {
    if (used[i]) continue;
    const t = tokens[i]!;
    const next = tokens[i + 1];
    if (isNum(t)) {
      // W x H
      if (is(next, 'x', '×', 'by', '*') && isNum(tokens[i + 2])) {
        let last = i + 2;
        if (is(tokens[last + 1], 'px', 'pixels', 'pixel')) last++;
        push({ kind: 'dimensions', width: t.value, height: tokens[i + 2]!.value! }, i, last);
        i = last;
        continue;
      }
      // W:H aspect ratio
      if (is(next, ':') && isNum(tokens[i + 2])) {
        push(
          { kind: 'aspect_ratio', value: t.value / tokens[i + 2]!.value!, text: `${t.text}:${tokens[i + 2]!.text}` },
          i,
          i + 2,
        );
        i += 2;
        continue;
      }
      const cmp = comparatorBefore(i);
      let k = i + 1;
      if (is(tokens[k], 'px', 'pixels', 'pixel')) k++;
      // N px wide / tall / high; N pixels in width
      if (is(tokens[k], 'wide', 'width') || (is(tokens[k], 'in') && is(tokens[k + 1], 'width'))) {
        const last = is(tokens[k], 'in') ? k + 1 : k;
        push({ kind: 'width', op: cmp.op, value: t.value, step: t.step }, cmp.first, last);
        i = last;
        continue;
      }
      if (is(tokens[k], 'tall', 'high', 'height') || (is(tokens[k], 'in') && is(tokens[k + 1], 'height'))) {
        const last = is(tokens[k], 'in') ? k + 1 : k;
        push({ kind: 'height', op: cmp.op, value: t.value, step: t.step }, cmp.first, last);
        i = last;
        continue;
      }
      if (is(next, 'mp', 'megapixel', 'megapixels')) {
        push({ kind: 'megapixels', op: cmp.op, value: t.value, step: t.step }, cmp.first, i + 1);
        i += 1;
        continue;
      }
      if (is(next, 'frame', 'frames')) {
        push({ kind: 'frame_count', op: cmp.op, value: t.value, step: 1 }, cmp.first, i + 1);
        i += 1;
        continue;
      }
      if (next && SIZE_UNITS.has(next.lower)) {
        push(
          {
            kind: 'file_size',
            op: cmp.op,
            value: t.value * SIZE_UNITS.get(next.lower)!,
            step: t.step * SIZE_UNITS.get(next.lower)!,
            unit: next.text,
          },
          cmp.first,
          i + 1,
        );
        i += 1;
        continue;
      }
      continue;
    }
    if (t.kind !== 'word') continue;
    // "width of 800", "height is 600 px", "aspect ratio of 1.5", "file size of 2 MB"
    if (is(t, 'width', 'height')) {
      let k = i + 1;
      while (is(tokens[k], 'is', 'of', 'equals', ':')) k++;
      const cmp = comparatorAt(k);
      const n = tokens[cmp.next];
      if (isNum(n)) {
        let last = cmp.next;
        if (is(tokens[last + 1], 'px', 'pixels', 'pixel')) last++;
        push({ kind: t.lower as 'width' | 'height', op: cmp.op, value: n.value, step: n.step }, i, last);
        i = last;
        continue;
      }
    }
    if (is(t, 'ratio') && is(tokens[i - 1], 'aspect')) {
      let k = i + 1;
      while (is(tokens[k], 'is', 'of', 'equals')) k++;
      if (isNum(tokens[k]) && !is(tokens[k + 1], ':')) {
        push({ kind: 'aspect_ratio', value: tokens[k]!.value!, text: tokens[k]!.text }, i - 1, k);
        i = k;
        continue;
      }
    }
    const format = FORMATS.get(t.lower);
    if (format) {
      push({ kind: 'format', format }, i, i);
      continue;
    }
    if (is(t, 'landscape', 'portrait', 'square')) {
      push({ kind: 'orientation', orientation: t.lower as 'landscape' | 'portrait' | 'square' }, i, i, true);
      continue;
    }
    if (is(t, 'alpha')) {
      const last = is(next, 'channel') ? i + 1 : i;
      push({ kind: 'has_alpha' }, i, last);
      i = last;
      continue;
    }
    if (is(t, 'transparency', 'transparent', 'translucent')) {
      push({ kind: 'transparent' }, i, i, t.lower !== 'transparency');
      continue;
    }
    if (is(t, 'opaque')) {
      out.push({
        assertion: { kind: 'transparent' },
        negated: !(negationBefore(i) !== null),
        text: t.text,
        weak: true,
      });
      const neg = negationBefore(i);
      if (neg !== null) take(neg, neg);
      take(i, i);
      continue;
    }
    if (is(t, 'animated', 'animation')) {
      push({ kind: 'animated' }, i, i);
      continue;
    }
    if (is(t, 'static')) {
      out.push({ assertion: { kind: 'animated' }, negated: true, text: t.text, weak: true });
      take(i, i);
      continue;
    }
    if (is(t, 'grayscale', 'greyscale', 'monochrome', 'monochromatic')) {
      push({ kind: 'grayscale' }, i, i);
      continue;
    }
    if (is(t, 'black') && is(next, 'and', '&') && is(tokens[i + 2], 'white')) {
      push({ kind: 'grayscale' }, i, i + 2, true);
      i += 2;
      continue;
    }
    // Colours: [qualifier] [colour/color (is)] NAME, or a bare NAME.
    const color = colorAt(tokens, i);
    if (color) {
      let qualifier: 'dominant_color' | 'average_color' | null = null;
      let first = i;
      for (let k = i - 1; k >= 0 && k >= i - 4; k--) {
        if (used[k]) break;
        const q = COLOR_QUALIFIERS.get(tokens[k]!.lower);
        if (q) {
          qualifier = q;
          first = k;
          break;
        }
        if (!is(tokens[k], 'colour', 'color', 'is', 'hue', 'tone', 'the', 'a', 'in', 'of')) break;
      }
      push({ kind: qualifier ?? 'dominant_color', color: color.name }, first, color.last, qualifier === null);
      i = color.last;
      continue;
    }
    if (
      is(t, 'colour', 'color', 'colored', 'coloured', 'colorful', 'colourful') &&
      !colorAt(tokens, i + 1) &&
      !is(next, 'is')
    ) {
      // "in colour", "a colour image", "full-colour": not greyscale.
      out.push({ assertion: { kind: 'grayscale' }, negated: !(negationBefore(i) !== null), text: t.text, weak: true });
      const neg = negationBefore(i);
      if (neg !== null) take(neg, neg);
      take(i, i);
      continue;
    }
  }

  const content: string[] = [];
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (used[k] || t.kind !== 'word') continue;
    if (
      FILLER.has(t.lower) ||
      STOPWORDS.has(t.lower) ||
      NEGATIONS.has(t.lower) ||
      is(
        t,
        'does',
        'do',
        'any',
        'full',
        'wide',
        'tall',
        'high',
        'file',
        'than',
        'more',
        'less',
        'at',
        'least',
        'most',
        'exactly',
        'size',
      )
    )
      continue;
    content.push(t.text);
  }
  if (content.length > 0) {
    // Lone adjectives belong to the content ("a red car", "a square table").
    const weak = out.filter((a) => a.weak);
    for (const w of weak) content.push(w.text);
    return { assertions: out.filter((a) => !a.weak), content };
  }
  return { assertions: out, content };
}

/** A colour name at token i (two-word names first): returns the palette key and last index. */
function colorAt(tokens: Token[], i: number): { name: string; last: number } | null {
  const t = tokens[i];
  if (!t || t.kind !== 'word') return null;
  const two = tokens[i + 1]?.kind === 'word' ? `${t.lower} ${tokens[i + 1]!.lower}` : null;
  if (two && COLOR_WORDS.has(two)) return { name: COLOR_WORDS.get(two)!, last: i + 1 };
  if (COLOR_WORDS.has(t.lower)) return { name: COLOR_WORDS.get(t.lower)!, last: i };
  return null;
}
