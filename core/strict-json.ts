// A JSON parser that refuses what JSON.parse silently accepts or alters.
//
// The trust artifacts (Verification Context documents, hashed payloads) are committed to
// with RFC 8785, whose domain is I-JSON. JSON.parse happily rounds 9007199254740993 to
// 9007199254740992, keeps the last of two duplicate keys, turns 1e400 into Infinity and
// lets "\ud800" through; any of these changes what gets hashed or lets two parsers read
// one text differently. So a validating scan runs first (position and JSON path on every
// error), and only a text that passes it is handed to JSON.parse, so that the value
// returned is exactly JSON.parse's (including its handling of "__proto__" keys).
//
// Rejected on top of JSON.parse's own syntax errors:
//   - a number token whose exact value is an integer with |n| > 2^53 (`unsafe_integer`);
//   - a number token that overflows to ±Infinity or a non-zero one that underflows to 0
//     (`number_out_of_range`);
//   - a string or key that decodes to a lone UTF-16 surrogate, written as an escape or
//     raw (`lone_surrogate`);
//   - an object with the same key twice, compared after unescaping, so "a" and "\u0061"
//     collide (`duplicate_key`);
//   - nesting deeper than `maxDepth` (default JSON_MAX_DEPTH = 64) (`max_depth`), a resource bound.
// Non-integer decimals such as 0.1 are accepted: every binary double rounds them, and
// RFC 8785 defines their encoding from the double.
// With `exactNumbers` (the A2A gateway, where numbers are money and facts) a number token is
// also refused when its decimal value differs from the value of its double's shortest
// round-trip text (`inexact_number`): 0.1, 1.50 and 1e2 pass (they read back as 0.1, 1.5 and
// 100), 10.0000000000000001 is refused (it would silently become 10).

export type StrictJsonErrorCode =
  | 'syntax'
  | 'unsafe_integer'
  | 'number_out_of_range'
  | 'lone_surrogate'
  | 'duplicate_key'
  | 'max_depth'
  | 'inexact_number';

export class StrictJsonError extends Error {
  constructor(
    readonly code: StrictJsonErrorCode,
    readonly detail: string,
    /** Offset (UTF-16 code units) in the input text where the offending token starts. */
    readonly position: number,
    /** JSONPath-like location of the offending value, e.g. `$.context.evidence[2]`. */
    readonly path: string,
  ) {
    super(`${detail} at position ${position} (${path})`);
    this.name = 'StrictJsonError';
  }
}

/**
 * The nesting bound of every JSON body the service accepts (api/middleware/body.ts) and the
 * default of `parseStrictJson`. Legitimate requests nest a handful of levels; the bound keeps
 * every recursive walk (digests, canonicalisation, validation) far from the stack limit.
 */
export const JSON_MAX_DEPTH = 64;

/**
 * The offset of the first `{` or `[` that opens nesting level `maxDepth + 1`, or -1 when the
 * text never nests deeper than `maxDepth`. One linear pass that skips string contents (with
 * escapes); it does not validate the text, so run it before JSON.parse, which does.
 */
export function jsonDepthExceededAt(text: string, maxDepth: number = JSON_MAX_DEPTH): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}

export interface StrictJsonOptions {
  maxDepth?: number;
  /** Refuse number tokens that JSON.parse would round (see the header). Default false. */
  exactNumbers?: boolean;
}

/** A decimal number's exact value as (sign, digits without leading/trailing zeros, exponent); zero is digits ''. */
function exactDecimal(text: string): { neg: boolean; digits: string; exp: bigint } | null {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!m) return null;
  const frac = m[3] ?? '';
  let exp = (m[4] ? BigInt(m[4]) : 0n) - BigInt(frac.length);
  let digits = (m[2] + frac).replace(/^0+/, '');
  const trimmed = digits.replace(/0+$/, '');
  exp += BigInt(digits.length - trimmed.length);
  digits = trimmed;
  return { neg: m[1] === '-' && digits !== '', digits, exp: digits === '' ? 0n : exp };
}

