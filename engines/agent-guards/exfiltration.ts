// Exfiltration detector: secrets (checksum-valid svc keys, cloud keys, private keys, JWTs,
// forge tokens), personal data (e-mail, payment cards with Luhn, IBAN with mod-97, national
// ids with their check digits) and URLs/hosts outside the agent's allowed domains, in the
// plain text and hidden in base64, hex, escapes, %-encoding, split apart or spelled with
// look-alike Unicode letters. Normalise first, then detect. Every regex is RE2 (linear time).
// Findings carry a masked excerpt, never the raw value. Pure: no I/O.
import { isValidV2Body, AGENT_PREFIX, LIVE_PREFIX, TEST_PREFIX } from '../../core/api-keys.js';
import {
  alnumView,
  compactView,
  denseView,
  findAll,
  maskDigits,
  maskEmail,
  maskKeyShaped,
  maskSecret,
  maskUrl,
  normalizeText,
  re2,
  smallCapsUpper,
  viewsOf,
  type Encoding,
} from './text.js';

export type ExfilCategory = 'secret' | 'personal_data' | 'network';

export interface ExfilFinding {
  detector: 'exfiltration';
  kind: string;
  category: ExfilCategory;
  location: string;
  encoding: Encoding;
  excerpt: string;
}

export interface ExfilOptions {
  /** Domains the agent may reach; subdomains included. Empty: every URL or host is outside. */
  allowedDomains?: readonly string[];
}

interface Candidate {
  kind: string;
  category: ExfilCategory;
  excerpt: string;
}

// ---------------------------------------------------------------------------------------
// Secrets
// ---------------------------------------------------------------------------------------

interface SecretRule {
  kind: string;
  re: ReturnType<typeof re2>;
  /** Which group holds the secret (0 = whole match). */
  group?: number;
  prefix?: string;
  validate?: (value: string) => boolean;
  /** Also searched in the compacted (separators removed) view: only prefix-anchored, high-specificity rules. */
  compact?: boolean;
  /** Also searched in the dense view (every separator but `_` removed), with `denseRe` when the key's own syntax has separators. */
  dense?: boolean;
  denseRe?: ReturnType<typeof re2>;
  /** Literal(s) every match contains (lower case): the regex runs only when one occurs (cheap pre-filter). */
  hints?: string[];
}

