// Prompt-injection screen (docs/natural-language.md, "Injection screen"). Pure, linear time:
// character checks are one pass; phrase patterns are RE2 regexes (re2js, guaranteed linear)
// over a normalised copy of the text (lower case, every run of non-letters one space), so a
// pattern matches whole words only. There is no bare-keyword list: each pattern is an
// instruction *phrase* ("ignore all previous instructions", "you are now", "developer mode"),
// so ordinary math words ("square root", "model", "system of equations", "admin fee", "root
// mean square") pass. Encoded payloads (base64, hex) are decoded once and screened too.
import { RE2JS } from 're2js';

export type ScreenReason =
  | 'instruction_override'
  | 'role_play'
  | 'developer_mode'
  | 'prompt_exfiltration'
  | 'verdict_manipulation'
  | 'invisible_characters'
  | 'bidi_control'
  | 'mixed_script'
  | 'encoded_instructions';

export type ScreenResult = { blocked: false } | { blocked: true; reason: ScreenReason; detail: string };

export const SCREEN_LIMITS = {
  /** Longest text screened; longer input is refused before any pattern runs. */
  maxChars: 100_000,
  /** Encoded runs decoded and screened per text. */
  maxEncodedRuns: 16,
} as const;

const OVERRIDE_VERBS = 'ignore|disregard|forget|override|bypass|skip|drop|abandon|neglect';
const FILLER =
  'all|any|every|each|the|of|your|my|our|these|those|its|previous|prior|above|earlier|preceding|original|initial|system|existing|current|old|given|safety|and';
const TARGETS =
  'instruction|instructions|prompt|prompts|rule|rules|direction|directions|guideline|guidelines|guardrail|guardrails|constraint|constraints|context|policy|policies|programming|training|restriction|restrictions';

/** Phrase patterns over the normalised text (single spaces, lower case, letters and digits only). */
const PHRASES: Array<{ reason: ScreenReason; label: string; pattern: string }> = [
  {
    reason: 'instruction_override',
    label: 'instruction override',
    pattern: `\\b(?:${OVERRIDE_VERBS})(?: (?:${FILLER}))* (?:${TARGETS})\\b`,
  },
  {
    reason: 'instruction_override',
    label: 'instruction override',
    pattern: `\\b(?:new|updated|real|actual|hidden|secret) (?:instruction|instructions|system prompt|rules)\\b`,
  },
  {
    reason: 'instruction_override',
    label: 'instruction override',
    pattern: `\\bdo not follow (?:the |your |any )?(?:previous |prior |above )?(?:instruction|instructions|rules)\\b`,
  },
  {
    reason: 'instruction_override',
    label: 'instruction override',
    pattern: `\\binstead (?:of translating|do the following|follow these)\\b`,
  },
  { reason: 'role_play', label: 'role-play', pattern: `\\byou are (?:now|no longer)\\b` },
  { reason: 'role_play', label: 'role-play', pattern: `\\bfrom now on (?:you|your|act|respond|answer)\\b` },
  { reason: 'role_play', label: 'role-play', pattern: `\\bpretend (?:to be|you are|that you|you re)\\b` },
  { reason: 'role_play', label: 'role-play', pattern: `\\bact as (?:a|an|if|my|the|though)\\b` },
  { reason: 'role_play', label: 'role-play', pattern: `\\brole ?play(?:ing)?\\b` },
  {
    reason: 'role_play',
    label: 'role-play',
    pattern: `\\b(?:simulate|impersonate|emulate) (?:a|an|the) (?:ai|assistant|chatbot|model|system|unrestricted|unfiltered|jailbroken)\\b`,
  },
  {
    reason: 'developer_mode',
    label: 'developer mode',
    pattern: `\\b(?:developer|dev|debug|god|sudo|admin|maintenance|unrestricted|jailbreak|jailbroken|dan) mode\\b`,
  },
  { reason: 'developer_mode', label: 'developer mode', pattern: `\\b(?:jailbreak|jailbroken|jailbreaking)\\b` },
  { reason: 'developer_mode', label: 'developer mode', pattern: `\\bdo anything now\\b` },
  {
    reason: 'developer_mode',
    label: 'developer mode',
    pattern: `\\b(?:enable|activate|enter|switch to) (?:developer|dev|debug|god|sudo|admin|unrestricted) (?:mode|access)\\b`,
  },
  {
    reason: 'prompt_exfiltration',
    label: 'prompt exfiltration',
    pattern: `\\b(?:reveal|print|show|repeat|output|leak|display|dump|tell me) (?:me )?(?:your|the) (?:system |initial |hidden |original )?(?:prompt|instructions|instruction)\\b`,
  },
  { reason: 'prompt_exfiltration', label: 'prompt exfiltration', pattern: `\\bsystem prompt\\b` },
  {
    reason: 'verdict_manipulation',
    label: 'verdict manipulation',
    pattern: `\\b(?:report|mark|label|return|classify|treat|flag|output) (?:this|it|the (?:result|answer|claim|output)|everything) as (?:verified|correct|proven|true|safe|valid)\\b`,
  },
  {
    reason: 'verdict_manipulation',
    label: 'verdict manipulation',
    pattern: `\\b(?:always|just) (?:say|answer|respond|return|output) (?:verified|correct|true|yes)\\b`,
  },
];

