// jsonpickle: a constant text that certainly decodes to plain data (issue 24, session 16;
// semgrep-rules' `jsonpickle.decode('foobar')`).
//
// jsonpickle.decode parses the text with its backend (json, simplejson or ujson by default; YAML
// when a program loads that backend) and then rebuilds Python objects only from tagged entries:
// every tag is a `py/…` key (`py/object`, `py/reduce`, `py/function`, `py/repr`, …), and with
// `keys=True` a `json://…` key is decoded again. Text in which none of these can appear decodes
// to dicts, lists, strings, numbers, booleans and None, or raises; either way it runs nothing.
//
// The test is on the string the call receives (literal escapes already applied), and fails
// closed on anything that could spell a tag after parsing: a backslash (a JSON `\u0070y/`), a
// non-ASCII or control character (bytes given to json.loads may be UTF-16 or UTF-32, where the
// tag hides between NULs), a `!` (a YAML tag such as `!!python/object`), `py/` or `json://`.
// A snippet that configures jsonpickle's backends or handlers is not judged at all, nor a call
// given its own `backend` or `context` (an Unpickler that may be a subclass), by keyword or position.

const PLAIN = /^[\x20-\x7e\t\n\r]*$/;
const TAG_LIKE = /\\|!|py\/|json:\/\//;
/** Calls that change how jsonpickle decodes (another backend, its options, custom handlers). */
export const JSONPICKLE_CONFIGURED =
  /\b(?:load_backend|set_preferred_backend|set_decoder_options|set_encoder_options|enable_fallthrough|remove_backend|register_handlers|register|handlers)\b/;

/** `text` certainly decodes to plain data under jsonpickle.decode (see the header). */
export function inertJsonpickleText(text: string): boolean {
  return PLAIN.test(text) && !TAG_LIKE.test(text);
}
