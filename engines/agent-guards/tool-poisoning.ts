// Poisoned tool-definition detector (MCP-style tool definitions: name, description, and a
// JSON-schema of parameters). Looks at every human-readable text of the definition (the
// description, every parameter's description/title/default/enum/examples, even property
// names) for: instructions hidden in markup or aimed at the model rather than the user,
// requests for credentials or sensitive files, invisible or bidi Unicode, and instructions
// about other tools (shadowing). Text is normalised (NFKC, invisible characters stripped,
// look-alikes folded) and decoded (base64, hex, escapes, %-encoding) before matching.
// All regexes are RE2 (linear time). Findings carry masked excerpts. Pure: no I/O.
import {
  CI,
  findAll,
  isBidiControl,
  isInvisible,
  maskSecret,
  normalizeText,
  re2,
  viewsOf,
  type Encoding,
} from './text.js';

export interface PoisonFinding {
  detector: 'tool_poisoning';
  kind: string;
  category:
    'hidden_instruction' | 'credential_access' | 'invisible_unicode' | 'tool_shadowing' | 'exfiltration_instruction';
  location: string;
  encoding: Encoding;
  excerpt: string;
}

interface Rule {
  kind: string;
  category: PoisonFinding['category'];
  re: ReturnType<typeof re2>;
  /** Drop the match when this returns false (e.g. a tool name that is the definition's own). */
  accept?: (groups: (string | null)[], ctx: { ownName: string }) => boolean;
}

const W = '[^.!?\\n]'; // a character within the same sentence
const SELF_WORDS = new Set([
  'this',
  'the',
  'a',
  'an',
  'that',
  'same',
  'current',
  'our',
  'my',
  'its',
  'each',
  'any',
  'which',
  'mcp',
  'one',
  'your',
]);

