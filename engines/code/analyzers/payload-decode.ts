// Exact decodings of a constant text (issue 24, session 16, second wave): the bytes a standard
// library decoder returns for it, or that it certainly raises. `pickle.loads(base64.urlsafe_b64decode(bar))`
// with `bar` a constant then hands pickle known bytes (judged by payload-pickle.ts), or never
// reaches pickle at all: the argument raises before the call.
//
// Only inputs whose result does not depend on the Python version are judged (canonical text,
// which binascii's decoder has always read the same way; checked against CPython 3.11 on 150
// decoder/input pairs, docs/code-scanner.md); anything else is null (not judged: the caller
// fails closed).
//   base64.b64decode / standard_b64decode (one argument, no keywords; validate=False): text made
//     only of the alphabet A–Z a–z 0–9 + / decodes when its length is a multiple of 4 and raises
//     binascii.Error otherwise (bits left over: "Incorrect padding"); one or two `=` at the very
//     end are accepted when they complete the last quantum. Any other character (which the
//     non-strict decoder skips, with rules that changed in 3.11) or `=` elsewhere: not judged.
//   base64.urlsafe_b64decode: `-` and `_` read as `+` and `/` first, then as above.
//   base64.b16decode (no casefold): 0–9 A–F in pairs decode; any other character or an odd
//     length raises.
//   binascii.unhexlify / a2b_hex: 0–9 a–f A–F in pairs decode; anything else raises.
// The input must be ASCII (a str with other characters raises ValueError in base64, but is
// simply not judged here).

/** The decoder's result: its bytes, or `raises` when every version raises on this input. */
export type Decoded = Uint8Array | 'raises';

export const EXACT_DECODERS: ReadonlySet<string> = new Set([
  'base64.b64decode',
  'base64.standard_b64decode',
  'base64.urlsafe_b64decode',
  'base64.b16decode',
  'binascii.unhexlify',
  'binascii.a2b_hex',
]);

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

function base64(text: string): Decoded | null {
  const m = /^([A-Za-z0-9+/]*)(={0,2})$/.exec(text);
  if (!m) return null;
  const [, data, pad] = m;
  if (pad.length > 0) {
    // Padding must complete the last quantum exactly: `xx==` or `xxx=`.
    if ((data.length + pad.length) % 4 !== 0 || data.length % 4 !== 4 - pad.length) return null;
  } else if (data.length % 4 !== 0) return 'raises';
  const out: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const c of data) {
    acc = (acc << 6) | B64.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
    acc &= (1 << bits) - 1;
  }
  return Uint8Array.from(out);
}

function hex(text: string, digits: RegExp): Decoded {
  if (!digits.test(text) || text.length % 2 !== 0) return 'raises';
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** What `decoder(text)` returns or that it raises; null when not judged (see above). */
export function decodeExact(decoder: string, text: string): Decoded | null {
  if (!/^[\x00-\x7f]*$/.test(text)) return null;
  switch (decoder) {
    case 'base64.b64decode':
    case 'base64.standard_b64decode':
      return base64(text);
    case 'base64.urlsafe_b64decode':
      return base64(text.replace(/-/g, '+').replace(/_/g, '/'));
    case 'base64.b16decode':
      return hex(text, /^[0-9A-F]*$/);
    case 'binascii.unhexlify':
    case 'binascii.a2b_hex':
      return hex(text, /^[0-9a-fA-F]*$/);
    default:
      return null;
  }
}