/** Whether JSON.parse keeps the token's value: the double's shortest text has the same decimal value. */
export function isExactJsonNumber(token: string): boolean {
  const parsed = Number(token);
  if (!Number.isFinite(parsed)) return false;
  const a = exactDecimal(token);
  const b = exactDecimal(String(parsed));
  return a !== null && b !== null && a.neg === b.neg && a.digits === b.digits && a.exp === b.exp;
}

const MAX_EXACT_INTEGER = 9007199254740992n; // 2^53
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function childPath(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

class Scanner {
  private pos = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly exactNumbers = false,
  ) {}

  run(): void {
    this.skipWhitespace();
    this.value('$', 0);
    this.skipWhitespace();
    if (this.pos < this.text.length) this.fail('syntax', 'unexpected data after the JSON value', this.pos, '$');
  }

  private fail(code: StrictJsonErrorCode, detail: string, position: number, path: string): never {
    throw new StrictJsonError(code, detail, position, path);
  }

  private skipWhitespace(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.pos++;
      else break;
    }
  }

  private value(path: string, depth: number): void {
    const t = this.text;
    if (this.pos >= t.length) this.fail('syntax', 'unexpected end of input', this.pos, path);
    const c = t[this.pos];
    if (c === '{') return this.object(path, depth + 1);
    if (c === '[') return this.array(path, depth + 1);
    if (c === '"') {
      this.string(path);
      return;
    }
    if (c === '-' || (c >= '0' && c <= '9')) return this.number(path);
    for (const literal of ['true', 'false', 'null']) {
      if (t.startsWith(literal, this.pos)) {
        this.pos += literal.length;
        return;
      }
    }
    this.fail('syntax', `unexpected character ${JSON.stringify(c)}`, this.pos, path);
  }

  private object(path: string, depth: number): void {
    if (depth > this.maxDepth) this.fail('max_depth', `nesting deeper than ${this.maxDepth}`, this.pos, path);
    this.pos++; // {
    this.skipWhitespace();
    if (this.text[this.pos] === '}') {
      this.pos++;
      return;
    }
    const seen = new Set<string>();
    for (;;) {
      this.skipWhitespace();
      if (this.text[this.pos] !== '"') this.fail('syntax', 'expected a string key', this.pos, path);
      const keyStart = this.pos;
      const key = this.string(path);
      const valuePath = childPath(path, key);
      if (seen.has(key)) this.fail('duplicate_key', `duplicate key ${JSON.stringify(key)}`, keyStart, valuePath);
      seen.add(key);
      this.skipWhitespace();
      if (this.text[this.pos] !== ':') this.fail('syntax', "expected ':' after key", this.pos, valuePath);
      this.pos++;
      this.skipWhitespace();
      this.value(valuePath, depth);
      this.skipWhitespace();
      const sep = this.text[this.pos];
      if (sep === ',') {
        this.pos++;
        continue;
      }
      if (sep === '}') {
        this.pos++;
        return;
      }
      this.fail('syntax', "expected ',' or '}' in object", this.pos, path);
    }
  }

  private array(path: string, depth: number): void {
    if (depth > this.maxDepth) this.fail('max_depth', `nesting deeper than ${this.maxDepth}`, this.pos, path);
    this.pos++; // [
    this.skipWhitespace();
    if (this.text[this.pos] === ']') {
      this.pos++;
      return;
    }
    for (let index = 0; ; index++) {
      this.skipWhitespace();
      this.value(childPath(path, index), depth);
      this.skipWhitespace();
      const sep = this.text[this.pos];
      if (sep === ',') {
        this.pos++;
        continue;
      }
      if (sep === ']') {
        this.pos++;
        return;
      }
      this.fail('syntax', "expected ',' or ']' in array", this.pos, path);
    }
  }

  /** Scans a string token and returns its decoded value (needed for key comparison). */
  private string(path: string): string {
    const t = this.text;
    const start = this.pos;
    this.pos++; // opening quote
    let out = '';
    let runStart = this.pos;
    for (;;) {
      if (this.pos >= t.length) this.fail('syntax', 'unterminated string', start, path);
      const c = t.charCodeAt(this.pos);
      if (c === 0x22) {
        out += t.slice(runStart, this.pos);
        this.pos++;
        break;
      }
      if (c < 0x20) this.fail('syntax', 'control character in string', this.pos, path);
      if (c !== 0x5c) {
        this.pos++;
        continue;
      }
      out += t.slice(runStart, this.pos);
      const esc = t[this.pos + 1];
      switch (esc) {
        case '"':
        case '\\':
        case '/':
          out += esc;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          const hex = t.slice(this.pos + 2, this.pos + 6);
          if (!/^[0-9A-Fa-f]{4}$/.test(hex)) this.fail('syntax', 'invalid \\u escape', this.pos, path);
          out += String.fromCharCode(parseInt(hex, 16));
          this.pos += 4;
          break;
        }
        default:
          this.fail('syntax', 'invalid escape sequence', this.pos, path);
      }
      this.pos += 2;
      runStart = this.pos;
    }
    // Checked on the decoded value so that escaped, raw and mixed halves are all judged alike.
    if (LONE_SURROGATE.test(out)) this.fail('lone_surrogate', 'lone UTF-16 surrogate in string', start, path);
    return out;
  }

  private number(path: string): void {
    const t = this.text;
    const start = this.pos;
    const m = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
    m.lastIndex = start;
    const match = m.exec(t);
    if (!match || match[0] === '-') this.fail('syntax', 'invalid number', start, path);
    const token = match[0];
    this.pos = start + token.length;
    const next = t[this.pos];
    if (next !== undefined && /[0-9.eE+-]/.test(next)) this.fail('syntax', 'invalid number', start, path);

    const parsed = Number(token);
    if (!Number.isFinite(parsed)) this.fail('number_out_of_range', 'number overflows to Infinity', start, path);

    // Exact decimal value: digits × 10^exp, with trailing zeros moved into the exponent.
    const intDigits = match[1];
    const fracDigits = match[2] ? match[2].slice(1) : '';
    let exp = match[3] ? BigInt(match[3].slice(1)) : 0n;
    let digits = (intDigits + fracDigits).replace(/^0+/, '');
    exp -= BigInt(fracDigits.length);
    if (digits === '') return; // an exact zero (including -0)
    const trimmed = digits.replace(/0+$/, '');
    exp += BigInt(digits.length - trimmed.length);
    digits = trimmed;
    if (parsed === 0) this.fail('number_out_of_range', 'non-zero number underflows to 0', start, path);
    if (exp < 0n) {
      // Not an integer (integers up to 2^53 are exact, larger ones are refused below).
      if (this.exactNumbers && !isExactJsonNumber(token)) {
        this.fail(
          'inexact_number',
          `number ${token.length > 40 ? `${token.slice(0, 40)}…` : token} is not exactly representable (it would be read as ${String(parsed)}); send it as a decimal string`,
          start,
          path,
        );
      }
      return;
    }
    // An integer: digits.length + exp decimal digits. 2^53 has 16 digits.
    const magnitudeDigits = BigInt(digits.length) + exp;
    if (magnitudeDigits > 16n || BigInt(digits) * 10n ** exp > MAX_EXACT_INTEGER) {
      this.fail('unsafe_integer', 'integer magnitude exceeds 2^53 (not exactly representable)', start, path);
    }
  }
}

/**
 * Parses `text` like JSON.parse, after rejecting inputs JSON.parse would silently round,
 * replace or resolve ambiguously. Throws StrictJsonError (with code, position and path).
 */
export function parseStrictJson(text: string, options: StrictJsonOptions = {}): unknown {
  if (typeof text !== 'string') throw new StrictJsonError('syntax', 'input is not a string', 0, '$');
  new Scanner(text, options.maxDepth ?? JSON_MAX_DEPTH, options.exactNumbers ?? false).run();
  return JSON.parse(text) as unknown;
}