const RULES: Rule[] = [
  // Markup that hides text from a UI but not from the model.
  {
    kind: 'instruction_tag',
    category: 'hidden_instruction',
    re: re2(
      '<\\s*/?\\s*(?:important|system|instructions?|secret|hidden|admin|override|prompt|context|sys)\\b[^>]{0,40}>',
      CI,
    ),
  },
  {
    kind: 'instruction_tag',
    category: 'hidden_instruction',
    re: re2('\\[\\s*/?\\s*(?:INST|SYSTEM|IMPORTANT)\\s*\\]', CI),
  },
  { kind: 'html_comment', category: 'hidden_instruction', re: re2('<!--') },
  // Instructions to override or ignore other instructions.
  {
    kind: 'instruction_override',
    category: 'hidden_instruction',
    re: re2(
      `\\b(?:ignore|disregard|forget|override|bypass)\\b${W}{0,30}\\b(?:previous|prior|above|earlier|all|any|other|system|safety|original)\\b${W}{0,30}\\b(?:instructions?|prompts?|rules?|guidelines?|directives?|polic(?:y|ies)|guardrails?)\\b`,
      CI,
    ),
  },
  {
    kind: 'instruction_override',
    category: 'hidden_instruction',
    re: re2('\\b(?:new|updated|real|true|actual)\\s+(?:system\\s+)?(?:instructions?|directives?)\\s*:', CI),
  },
  {
    kind: 'role_injection',
    category: 'hidden_instruction',
    re: re2('\\b(?:you are now|act as|pretend to be|from now on,? you)\\b', CI),
  },
  // Concealment from the user.
  {
    kind: 'concealment',
    category: 'hidden_instruction',
    re: re2(
      `\\b(?:do not|don'?t|never|must not|should not|shouldn'?t|without)\\b${W}{0,25}\\b(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|reveal|revealing|show|showing|alert|alerting|disclose|disclosing|let)\\b${W}{0,20}\\b(?:the )?(?:user|human|operator|them|anyone)\\b`,
      CI,
    ),
  },
  {
    kind: 'concealment',
    category: 'hidden_instruction',
    re: re2(
      `\\b(?:secretly|covertly|behind the scenes|without (?:the )?user'?s? (?:knowledge|consent|noticing))\\b`,
      CI,
    ),
  },
  {
    kind: 'concealment',
    category: 'hidden_instruction',
    re: re2(
      '\\b(?:silently|quietly|discreetly)\\s+(?:also\\s+)?(?:send|sends|forward|forwards|upload|uploads|read|reads|copy|copies|include|includes|add|adds|post|posts|share|shares|exfiltrate|collect|collects|record|records|transmit|transmits|run|runs|execute|executes|delete|deletes)\\b',
      CI,
    ),
  },
  // Instructions addressed to the model, and download-and-execute commands ("line jumping").
  {
    kind: 'model_directive',
    category: 'hidden_instruction',
    re: re2(
      `\\b(?:the |an? )?(?:assistant|model|ai|llm|agent)\\s+(?:must|should|needs to|has to|is required to|shall)\\s+(?:first\\s+|also\\s+|always\\s+)?(?:run|execute|call|invoke|read|send|open|fetch|download|include|prepend|append)\\b`,
      CI,
    ),
  },
  {
    kind: 'download_and_execute',
    category: 'hidden_instruction',
    re: re2(
      '\\b(?:curl|wget|iwr|Invoke-WebRequest)\\b[^|\\n]{0,200}\\|\\s*(?:sudo\\s+)?(?:ba|z|da)?sh\\b|\\b(?:bash|sh)\\s+-c\\s+["\'`]?\\$\\((?:curl|wget)\\b',
      CI,
    ),
  },
  {
    kind: 'concealment',
    category: 'hidden_instruction',
    re: re2(
      `\\b(?:user|human)\\b${W}{0,20}\\b(?:must not|should not|shouldn'?t|cannot|can'?t|won'?t)\\b${W}{0,10}\\b(?:know|see|notice|find out|be told)\\b`,
      CI,
    ),
  },
  // Mandatory preconditions aimed at the model.
  {
    kind: 'mandatory_precondition',
    category: 'hidden_instruction',
    re: re2(
      `\\b(?:before|prior to)\\b${W}{0,20}\\b(?:using|calling|invoking|running|executing)\\b${W}{0,30}\\b(?:you must|you need to|you have to|always|first|make sure to|be sure to)\\b${W}{0,40}\\b(?:read|open|cat|load|fetch|send|call|pass|include|provide|attach|upload|retrieve|get|access)\\b`,
      CI,
    ),
  },
  {
    kind: 'mandatory_precondition',
    category: 'hidden_instruction',
    re: re2(
      `\\b(?:otherwise|or else)\\b${W}{0,40}\\b(?:will|would)\\s+(?:not work|fail|crash|break|be (?:rejected|blocked))`,
      CI,
    ),
  },
  // Sensitive paths and credential stores.
  {
    kind: 'sensitive_path',
    category: 'credential_access',
    re: re2(
      '(?:~|\\$HOME|%USERPROFILE%|/home/[A-Za-z0-9_.-]{1,32}|/root|/Users/[A-Za-z0-9_.-]{1,32})?/?\\.(?:ssh|aws|gnupg|kube|docker|azure|config/gcloud|netrc|npmrc|pgpass|git-credentials|bash_history|zsh_history|cursor|vscode)(?:/|\\b)|\\bid_(?:rsa|dsa|ecdsa|ed25519)\\b|/etc/(?:passwd|shadow|sudoers)\\b|\\bmcp\\.json\\b|\\bcredentials\\.json\\b|\\bwallet\\.dat\\b|(?:^|[\\s"\'`(/])\\.env\\b|\\bauthorized_keys\\b|\\bknown_hosts\\b|\\bkeychain\\b|\\bcookies\\.sqlite\\b|\\bLogin Data\\b',
      CI,
    ),
  },
  {
    kind: 'credential_request',
    category: 'credential_access',
    re: re2(
      `\\b(?:read|send|include|pass|provide|attach|upload|forward|append|copy|extract|cat|collect|gather|dump|exfiltrate|leak|share|embed|insert|put|add)\\b${W}{0,60}\\b(?:api[ _-]?keys?|access[ _-]?tokens?|auth(?:entication)?[ _-]?tokens?|bearer tokens?|passwords?|passphrases?|credentials?|secrets?|private[ _-]?keys?|ssh[ _-]?keys?|session (?:cookies?|tokens?)|cookies|seed phrases?|mnemonic|recovery phrases?|environment variables|env vars|conversation history|chat history|system prompt)\\b`,
      CI,
    ),
  },
  {
    kind: 'exfiltration_instruction',
    category: 'exfiltration_instruction',
    re: re2(
      `\\b(?:send|post|forward|upload|transmit|exfiltrate|leak|report|copy|bcc|cc)\\b${W}{0,60}\\b(?:to|into)\\b${W}{0,40}(?:https?://|\\bwebhook\\b|\\battacker\\b|\\b[a-z0-9._%+-]+@[a-z0-9.-]+\\.[a-z]{2,}\\b)`,
      CI,
    ),
  },
  {
    kind: 'exfiltration_instruction',
    category: 'exfiltration_instruction',
    re: re2(
      `\\b(?:pass|put|include|embed|store)\\b${W}{0,40}\\b(?:its|their|the|file'?s?)?\\s*(?:contents?|output|result)\\b${W}{0,30}\\b(?:as|in|into)\\b${W}{0,20}\\b(?:parameter|argument|field|sidenote|note|metadata|comment)\\b`,
      CI,
    ),
  },
  // Shadowing: instructions about how *other* tools behave.
  {
    kind: 'tool_shadowing',
    category: 'tool_shadowing',
    re: re2(
      `\\b(?:when|whenever|if|before|after|each time|every time)\\b${W}{0,60}\\b(?:use|uses|using|call|calls|calling|invoke|invokes|invoking|run|runs|running)\\b${W}{0,30}?\\b([A-Za-z0-9_.-]+)[\`'"]?\\s+tool\\b`,
      CI,
    ),
    accept: (g, ctx) => isOtherTool(g[0], ctx.ownName),
  },
  {
    kind: 'tool_shadowing',
    category: 'tool_shadowing',
    re: re2(
      `\\b(?:when|whenever|if|before|after|each time|every time)\\b${W}{0,30}?\\b([A-Za-z0-9_.-]+)[\`'"]?\\s+tool\\b${W}{0,20}\\b(?:is|gets|are|was)\\s+(?:used|called|invoked|run|executed)\\b`,
      CI,
    ),
    accept: (g, ctx) => isOtherTool(g[0], ctx.ownName),
  },
  {
    kind: 'tool_shadowing',
    category: 'tool_shadowing',
    re: re2(
      `\\b(?:the|a|any)?\\s*[\`'"]?([A-Za-z0-9_.-]+)[\`'"]?\\s+tool\\b${W}{0,30}\\b(?:must|should|has to|needs to|will|shall)\\s+(?:always|never|also|only|now)\\b`,
      CI,
    ),
    accept: (g, ctx) => isOtherTool(g[0], ctx.ownName),
  },
  {
    kind: 'tool_shadowing',
    category: 'tool_shadowing',
    re: re2(
      `\\b(?:instead of|rather than|in place of|overrides?|replaces?|supersedes?|shadows?)\\b${W}{0,30}\\b(?:the\\s+)?[\`'"]?([A-Za-z0-9_.-]+)[\`'"]?\\s+(?:tool|function|command)\\b`,
      CI,
    ),
    accept: (g, ctx) => isOtherTool(g[0], ctx.ownName),
  },
  {
    kind: 'tool_shadowing',
    category: 'tool_shadowing',
    re: re2(
      `\\b(?:all|any|every|other)\\s+(?:other\\s+)?tools?\\b${W}{0,40}\\b(?:must|should|have to|need to|are required to)\\b`,
      CI,
    ),
  },
  {
    kind: 'tool_shadowing',
    category: 'tool_shadowing',
    re: re2(
      `\\b(?:change|changes|modify|modifies|redirect|redirects|rewrite|rewrites)\\b${W}{0,30}\\b(?:recipient|destination|address|url|endpoint|account|to field|bcc)\\b${W}{0,40}\\b(?:of|for|in)\\b${W}{0,20}\\b(?:other|all|every|any)\\b`,
      CI,
    ),
  },
];

