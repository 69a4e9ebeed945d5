// Which column names hold secrets. A name is split into lower-case words (snake_case,
// kebab-case, camelCase and digits) and is sensitive when it contains a secret term as
// whole words — unless the name describes metadata *about* the secret (a timestamp, a
// counter, a flag, an id, a masked form), e.g. `password_reset_at`, `token_count`,
// `is_secret`, `api_key_id`, `card_last4` are not sensitive; `password_hash`,
// `refresh_token`, `client_secret`, `card_number`, `cvv` are.

const SECRET_TERMS: string[][] = [
  ['password'],
  ['passwd'],
  ['pwd'],
  ['passphrase'],
  ['pass', 'hash'],
  ['secret'],
  ['token'],
  ['api', 'key'],
  ['apikey'],
  ['access', 'key'],
  ['private', 'key'],
  ['secret', 'key'],
  ['auth', 'key'],
  ['ssn'],
  ['social', 'security', 'number'],
  ['credit', 'card'],
  ['creditcard'],
  ['card', 'number'],
  ['cardnumber'],
  ['cc', 'number'],
  ['ccnum'],
  ['cvv'],
  ['cvv2'],
  ['cvc'],
  ['cvc2'],
  ['security', 'code'],
];

/** Trailing words that make the column metadata about a secret rather than the secret. */
const METADATA_SUFFIXES = new Set([
  'at',
  'on',
  'date',
  'time',
  'timestamp',
  'ts',
  'expires',
  'expiry',
  'expiration',
  'exp',
  'count',
  'cnt',
  'attempts',
  'length',
  'len',
  'type',
  'kind',
  'policy',
  'changed',
  'updated',
  'created',
  'required',
  'enabled',
  'disabled',
  'flag',
  'version',
  'id',
  'ids',
  'last4',
  'last',
  'four',
  'brand',
  'masked',
  'status',
  'strength',
  'algorithm',
  'algo',
  'scheme',
  'format',
  'name',
  'used',
  'limit',
  'remaining',
]);
/** Leading words that make the column a boolean or counter. */
const METADATA_PREFIXES = new Set(['is', 'has', 'num', 'count', 'max', 'min', 'total']);

export function nameWords(name: string): string[] {
  return (
    name
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      // Formerly `([A-Z]+)([A-Z][a-z])` → '$1 $2' (quadratic on long capital runs); same output.
      .replace(/([A-Z])(?=[A-Z][a-z])/g, '$1 ')
      .toLowerCase()
      .split(/[^a-z0-9]+|(?<=[a-z])(?=\d{2,})/)
      .filter((w) => w.length > 0)
  );
}

export function isSensitiveColumnName(name: string): boolean {
  const words = nameWords(name);
  if (words.length === 0) return false;
  if (METADATA_SUFFIXES.has(words[words.length - 1]) && words.length > 1) return false;
  if (METADATA_PREFIXES.has(words[0]) && words.length > 1) return false;
  return SECRET_TERMS.some((term) => containsRun(words, term));
}

function containsRun(words: string[], term: string[]): boolean {
  outer: for (let i = 0; i + term.length <= words.length; i++) {
    for (let k = 0; k < term.length; k++) if (words[i + k] !== term[k]) continue outer;
    return true;
  }
  return false;
}