const NOT_BODY = '(?:^|[^A-Za-z0-9_])';
const SECRET_RULES: SecretRule[] = [
  {
    kind: 'svc_live_api_key',
    re: re2('(?i:svc_live_)([A-Za-z0-9]{36})'),
    prefix: LIVE_PREFIX,
    validate: (v) => isValidV2Body(v.slice(LIVE_PREFIX.length, LIVE_PREFIX.length + 36)),
    compact: true,
    hints: ['svc_live_'],
  },
  {
    kind: 'svc_live_api_key_v1',
    re: re2(`${NOT_BODY}(svc_live_[A-Za-z0-9_-]{43})(?:[^A-Za-z0-9_-]|$)`),
    group: 1,
    prefix: LIVE_PREFIX,
    hints: ['svc_live_'],
  },
  {
    kind: 'svc_test_api_key',
    re: re2('(?i:svc_test_)([A-Za-z0-9]{36})'),
    prefix: TEST_PREFIX,
    validate: (v) => isValidV2Body(v.slice(TEST_PREFIX.length, TEST_PREFIX.length + 36)),
    compact: true,
    hints: ['svc_test_'],
  },
  {
    kind: 'svc_agent_token',
    re: re2('(?i:svc_agent_)([A-Za-z0-9]{36})'),
    prefix: AGENT_PREFIX,
    validate: (v) => isValidV2Body(v.slice(AGENT_PREFIX.length, AGENT_PREFIX.length + 36)),
    compact: true,
    hints: ['svc_agent_'],
  },
  {
    kind: 'aws_access_key_id',
    re: re2('(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA|AIPA|ANPA|ANVA|APKA)[A-Z0-9]{16}'),
    prefix: '',
    compact: true,
    validate: (v) => /[0-9]/.test(v.slice(4)) || /^[A-Z]+$/.test(v.slice(4)),
    hints: ['akia', 'asia', 'abia', 'acca', 'aida', 'aroa', 'aipa', 'anpa', 'anva', 'apka'],
  },
  {
    kind: 'aws_secret_access_key',
    re: re2('(?i)aws.{0,20}(?:secret|private).{0,20}[=:"\' ]+([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+]|$)'),
    group: 1,
    hints: ['aws'],
  },
  {
    kind: 'gcp_api_key',
    re: re2('AIza[0-9A-Za-z_-]{35}'),
    prefix: 'AIza',
    compact: true,
    dense: true,
    hints: ['aiza'],
  },
  {
    kind: 'gcp_service_account_key',
    re: re2('"type"\\s*:\\s*"service_account"'),
    prefix: '',
    hints: ['service_account'],
  },
  { kind: 'azure_storage_key', re: re2('(?i)AccountKey=([A-Za-z0-9+/]{86}==)'), group: 1, hints: ['accountkey='] },
  {
    kind: 'private_key',
    hints: ['private key'],
    re: re2('-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----'),
    prefix: '-----BEGIN',
  },
  {
    kind: 'private_key',
    hints: ['privatekey'],
    re: re2('(?i)BEGIN(?:RSA|EC|DSA|OPENSSH|ENCRYPTED|PGP)?PRIVATEKEY'),
    prefix: '',
    compact: true,
    dense: true,
  },
  {
    kind: 'jwt',
    re: re2('eyJ[A-Za-z0-9_-]{8,}\\.eyJ[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{16,}'),
    prefix: 'eyJ',
    validate: isJwt,
    compact: true,
    hints: ['eyj'],
  },
  {
    kind: 'github_token',
    re: re2('(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36}'),
    prefix: '',
    compact: true,
    dense: true,
    hints: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_'],
  },
  {
    kind: 'github_fine_grained_token',
    re: re2('github_pat_[A-Za-z0-9_]{82}'),
    prefix: 'github_pat_',
    compact: true,
    dense: true,
    hints: ['github_pat_'],
  },
  {
    kind: 'gitlab_token',
    re: re2('(?:glpat|gldt|glrt|glptt|glsoat)-[A-Za-z0-9_-]{20,}'),
    prefix: '',
    compact: true,
    dense: true,
    denseRe: re2('(?:glpat|gldt|glrt|glptt|glsoat)[A-Za-z0-9_]{20,}'),
    hints: ['glpat-', 'gldt-', 'glrt-', 'glptt-', 'glsoat-'],
  },
  {
    kind: 'bitbucket_app_password',
    re: re2('ATBB[A-Za-z0-9_=.-]{32,}'),
    prefix: 'ATBB',
    compact: true,
    hints: ['atbb'],
  },
  { kind: 'slack_token', re: re2('xox[abposr]-[A-Za-z0-9-]{10,}'), prefix: 'xox', compact: true, hints: ['xox'] },
  {
    kind: 'stripe_secret_key',
    re: re2('(?:sk|rk)_live_[A-Za-z0-9]{20,}'),
    prefix: '',
    compact: true,
    dense: true,
    hints: ['_live_'],
  },
  {
    kind: 'openai_api_key',
    re: re2('sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,}'),
    prefix: 'sk-',
    compact: true,
    dense: true,
    denseRe: re2('sk[A-Za-z0-9_]{20,}T3BlbkFJ[A-Za-z0-9_]{20,}'),
    hints: ['t3blbkfj'],
  },
  {
    kind: 'anthropic_api_key',
    re: re2('sk-ant-(?:api|admin)[0-9]{2}-[A-Za-z0-9_-]{80,}'),
    prefix: 'sk-ant-',
    compact: true,
    dense: true,
    denseRe: re2('skant(?:api|admin)[0-9]{2}[A-Za-z0-9_]{80,}'),
    hints: ['sk-ant-'],
  },
  { kind: 'npm_token', re: re2('npm_[A-Za-z0-9]{36}'), prefix: 'npm_', compact: true, dense: true, hints: ['npm_'] },
  { kind: 'huggingface_token', re: re2('hf_[A-Za-z]{34}'), prefix: 'hf_', compact: true, dense: true, hints: ['hf_'] },
  {
    kind: 'sendgrid_api_key',
    re: re2('SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}'),
    prefix: 'SG.',
    compact: true,
    hints: ['sg.'],
  },
  {
    kind: 'google_oauth_token',
    re: re2('ya29\\.[A-Za-z0-9_-]{30,}'),
    prefix: 'ya29.',
    compact: true,
    hints: ['ya29.'],
  },
  {
    kind: 'credential_assignment',
    hints: ['pass', 'pwd', 'secret', 'key', 'token'],
    re: re2(
      '(?i)(?:^|[^A-Za-z0-9])(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret)\\s*[:=]\\s*["\']?([^\\s"\'<>{}]{8,128})',
    ),
    group: 1,
    validate: (v) =>
      !/^(?:\*+|x+|\.+|<[^>]*>|\$\{?[A-Za-z_]+\}?|%[A-Za-z_]+%|null|none|undefined|string|required|changeme|your[_-]?\w*|example\w*)$/i.test(
        v,
      ) &&
      /[0-9]/.test(v) &&
      /[A-Za-z]/.test(v),
  },
];