const SENSITIVE_NAME_RE = re2(
  '\\b(?:ssh|id ?(?:rsa|dsa|ecdsa|ed25519)|private ?keys?|seed ?phrase|mnemonic|aws ?credentials|passwd|shadow file|netrc|dotenv|env ?file|cookies|session ?tokens?|mcp ?json|kube ?config)\\b',
  CI,
);

const LEET: Record<string, string> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '!': 'i',
};
/** Replaces digits and symbols used as letters inside words (a word must also contain a letter). */
export function deLeet(text: string): string {
  return text.replace(/[A-Za-z0-9@$!]+/g, (w) =>
    /[A-Za-z]/.test(w) && /[0-9@$!]/.test(w) ? w.replace(/[013457@$!]/g, (c) => LEET[c] ?? c) : w,
  );
}

function isOtherTool(name: string | null, ownName: string): boolean {
  if (!name) return false;
  const n = name.toLowerCase();
  if (SELF_WORDS.has(n)) return false;
  const own = ownName.toLowerCase();
  return n !== own && !own.endsWith(n) && !n.endsWith(own);
}

/** Most texts (strings and keys) a definition may hold, and the deepest nesting, before it is refused as unscannable. */
export const MAX_DEFINITION_TEXTS = 5000;
export const MAX_DEFINITION_DEPTH = 64;

