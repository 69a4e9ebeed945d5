// pickle: a constant bytes literal whose opcode stream certainly builds only plain data (issue 24,
// session 16). A constant payload is still a payload: `pickle.loads(b"cos\nsystem\n(S'id'\ntR.")`
// runs a command, so a constant is judged by what it contains.
//
// The unpickler runs code only through the opcodes that import (GLOBAL `c`, STACK_GLOBAL, INST
// `i`, the extension registry EXT1/2/4), call (REDUCE `R`, OBJ `o`, NEWOBJ, NEWOBJ_EX, INST,
// BUILD `b`, which calls __setstate__) or ask the program (PERSID `P` / BINPERSID `Q`). Without
// them the stack holds only built-in values (str, bytes, numbers, None, booleans, lists, tuples,
// dicts, sets, bytearrays), whose append / setitem / add are the built-in ones. The stream is
// walked opcode by opcode with each argument's exact length (protocols 0 to 5, as pickletools
// documents them); it is inert when it reaches STOP holding none of the dangerous opcodes. An
// unknown opcode, NEXT_BUFFER / READONLY_BUFFER, or a stream that ends early fails closed.
//
// The bytes come from the literal's own text, decoded here with Python's bytes escapes
// (`\\xhh`, octal, `\\n` …, an unknown escape keeps its backslash); only one `b` / `rb` literal
// is read (a concatenation, a name or a str literal is not judged).

const DANGEROUS = new Set([0x63, 0x93, 0x69, 0x6f, 0x52, 0x81, 0x92, 0x62, 0x50, 0x51, 0x82, 0x83, 0x84, 0x97, 0x98]);
/** Opcodes without an argument. */
const BARE = new Set(
  [...'(.012NRatdeslu])}b'].map((c) => c.charCodeAt(0)).concat([0x85, 0x86, 0x87, 0x88, 0x89, 0x8f, 0x90, 0x91, 0x94]),
);
/** Opcodes whose argument runs to the next newline. */
const LINE = new Set([...'FILPSVgp'].map((c) => c.charCodeAt(0)));
/** Opcodes with a fixed-size argument: its byte count. */
const FIXED: ReadonlyMap<number, number> = new Map([
  [0x4a, 4], // J BININT
  [0x4b, 1], // K BININT1
  [0x4d, 2], // M BININT2
  [0x68, 1], // h BINGET
  [0x6a, 4], // j LONG_BINGET
  [0x71, 1], // q BINPUT
  [0x72, 4], // r LONG_BINPUT
  [0x47, 8], // G BINFLOAT
  [0x80, 1], // PROTO
  [0x95, 8], // FRAME
]);
/** Opcodes whose argument is a length of n bytes (little-endian) followed by that many bytes. */
const COUNTED: ReadonlyMap<number, number> = new Map([
  [0x54, 4], // T BINSTRING
  [0x55, 1], // U SHORT_BINSTRING
  [0x58, 4], // X BINUNICODE
  [0x42, 4], // B BINBYTES
  [0x43, 1], // C SHORT_BINBYTES
  [0x8a, 1], // LONG1
  [0x8b, 4], // LONG4
  [0x8c, 1], // SHORT_BINUNICODE
  [0x8d, 8], // BINUNICODE8
  [0x8e, 8], // BINBYTES8
  [0x96, 8], // BYTEARRAY8
]);

/** The opcode stream `bytes` reaches STOP using none of the opcodes that import, call or ask the program. */
export function inertPickle(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length) {
    const op = bytes[i++];
    if (op === 0x2e) return true; // STOP
    if (DANGEROUS.has(op)) return false;
    if (BARE.has(op)) continue;
    if (LINE.has(op)) {
      const nl = bytes.indexOf(0x0a, i);
      if (nl < 0) return false;
      i = nl + 1;
      continue;
    }
    const fixed = FIXED.get(op);
    if (fixed !== undefined) {
      i += fixed;
      continue;
    }
    const width = COUNTED.get(op);
    if (width === undefined || i + width > bytes.length) return false;
    let n = 0;
    for (let k = width - 1; k >= 0; k--) n = n * 256 + bytes[i + k];
    i += width + n;
  }
  return false;
}

const SIMPLE: Record<string, number> = {
  '\\': 0x5c,
  "'": 0x27,
  '"': 0x22,
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
};

/** The bytes of one Python `b'…'` / `rb'…'` literal's source text, or null (not one such literal, or not ASCII source). */
export function pythonBytesLiteral(text: string): Uint8Array | null {
  const m = /^([bB][rR]?|[rR][bB])('''|"""|'|")/.exec(text);
  if (!m || !text.endsWith(m[2]) || text.length < m[0].length + m[2].length) return null;
  const body = text.slice(m[0].length, text.length - m[2].length);
  if (!/^[\x00-\x0c\x0e-\x7f]*$/.test(body)) return null; // ASCII only (a bytes literal's rule), and no CR (line ends are normalised)
  const raw = /r/i.test(m[1]);
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\' || raw) {
      if (raw && c === '\\') {
        // A raw literal keeps the backslash and the character after it (which may be a quote).
        out.push(0x5c);
        if (i + 1 < body.length) out.push(body.charCodeAt(++i));
        continue;
      }
      out.push(c.charCodeAt(0));
      continue;
    }
    const e = body[i + 1];
    if (e === undefined) return null;
    if (e === '\n') {
      i++;
      continue;
    }
    if (SIMPLE[e] !== undefined) {
      out.push(SIMPLE[e]);
      i++;
      continue;
    }
    if (e === 'x') {
      const h = /^[0-9a-fA-F]{2}/.exec(body.slice(i + 2, i + 4));
      if (!h) return null; // a SyntaxError in Python
      out.push(parseInt(h[0], 16));
      i += 3;
      continue;
    }
    const o = /^[0-7]{1,3}/.exec(body.slice(i + 1, i + 4));
    if (o) {
      if (parseInt(o[0], 8) > 0xff) return null; // out of range: not judged
      out.push(parseInt(o[0], 8));
      i += o[0].length;
      continue;
    }
    out.push(0x5c); // an unknown escape keeps its backslash; the character follows as itself
  }
  return Uint8Array.from(out);
}

/** The argument text is one bytes literal whose pickle stream is inert. */
export function inertPickleLiteral(text: string): boolean {
  const bytes = pythonBytesLiteral(text.trim());
  return bytes !== null && inertPickle(bytes);
}
