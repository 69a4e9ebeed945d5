// The v2 `svc_live_` key checksum, for the hard-coded-credential rule: the scanner uses the
// same key-format module as the service itself (core/api-keys.ts), so the two never disagree.
export { crc32, isValidV2Body, checksumV2 as v2Checksum, base62Encode as base62 } from '../../core/api-keys.js';