const COMPILED = PHRASES.map((p) => ({ ...p, re: RE2JS.compile(p.pattern) }));

/** Normalises for phrase matching: lower case; every run of anything but a-z0-9 becomes one space. */
export function normalizeForScreen(text: string): string {
  let out = '';
  let space = true;
  for (const ch of text.toLowerCase()) {
    const c = ch.charCodeAt(0);
    const word = (c >= 97 && c <= 122) || (c >= 48 && c <= 57);
    if (word) {
      out += ch;
      space = false;
    } else if (!space) {
      out += ' ';
      space = true;
    }
  }
  return out.trim();
}

function isZeroWidth(cp: number): boolean {
  return (
    (cp >= 0x200b && cp <= 0x200d) || // zero-width space, non-joiner, joiner
    (cp >= 0x2060 && cp <= 0x2064) || // word joiner, invisible operators
    cp === 0xfeff || // zero-width no-break space
    cp === 0x00ad || // soft hyphen
    cp === 0x180e || // Mongolian vowel separator
    cp === 0x034f || // combining grapheme joiner
    (cp >= 0xe0000 && cp <= 0xe007f) // tag characters (invisible ASCII smuggling)
  );
}

function isBidiControl(cp: number): boolean {
  return (
    cp === 0x200e || cp === 0x200f || cp === 0x061c || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)
  );
}

type Script = 'latin' | 'cyrillic' | 'greek-confusable' | 'fullwidth' | 'other';

/** Greek letters that look like Latin ones (math letters such as π, θ, α, σ, μ, λ are not among them). */
const GREEK_CONFUSABLE = new Set([...'ΑΒΕΖΗΙΚΜΝΟΡΤΥΧοικνυ']);