/** Keys whose children are named by the definition's author (property names): also checked for key material by name. */
const NAMING_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'dependentRequired',
]);

/**
 * Every text of a tool definition with its location: every string value and every object key,
 * at any depth, whatever the keyword ($defs, default, examples, tuple items, prefixItems, not,
 * if/then/else, patternProperties, x-* extensions, pattern, annotations, _meta, …): poisoning
 * can hide in any of them, so none is skipped. Keys are `<path>.<key>#key`; the names of
 * properties (and of other author-named schemas) are also `#name` for the key-material check.
 * Iterative (a deep definition cannot exhaust the stack); `overflow` when it holds more than
 * MAX_DEFINITION_TEXTS texts or nests deeper than MAX_DEFINITION_DEPTH.
 */
export function toolTexts(
  def: Record<string, unknown>,
): Array<{ location: string; text: string }> & { overflow?: boolean } {
  const out: Array<{ location: string; text: string }> & { overflow?: boolean } = [];
  const stack: Array<{ v: unknown; path: string; depth: number; naming: boolean }> = [
    { v: def, path: '', depth: 0, naming: false },
  ];
  const join = (path: string, k: string) => (path ? `${path}.${k}` : k);
  while (stack.length) {
    const { v, path, depth, naming } = stack.pop()!;
    if (out.length > MAX_DEFINITION_TEXTS || depth > MAX_DEFINITION_DEPTH) {
      out.overflow = true;
      break;
    }
    if (typeof v === 'string') {
      if (v.length > 0) out.push({ location: path, text: v });
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ v: v[i], path: `${path}[${i}]`, depth: depth + 1, naming: false });
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        stack.push({ v: x, path: join(path, k), depth: depth + 1, naming: NAMING_KEYWORDS.has(k) });
        if (naming) out.push({ location: `${join(path, k)}#name`, text: k.replace(/[_-]+/g, ' ') });
        out.push({ location: `${join(path, k)}#key`, text: k });
      }
    }
  }
  return out;
}

function excerptAround(text: string, start: number, end: number): string {
  const s = Math.max(0, start - 20);
  const e = Math.min(text.length, end + 20);
  let ex = text.slice(s, e).replace(/\s+/g, ' ').trim();
  if (ex.length > 120) ex = `${ex.slice(0, 117)}…`;
  // Long token-like runs (keys, encoded blobs) are masked: an excerpt never carries a secret.
  return ex.replace(/[A-Za-z0-9_+/=-]{20,}/g, (tok) => maskSecret(tok));
}