function isJwt(token: string): boolean {
  const [h] = token.split('.');
  try {
    const header = JSON.parse(Buffer.from(h as string, 'base64url').toString('utf8')) as Record<string, unknown>;
    return typeof header === 'object' && header !== null && typeof header.alg === 'string';
  } catch {
    return false;
  }
}

type SecretMode = 'plain' | 'compact' | 'dense';
const DENSE_HINT = (h: string) => h.replace(/[^a-z0-9_]/g, '');

function scanSecrets(text: string, mode: SecretMode | boolean): Candidate[] {
  const m0: SecretMode = mode === true ? 'compact' : mode === false ? 'plain' : mode;
  const compact = m0 !== 'plain';
  const out: Candidate[] = [];
  const lower = text.toLowerCase();
  for (const rule of SECRET_RULES) {
    if (m0 === 'compact' && !rule.compact) continue;
    if (m0 === 'dense' && !rule.dense) continue;
    const hints = m0 === 'dense' ? rule.hints?.map(DENSE_HINT) : rule.hints;
    if (hints && !hints.some((h) => lower.includes(h))) continue;
    const re = m0 === 'dense' ? (rule.denseRe ?? rule.re) : rule.re;
    for (const m of findAll(re, text, 50)) {
      const value = rule.group ? (m.groups[rule.group - 1] ?? '') : m.text;
      if (!value) continue;
      if (rule.kind.startsWith('svc_') && rule.group === undefined) {
        // svc_…_<36>: the whole token must not continue into more body characters in the plain view.
        if (!compact && /[A-Za-z0-9]/.test(text[m.end] ?? '')) continue;
        if (!compact && /[A-Za-z0-9_]/.test(text[m.start - 1] ?? '')) continue;
      }
      if (rule.validate && !rule.validate(m.text)) continue;
      const prefix = rule.prefix ?? '';
      const shown = rule.kind.startsWith('svc_') ? prefix + value.slice(prefix.length) : value;
      out.push({
        kind: rule.kind,
        category: 'secret',
        excerpt: maskSecret(shown, shown.startsWith(prefix) ? prefix : ''),
      });
    }
  }
  return out;
}

const SVC_ALNUM_RE = re2('(?i)svc(live|test|agent)([A-Za-z0-9]{36})');
const SVC_PREFIXES: Record<string, { kind: string; prefix: string }> = {
  live: { kind: 'svc_live_api_key', prefix: LIVE_PREFIX },
  test: { kind: 'svc_test_api_key', prefix: TEST_PREFIX },
  agent: { kind: 'svc_agent_token', prefix: AGENT_PREFIX },
};

