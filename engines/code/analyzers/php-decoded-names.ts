// Kept apart from php.ts so that rules.ts can read it without importing an analyzer.
/**
 * Session 16 (red team): string functions whose result, called as a function, is a function
 * name decoded at run time (`$f = strrev('metsys'); $f($c)`): the name is hidden on purpose.
 */
export const PHP_DECODED_NAME = [
  'strrev',
  'base64_decode',
  'str_rot13',
  'hex2bin',
  'gzinflate',
  'gzuncompress',
  'gzdecode',
  'urldecode',
  'rawurldecode',
  'convert_uudecode',
  'pack',
  'chr',
  'implode',
  'join',
  'sprintf',
  'str_replace',
  'strtr',
  'substr',
  'strtolower',
  'strtoupper',
  'ucfirst',
  'trim',
  'preg_replace',
].map((f) => `${f}()`);