/** Scans one tool definition (MCP shape: name, description, inputSchema / parameters). */
export function scanToolDefinition(def: Record<string, unknown>): PoisonFinding[] {
  const ownName = typeof def.name === 'string' ? def.name : '';
  const findings: PoisonFinding[] = [];
  const seen = new Set<string>();
  const add = (f: PoisonFinding) => {
    const key = `${f.kind}|${f.location}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push(f);
  };
  const texts = toolTexts(def);
  if (texts.overflow) {
    add({
      detector: 'tool_poisoning',
      kind: 'unscannable_definition',
      category: 'hidden_instruction',
      location: 'tool_schema',
      encoding: 'plain',
      excerpt: `more than ${MAX_DEFINITION_TEXTS} texts or deeper than ${MAX_DEFINITION_DEPTH} levels: cannot be scanned whole`,
    });
    return findings;
  }
  // The same text is scanned once (its first location reports it).
  const scanned = new Set<string>();
  for (const { location, text } of texts) {
    if (location.endsWith('#name')) {
      // Property names: a parameter that asks for a credential store or key material by name.
      const n = normalizeText(text).text;
      if (findAll(SENSITIVE_NAME_RE, n, 1).length)
        add({
          detector: 'tool_poisoning',
          kind: 'sensitive_parameter_name',
          category: 'credential_access',
          location: location.replace('#name', ''),
          encoding: 'plain',
          excerpt: n.slice(0, 60),
        });
      continue;
    }
    if (scanned.has(text)) continue;
    scanned.add(text);
    let invisible = 0;
    let bidi = 0;
    for (const ch of text) {
      const cp = ch.codePointAt(0) as number;
      if (isInvisible(cp)) invisible++;
      if (isBidiControl(cp)) bidi++;
    }
    if (bidi > 0)
      add({
        detector: 'tool_poisoning',
        kind: 'bidi_control',
        category: 'invisible_unicode',
        location,
        encoding: 'unicode',
        excerpt: `${bidi} bidirectional control character(s)`,
      });
    let control = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || c === 0x7f || (c >= 0x80 && c < 0xa0)) control++;
    }
    // ANSI escape sequences and other control characters hide or rewrite text in terminals.
    if (control > 0)
      add({
        detector: 'tool_poisoning',
        kind: 'control_characters',
        category: 'invisible_unicode',
        location,
        encoding: 'unicode',
        excerpt: `${control} control character(s) (e.g. ANSI escapes)`,
      });
    if (invisible - bidi > 0)
      add({
        detector: 'tool_poisoning',
        kind: 'invisible_characters',
        category: 'invisible_unicode',
        location,
        encoding: 'unicode',
        excerpt: `${invisible - bidi} invisible character(s)`,
      });
    const norm = normalizeText(text);
    const views = viewsOf(norm.text);
    // Digit-for-letter spellings ("1gn0re a11 pr3vious 1nstruct10ns") as one more view.
    const leet = deLeet(norm.text);
    if (leet !== norm.text) views.push({ text: leet, encoding: 'unicode' });
    for (const view of views) {
      const encoding: Encoding =
        view.encoding === 'plain'
          ? norm.foldedLookalikes || norm.removedInvisible
            ? 'unicode'
            : 'plain'
          : view.encoding;
      // Collapse whitespace runs so that line breaks cannot split a phrase.
      const t = view.text.replace(/\s+/g, ' ');
      for (const rule of RULES) {
        for (const m of findAll(rule.re, t, 5)) {
          if (rule.accept && !rule.accept(m.groups, { ownName })) continue;
          add({
            detector: 'tool_poisoning',
            kind: rule.kind,
            category: rule.category,
            location,
            encoding,
            excerpt: excerptAround(t, m.start, m.end),
          });
        }
      }
    }
  }
  return findings;
}
