// Named colour palette and colour naming (nearest palette entry in CIELAB, ΔE 1976).
// Each name belongs to a family ("navy" is a blue); a claim names a family or a palette entry.

export interface PaletteEntry {
  name: string;
  hex: string;
  family: string;
  lab: [number, number, number];
}

const RAW: Array<[string, string, string]> = [
  ['black', '#000000', 'black'],
  ['white', '#ffffff', 'white'],
  ['gray', '#808080', 'gray'],
  ['dark gray', '#404040', 'gray'],
  ['light gray', '#c8c8c8', 'gray'],
  ['red', '#e00000', 'red'],
  ['dark red', '#800000', 'red'],
  ['orange', '#ff8c00', 'orange'],
  ['yellow', '#ffff00', 'yellow'],
  ['gold', '#ffd700', 'yellow'],
  ['olive', '#808000', 'green'],
  ['green', '#008000', 'green'],
  ['lime', '#00ff00', 'green'],
  ['dark green', '#004d00', 'green'],
  ['teal', '#008080', 'cyan'],
  ['cyan', '#00ffff', 'cyan'],
  ['turquoise', '#40e0d0', 'cyan'],
  ['blue', '#0000ff', 'blue'],
  ['navy', '#000080', 'blue'],
  ['sky blue', '#87ceeb', 'blue'],
  ['steel blue', '#4682b4', 'blue'],
  ['royal blue', '#4169e1', 'blue'],
  ['purple', '#800080', 'purple'],
  ['violet', '#8a2be2', 'purple'],
  ['lavender', '#b4a0e6', 'purple'],
  ['magenta', '#ff00ff', 'pink'],
  ['pink', '#ffc0cb', 'pink'],
  ['hot pink', '#ff69b4', 'pink'],
  ['brown', '#8b4513', 'brown'],
  ['tan', '#d2b48c', 'brown'],
  ['beige', '#f5f0dc', 'beige'],
];

export function hexToRgb(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

export const rgbToHex = (r: number, g: number, b: number) =>
  `#${[r, g, b]
    .map((v) =>
      Math.max(0, Math.min(255, Math.round(v)))
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;

/** sRGB (0–255) → CIELAB (D65). */
export function rgbToLab(r: number, g: number, b: number): [number, number, number] {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const R = lin(r);
  const G = lin(g);
  const B = lin(b);
  const x = (R * 0.4124564 + G * 0.3575761 + B * 0.1804375) / 0.95047;
  const y = R * 0.2126729 + G * 0.7151522 + B * 0.072175;
  const z = (R * 0.0193339 + G * 0.119192 + B * 0.9503041) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  const fx = f(x);
  const fy = f(y);
  const fz = f(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

export const PALETTE: readonly PaletteEntry[] = RAW.map(([name, hex, family]) => ({
  name,
  hex,
  family,
  lab: rgbToLab(...hexToRgb(hex)),
}));

export const FAMILIES: ReadonlySet<string> = new Set(PALETTE.map((p) => p.family));

const deltaE = (a: readonly number[], b: readonly number[]) => Math.hypot(a[0]! - b[0]!, a[1]! - b[1]!, a[2]! - b[2]!);

export interface NamedColor {
  hex: string;
  rgb: [number, number, number];
  name: string;
  family: string;
  /** ΔE76 to the named palette entry. */
  delta_e: number;
}

export function nameColor(r: number, g: number, b: number): NamedColor {
  const lab = rgbToLab(r, g, b);
  let best = PALETTE[0]!;
  let bestD = Number.POSITIVE_INFINITY;
  for (const p of PALETTE) {
    const d = deltaE(lab, p.lab);
    if (d < bestD) {
      best = p;
      bestD = d;
    }
  }
  return {
    hex: rgbToHex(r, g, b),
    rgb: [Math.round(r), Math.round(g), Math.round(b)],
    name: best.name,
    family: best.family,
    delta_e: Math.round(bestD * 10) / 10,
  };
}

/** Distance from a colour to the nearest palette entry of `familyOrName` (a family or an entry's name). */
export function distanceTo(rgb: readonly [number, number, number], familyOrName: string): number {
  const lab = rgbToLab(rgb[0], rgb[1], rgb[2]);
  let d = Number.POSITIVE_INFINITY;
  for (const p of PALETTE)
    if (p.family === familyOrName || p.name === familyOrName) d = Math.min(d, deltaE(lab, p.lab));
  return d;
}

/** Colour words a claim may use, mapped to a palette name or family. */
export const COLOR_WORDS: ReadonlyMap<string, string> = new Map([
  ...PALETTE.map((p) => [p.name, p.name] as [string, string]),
  ...[...new Set(PALETTE.map((p) => p.family))].map((f) => [f, f] as [string, string]),
  ['grey', 'gray'],
  ['dark grey', 'dark gray'],
  ['light grey', 'light gray'],
  ['silver', 'light gray'],
  ['aqua', 'cyan'],
  ['maroon', 'dark red'],
  ['indigo', 'purple'],
  ['fuchsia', 'magenta'],
  ['navy blue', 'navy'],
  ['crimson', 'red'],
  ['scarlet', 'red'],
  ['amber', 'orange'],
  ['cream', 'beige'],
  ['khaki', 'tan'],
  ['dark blue', 'navy'],
  ['light blue', 'sky blue'],
  ['light green', 'lime'],
  ['bright green', 'lime'],
  ['dark purple', 'purple'],
]);

export const familyOf = (word: string): string => PALETTE.find((p) => p.name === word)?.family ?? word;