/** svc keys with every separator removed (`svc_live_AbCd;EfGh…`, `s-v-c-l-i-v-e-…`): the checksum keeps this precise. */
function scanSvcAlnum(text: string): Candidate[] {
  const out: Candidate[] = [];
  if (!text.toLowerCase().includes('svc')) return out;
  for (const m of findAll(SVC_ALNUM_RE, text, 50)) {
    const p = SVC_PREFIXES[(m.groups[0] ?? '').toLowerCase()];
    const body = m.groups[1] ?? '';
    if (p && isValidV2Body(body))
      out.push({ kind: p.kind, category: 'secret', excerpt: maskSecret(p.prefix + body, p.prefix) });
  }
  return out;
}

const SVC_SHAPED_RE = re2('(?i)svc_(live|test|agent)_([A-Za-z0-9]{36})');

/**
 * A svc key spelled with look-alike letters (small capitals, Cyrillic, …) whose case the fold
 * cannot recover: key-shaped, and spelled to evade, so flagged whatever its checksum says.
 * Only tokens the folding produced (not present in the raw text) count.
 */
function scanFoldedSvcShapes(folded: string, raw: string): Candidate[] {
  const out: Candidate[] = [];
  if (!folded.toLowerCase().includes('svc_')) return out;
  for (const m of findAll(SVC_SHAPED_RE, folded, 50)) {
    if (raw.includes(m.text)) continue;
    const p = SVC_PREFIXES[(m.groups[0] ?? '').toLowerCase()];
    if (p)
      out.push({ kind: p.kind, category: 'secret', excerpt: maskSecret(p.prefix + (m.groups[1] ?? ''), p.prefix) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Personal data
// ---------------------------------------------------------------------------------------

const EMAIL_RE = re2('[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\\.){1,8}[A-Za-z]{2,24}');
const CARD_RE = re2('(?:^|[^0-9A-Za-z_.-])((?:[0-9][ .-]?){12,18}[0-9])(?:[^0-9A-Za-z_-]|$)');
const IBAN_RE = re2('(?:^|[^A-Za-z0-9])([A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?)(?:[^A-Za-z0-9]|$)');
const SSN_RE = re2('(?:^|[^0-9-])([0-9]{3}-[0-9]{2}-[0-9]{4})(?:[^0-9-]|$)');
const NINO_RE = re2(
  '(?:^|[^A-Za-z0-9])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?[0-9]{2} ?[0-9]{2} ?[0-9]{2} ?[A-D])(?:[^A-Za-z0-9]|$)',
);
const DNI_RE = re2('(?:^|[^A-Za-z0-9])([XYZ]?[0-9]{7,8}-?[A-Z])(?:[^A-Za-z0-9]|$)');
const AADHAAR_RE = re2('(?:^|[^0-9])([2-9][0-9]{3} [0-9]{4} [0-9]{4})(?:[^0-9]|$)');

function cardGrouping(groups: number[]): boolean {
  if (groups.join(',') === '4,6,5' || groups.join(',') === '4,6,4') return true;
  return (
    groups.length >= 3 &&
    groups.slice(0, -1).every((g) => g === 4) &&
    (groups[groups.length - 1] ?? 0) >= 1 &&
    (groups[groups.length - 1] ?? 0) <= 4
  );
}

export function luhnValid(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return false;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay, Maestro). */
function plausibleCard(d: string): boolean {
  const n2 = Number(d.slice(0, 2));
  const n4 = Number(d.slice(0, 4));
  if (d[0] === '4') return d.length === 13 || d.length === 16 || d.length === 19;
  if ((n2 >= 51 && n2 <= 55) || (n4 >= 2221 && n4 <= 2720)) return d.length === 16;
  if (n2 === 34 || n2 === 37) return d.length === 15;
  if (d.startsWith('6011') || d.startsWith('65') || (Number(d.slice(0, 3)) >= 644 && Number(d.slice(0, 3)) <= 649))
    return d.length >= 16;
  if (n4 >= 3528 && n4 <= 3589) return d.length >= 16;
  if (n2 === 36 || n2 === 38 || (Number(d.slice(0, 3)) >= 300 && Number(d.slice(0, 3)) <= 305)) return d.length >= 14;
  if (n2 === 62) return d.length >= 16;
  if (['50', '56', '57', '58', '63', '67'].includes(d.slice(0, 2))) return d.length >= 12;
  return false;
}

const IBAN_LENGTHS: Record<string, number> = {
  AD: 24,
  AE: 23,
  AL: 28,
  AT: 20,
  AZ: 28,
  BA: 20,
  BE: 16,
  BG: 22,
  BH: 22,
  BR: 29,
  CH: 21,
  CR: 22,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  DO: 28,
  EE: 20,
  EG: 29,
  ES: 24,
  FI: 18,
  FO: 18,
  FR: 27,
  GB: 22,
  GE: 22,
  GI: 23,
  GL: 18,
  GR: 27,
  GT: 28,
  HR: 21,
  HU: 28,
  IE: 22,
  IL: 23,
  IS: 26,
  IT: 27,
  JO: 30,
  KW: 30,
  KZ: 20,
  LB: 28,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MR: 27,
  MT: 31,
  MU: 30,
  NL: 18,
  NO: 15,
  PK: 24,
  PL: 28,
  PS: 29,
  PT: 25,
  QA: 29,
  RO: 24,
  RS: 22,
  SA: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  TN: 24,
  TR: 26,
  UA: 29,
  VG: 24,
  XK: 20,
};

export function ibanValid(raw: string): boolean {
  const iban = raw.replace(/ /g, '');
  if (IBAN_LENGTHS[iban.slice(0, 2)] !== iban.length) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let rem = 0;
  for (const ch of rearranged) {
    const v = ch >= 'A' && ch <= 'Z' ? String(ch.charCodeAt(0) - 55) : ch;
    for (const d of v) rem = (rem * 10 + (d.charCodeAt(0) - 48)) % 97;
  }
  return rem === 1;
}

function ssnValid(s: string): boolean {
  const [a, g, n] = s.split('-') as [string, string, string];
  if (a === '000' || a === '666' || a[0] === '9') return false;
  if (g === '00' || n === '0000') return false;
  // Well-known advertising/example numbers are still personal-data shaped; keep them flagged.
  return true;
}

function dniValid(s: string): boolean {
  const v = s.replace('-', '');
  const letters = 'TRWAGMYFPDXBNJZSQVHLCKE';
  let num = v.slice(0, -1);
  const letter = v.slice(-1);
  if (/^[XYZ]/.test(num)) num = String('XYZ'.indexOf(num[0] as string)) + num.slice(1);
  if (!/^[0-9]{8}$/.test(num)) return false;
  return letters[Number(num) % 23] === letter;
}

const VERHOEFF_D = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 2, 3, 4, 0, 6, 7, 8, 9, 5],
  [2, 3, 4, 0, 1, 7, 8, 9, 5, 6],
  [3, 4, 0, 1, 2, 8, 9, 5, 6, 7],
  [4, 0, 1, 2, 3, 9, 5, 6, 7, 8],
  [5, 9, 8, 7, 6, 0, 4, 3, 2, 1],
  [6, 5, 9, 8, 7, 1, 0, 4, 3, 2],
  [7, 6, 5, 9, 8, 2, 1, 0, 4, 3],
  [8, 7, 6, 5, 9, 3, 2, 1, 0, 4],
  [9, 8, 7, 6, 5, 4, 3, 2, 1, 0],
];
const VERHOEFF_P = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
  [1, 5, 7, 6, 2, 8, 3, 0, 9, 4],
  [5, 8, 0, 3, 7, 9, 6, 1, 4, 2],
  [8, 9, 1, 6, 0, 4, 3, 5, 2, 7],
  [9, 4, 5, 3, 1, 2, 6, 8, 7, 0],
  [4, 2, 8, 6, 5, 7, 3, 9, 0, 1],
  [2, 7, 9, 3, 8, 0, 6, 4, 1, 5],
  [7, 0, 4, 6, 9, 1, 3, 2, 5, 8],
];
export function verhoeffValid(digits: string): boolean {
  let c = 0;
  const arr = digits.split('').reverse().map(Number);
  for (let i = 0; i < arr.length; i++) c = VERHOEFF_D[c]![VERHOEFF_P[i % 8]![arr[i]!]!]!;
  return c === 0;
}

function scanPersonalData(text: string): Candidate[] {
  const out: Candidate[] = [];
  const digits = /[0-9]/.test(text);
  if (text.includes('@'))
    for (const m of findAll(EMAIL_RE, text, 50))
      out.push({ kind: 'email_address', category: 'personal_data', excerpt: maskEmail(m.text) });
  if (!digits) return out;
  for (const m of findAll(CARD_RE, text, 50)) {
    const raw = m.groups[0] ?? '';
    // One separator style per number: "4111 1111 1111 1111", "4111-1111-…", "4111.1111.…" or none.
    if ([/ /, /-/, /\./].filter((re) => re.test(raw)).length > 1) continue;
    // Dots also separate decimals and versions: only the card groupings (4-4-4-4…, Amex 4-6-5) count.
    if (raw.includes('.') && !cardGrouping(raw.split('.').map((g) => g.length))) continue;
    const d = raw.replace(/[ .-]/g, '');
    if (d.length < 13 || d.length > 19) continue;
    if (!plausibleCard(d) || !luhnValid(d)) continue;
    out.push({ kind: 'payment_card', category: 'personal_data', excerpt: maskDigits(d) });
  }
  for (const m of findAll(IBAN_RE, text, 50)) {
    const raw = m.groups[0] ?? '';
    if (ibanValid(raw))
      out.push({ kind: 'iban', category: 'personal_data', excerpt: `${raw.slice(0, 2)}${maskDigits(raw)}` });
  }
  for (const m of findAll(SSN_RE, text, 50))
    if (ssnValid(m.groups[0] ?? ''))
      out.push({
        kind: 'national_id_us_ssn',
        category: 'personal_data',
        excerpt: `***-**-${(m.groups[0] ?? '').slice(-4)}`,
      });
  for (const m of findAll(NINO_RE, text, 50))
    out.push({
      kind: 'national_id_uk_nino',
      category: 'personal_data',
      excerpt: '********' + (m.groups[0] ?? '').slice(-1),
    });
  for (const m of findAll(DNI_RE, text, 50))
    if (dniValid(m.groups[0] ?? ''))
      out.push({
        kind: 'national_id_es_dni',
        category: 'personal_data',
        excerpt: '********' + (m.groups[0] ?? '').slice(-1),
      });
  for (const m of findAll(AADHAAR_RE, text, 50)) {
    const d = (m.groups[0] ?? '').replace(/ /g, '');
    if (verhoeffValid(d))
      out.push({ kind: 'national_id_in_aadhaar', category: 'personal_data', excerpt: maskDigits(d) });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// URLs and hosts
// ---------------------------------------------------------------------------------------

const URL_RE = re2('(?i)(?:^|[^A-Za-z0-9+.-])((?:https?|ftp|wss?|sftp|gopher|file)://[^\\s"\'<>`\\\\]+)');
// Bare host names with a TLD that is not a common file extension (so `setup.py`, `main.rs` are not hosts).
const HOST_TLDS =
  'com|net|org|io|ai|dev|app|co|xyz|ru|cn|info|biz|me|site|online|top|tk|cc|ws|su|uk|de|fr|nl|eu|us|ca|au|in|br|jp|ly|gg|link|click|live|cloud|tech|store|shop|workers|ngrok|onion|pw';
const HOST_RE = re2(
  `(?i)(?:^|[^A-Za-z0-9@._/-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\\.){1,8}(?:${HOST_TLDS}))(?:[^A-Za-z0-9-]|$)`,
);
// Protocol-relative URLs (`![](//host/x)`, `src="//host"`, `\\\\host\\x` as browsers read it): `//` not after a scheme
// or a word, then a host, then the end of the host (so `//console.log(x)` in code is not one).
const PROTO_REL_RE = re2(
  '(?:^|[^A-Za-z0-9:/\\\\])[/\\\\]{2}((?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.){1,8}[A-Za-z]{2,24}|(?:[0-9]{1,3}\\.){3}[0-9]{1,3})(?::[0-9]{1,5})?(?:[/\\\\?#)\\]>"\'\\s]|$)',
);
const IP_HOST_RE = re2('(?:^|[^0-9.])((?:[0-9]{1,3}\\.){3}[0-9]{1,3}):[0-9]{2,5}(?:[^0-9]|$)');

export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return allowed.some((d) => {
    const a = d.toLowerCase().replace(/\.$/, '');
    return h === a || h.endsWith(`.${a}`);
  });
}

function hostOf(url: string): { host: string; scheme: string } | null {
  try {
    const u = new URL(url);
    return { host: u.hostname.replace(/^\[|\]$/g, ''), scheme: u.protocol.replace(':', '') };
  } catch {
    return null;
  }
}

function scanNetwork(text: string, allowed: readonly string[]): Candidate[] {
  const out: Candidate[] = [];
  const urlSpans: Array<[number, number]> = [];
  for (const m of text.includes('://') ? findAll(URL_RE, text, 100) : []) {
    const url = m.groups[0] ?? '';
    urlSpans.push([m.start, m.end]);
    const parsed = hostOf(url.replace(/[),.;:!?\]]+$/, ''));
    if (!parsed || !parsed.host) {
      out.push({ kind: 'unparseable_url', category: 'network', excerpt: `${url.slice(0, 12)}…` });
      continue;
    }
    if (!hostAllowed(parsed.host, allowed))
      out.push({
        kind: 'url_outside_allowed_domains',
        category: 'network',
        excerpt: maskUrl(parsed.host, parsed.scheme),
      });
  }
  const inUrl = (pos: number) => urlSpans.some(([s, e]) => pos >= s && pos < e);
  if (text.includes('//') || text.includes('\\\\')) {
    for (const m of findAll(PROTO_REL_RE, text, 100)) {
      if (inUrl(m.start + 1)) continue;
      const host = (m.groups[0] ?? '').toLowerCase();
      urlSpans.push([m.start, m.end]);
      if (!hostAllowed(host, allowed))
        out.push({ kind: 'url_outside_allowed_domains', category: 'network', excerpt: `//${host}/…` });
    }
  }
  for (const m of text.includes('.') ? findAll(HOST_RE, text, 100) : []) {
    if (inUrl(m.start + 1)) continue;
    const host = (m.groups[0] ?? '').toLowerCase();
    if (!hostAllowed(host, allowed))
      out.push({ kind: 'host_outside_allowed_domains', category: 'network', excerpt: host });
  }
  for (const m of text.includes(':') ? findAll(IP_HOST_RE, text, 100) : []) {
    if (inUrl(m.start + 1)) continue;
    const host = m.groups[0] ?? '';
    if (host.split('.').every((o) => Number(o) <= 255) && !hostAllowed(host, allowed))
      out.push({ kind: 'host_outside_allowed_domains', category: 'network', excerpt: host });
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------------------

/** Scans one text field. `location` names it in the findings (e.g. `query`, `arguments.command`). */
export function scanText(raw: string, location: string, opts: ExfilOptions = {}): ExfilFinding[] {
  const allowed = opts.allowedDomains ?? [];
  const norm = normalizeText(raw);
  const findings: ExfilFinding[] = [];
  const seen = new Set<string>();
  const add = (c: Candidate, encoding: Encoding) => {
    const key = `${c.kind}|${c.excerpt}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push({
      detector: 'exfiltration',
      kind: c.kind,
      category: c.category,
      location,
      encoding,
      excerpt: c.excerpt,
    });
  };
  // The raw text first (so a plain finding is reported as plain), then the normalised views.
  const plainRaw = raw.normalize('NFC');
  for (const c of [...scanSecrets(plainRaw, false), ...scanPersonalData(plainRaw), ...scanNetwork(plainRaw, allowed)])
    add(c, 'plain');
  const views = viewsOf(norm.text);
  // Small capitals stand for either case: the upper-case reading is scanned too.
  if (norm.smallCaps > 0)
    for (const v of viewsOf(normalizeText(smallCapsUpper(raw)).text, 1, 8))
      views.push({ ...v, encoding: v.encoding === 'plain' ? 'unicode' : v.encoding });
  for (const v of views) {
    const enc: Encoding = v.encoding === 'plain' ? (norm.text !== plainRaw ? 'unicode' : 'plain') : v.encoding;
    for (const c of [...scanSecrets(v.text, false), ...scanPersonalData(v.text), ...scanNetwork(v.text, allowed)])
      add(c, enc);
  }
  if (norm.foldedLookalikes) for (const c of scanFoldedSvcShapes(norm.text, plainRaw)) add(c, 'unicode');
  // Then secrets and numbers split by separators, quotes or concatenation (compacted views):
  // whitespace and quotes; then every separator but `_`; then (svc keys, checksum-validated) all of them.
  for (const v of views) {
    const enc: Encoding = v.encoding === 'plain' || v.encoding === 'unicode' ? 'split' : v.encoding;
    const compact = compactView(v.text);
    for (const c of [
      ...scanSecrets(compact, 'compact'),
      ...scanPersonalData(compact).filter((c) => c.kind !== 'email_address'),
    ])
      add(c, enc);
    for (const c of scanSecrets(denseView(v.text), 'dense')) add(c, enc);
    for (const c of scanSvcAlnum(alnumView(v.text))) add(c, enc);
    if (norm.foldedLookalikes) for (const c of scanFoldedSvcShapes(compact, plainRaw)) add(c, 'unicode');
  }
  return findings;
}

/** Every string in a JSON value (keys included), with its path; bounded. */
export const MAX_VALUE_STRINGS = 20_000;
export const MAX_VALUE_DEPTH = 64;
type Strings = Array<{ path: string; text: string }> & { overflow?: boolean };

export function stringsOf(value: unknown, path: string, out: Strings = [], depth = 0): Strings {
  if (out.length >= MAX_VALUE_STRINGS || depth > MAX_VALUE_DEPTH) {
    out.overflow = true;
    return out;
  }
  if (typeof value === 'string') out.push({ path, text: value });
  else if (typeof value === 'number' || typeof value === 'bigint') out.push({ path, text: String(value) });
  else if (Array.isArray(value)) value.forEach((v, i) => stringsOf(v, `${path}[${i}]`, out, depth + 1));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      // A key is caller text like any value; a location never repeats a key-shaped one.
      const seg = maskKeyShaped(k.slice(0, 256)).slice(0, 64);
      out.push({ path: `${path}.${seg}#key`, text: k });
      stringsOf(v, `${path}.${seg}`, out, depth + 1);
    }
  }
  return out;
}

/** Scans every string of a JSON value (tool arguments), object keys included, and, to catch secrets split over fields, their concatenation. */
export function scanValue(value: unknown, location: string, opts: ExfilOptions = {}): ExfilFinding[] {
  const parts = stringsOf(value, location);
  const findings: ExfilFinding[] = [];
  // What cannot be scanned whole is not passed (fail closed).
  if (parts.overflow)
    findings.push({
      detector: 'exfiltration',
      kind: 'unscannable_value',
      category: 'secret',
      location,
      encoding: 'plain',
      excerpt: `more than ${MAX_VALUE_STRINGS} strings or deeper than ${MAX_VALUE_DEPTH} levels`,
    });
  for (const p of parts) findings.push(...scanText(p.text, p.path, opts));
  if (parts.length > 1) {
    // The values joined, and keys and values joined in order (a key split between a key and its value).
    const values = parts.filter((p) => !p.path.endsWith('#key'));
    const seen = new Set(findings.map((f) => `${f.kind}|${f.excerpt}`));
    for (const joined of [values.map((p) => p.text).join(''), parts.map((p) => p.text).join('')]) {
      for (const f of scanText(joined, location, opts)) {
        if (f.category !== 'secret' || seen.has(`${f.kind}|${f.excerpt}`)) continue;
        seen.add(`${f.kind}|${f.excerpt}`);
        findings.push({ ...f, encoding: 'split' });
      }
    }
  }
  return findings;
}
