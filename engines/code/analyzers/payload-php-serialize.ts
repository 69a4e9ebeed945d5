// PHP unserialize: a constant serialized string that certainly builds only plain values (issue 24,
// session 16). A constant payload is still a payload: `unserialize('O:8:"Gadget":…')` builds an
// object of a class the program has and runs its __wakeup / __unserialize / __destruct.
//
// PHP's unserializer (ext/standard/var_unserializer.re) builds objects only from the `O:`, `o:`,
// `C:` (Serializable::unserialize) and `E:` (enum, autoloaded) entries; `r:` / `R:` reference
// earlier values (the shape of old memory-safety bugs). The scalar and array entries `N;`, `b:`,
// `i:`, `d:`, `s:`, `S:` and `a:` build no object and call nothing. So a text in which every letter
// followed by `:` is one of b, i, d, s, S, a builds plain values or fails (a letter inside a string
// value only makes the test stricter). The text is read only from one single-quoted literal
// without a backslash, whose source text is its value; anything else is not judged.

const ENTRY = /[A-Za-z]:/g;
const PLAIN_ENTRY = /^[bidsSa]:$/;

/** The argument text is one single-quoted PHP literal, without a backslash, holding no object or reference entry. */
export function inertPhpSerializedLiteral(text: string): boolean {
  const m = /^'([^'\\]*)'$/.exec(text.trim());
  if (!m) return false;
  for (const e of m[1].matchAll(ENTRY)) if (!PLAIN_ENTRY.test(e[0])) return false;
  return true;
}