function scriptOf(ch: string): Script | null {
  const cp = ch.codePointAt(0) as number;
  if ((cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || (cp >= 0xc0 && cp <= 0x24f)) return 'latin';
  if (cp >= 0x0400 && cp <= 0x052f) return 'cyrillic';
  if (cp >= 0x0370 && cp <= 0x03ff) return GREEK_CONFUSABLE.has(ch) ? 'greek-confusable' : 'other';
  if ((cp >= 0xff21 && cp <= 0xff3a) || (cp >= 0xff41 && cp <= 0xff5a)) return 'fullwidth';
  if (/\p{L}/u.test(ch)) return 'other';
  return null; // not a letter: ends the word
}

/** One pass: invisible and bidi controls, and words mixing Latin with look-alike letters. */
function screenCharacters(text: string): ScreenResult {
  let latin = false;
  let foreign: Script | null = null;
  let word = '';
  const endWord = (): ScreenResult | null => {
    if (latin && foreign) {
      return {
        blocked: true,
        reason: 'mixed_script',
        detail: `The word "${word.slice(0, 40)}" mixes Latin letters with look-alike ${foreign === 'cyrillic' ? 'Cyrillic' : foreign === 'fullwidth' ? 'full-width' : 'Greek'} letters.`,
      };
    }
    latin = false;
    foreign = null;
    word = '';
    return null;
  };
  for (const ch of text) {
    const cp = ch.codePointAt(0) as number;
    if (isBidiControl(cp))
      return {
        blocked: true,
        reason: 'bidi_control',
        detail: `The text contains a bidirectional control character (U+${cp.toString(16).toUpperCase().padStart(4, '0')}).`,
      };
    if (isZeroWidth(cp))
      return {
        blocked: true,
        reason: 'invisible_characters',
        detail: `The text contains an invisible character (U+${cp.toString(16).toUpperCase().padStart(4, '0')}).`,
      };
    const s = scriptOf(ch);
    if (s === null) {
      const r = endWord();
      if (r) return r;
      continue;
    }
    word += ch;
    if (s === 'latin') latin = true;
    else if (s === 'cyrillic' || s === 'greek-confusable' || s === 'fullwidth') foreign = s;
  }
  return endWord() ?? { blocked: false };
}

function screenPhrases(normalized: string, prefix = ''): ScreenResult {
  for (const p of COMPILED) {
    const m = p.re.matcher(normalized);
    if (m.find()) {
      const found = (m.group(0) ?? '').slice(0, 80);
      return { blocked: true, reason: p.reason, detail: `${prefix}Blocked as ${p.label}: "${found}".` };
    }
  }
  return { blocked: false };
}

/** Printable-ASCII share of a decoded buffer, and whether it reads as words. */
function looksLikeText(buf: Buffer): boolean {
  if (buf.length < 8) return false;
  let printable = 0;
  let letters = 0;
  let spaces = 0;
  for (const b of buf) {
    if (b === 0x20) spaces++;
    if ((b >= 0x20 && b < 0x7f) || b === 0x0a || b === 0x0d || b === 0x09) printable++;
    if ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)) letters++;
  }
  return printable / buf.length > 0.95 && letters / buf.length > 0.5 && spaces >= 1;
}

const BASE64_RUN = RE2JS.compile('[A-Za-z0-9+/_-]{16,}={0,2}');
const HEX_RUN = RE2JS.compile('(?:0x)?[0-9A-Fa-f]{16,}');

/**
 * Base64 and hex runs that decode to readable text are encoded instructions: an arithmetic
 * question has no reason to carry encoded English. Each decoded text is also phrase-screened,
 * so the reason names what it hid when it is one of the known phrases.
 */
function screenEncoded(text: string): ScreenResult {
  let runs = 0;
  for (const [kind, re] of [
    ['hex', HEX_RUN],
    ['base64', BASE64_RUN],
  ] as const) {
    const m = re.matcher(text);
    let from = 0;
    while (m.find(from)) {
      if (++runs > SCREEN_LIMITS.maxEncodedRuns) break;
      const run = m.group(0) ?? '';
      from = m.end();
      let decoded: Buffer;
      if (kind === 'hex') {
        const hex = run.replace(/^0x/, '');
        if (hex.length % 2 !== 0) continue;
        decoded = Buffer.from(hex, 'hex');
      } else {
        if (/^[0-9]+$/.test(run)) continue; // a long number, not base64
        decoded = Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      }
      if (!looksLikeText(decoded)) continue;
      const inner = screenPhrases(normalizeForScreen(decoded.toString('latin1')), `Decoded ${kind}: `);
      if (inner.blocked) return { blocked: true, reason: 'encoded_instructions', detail: inner.detail };
      return {
        blocked: true,
        reason: 'encoded_instructions',
        detail: `The text carries ${kind}-encoded text ("${run.slice(0, 24)}…"); encoded instructions are refused.`,
      };
    }
  }
  return { blocked: false };
}

/** Screens a query (or a model's answer) for prompt injection. */
export function screenText(text: string): ScreenResult {
  if (text.length > SCREEN_LIMITS.maxChars) {
    return {
      blocked: true,
      reason: 'instruction_override',
      detail: `The text is longer than ${SCREEN_LIMITS.maxChars} characters and was not screened.`,
    };
  }
  const chars = screenCharacters(text);
  if (chars.blocked) return chars;
  const phrases = screenPhrases(normalizeForScreen(text));
  if (phrases.blocked) return phrases;
  return screenEncoded(text);
}
