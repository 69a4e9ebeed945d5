// Password hashing (scrypt from node:crypto) and the sign-up password policy.
//
// Stored form is self-describing so parameters can be raised later without a migration:
//   scrypt$<N>$<r>$<p>$<salt base64url>$<hash base64url>
// Current parameters: N = 2^15, r = 8, p = 1, 16-byte salt, 32-byte output. Memory per hash is
// 128·N·r = 32 MiB; measured cost ≈ 115–155 ms per hash on the 2-core development machine
// (N = 2^14: ≈ 60 ms, N = 2^16: ≈ 250 ms). See docs/security-model.md.

import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const SCRYPT_N = 2 ** 15;
export const SCRYPT_R = 8;
export const SCRYPT_P = 1;
export const SALT_BYTES = 16;
export const HASH_BYTES = 32;

// Bounds for parameters read back from a stored hash: a corrupted or hostile record must not be
// able to make one verification allocate gigabytes or spin for minutes.
const MIN_LOG2_N = 14;
const MAX_LOG2_N = 20;
const MAX_R = 32;
const MAX_P = 16;
/** scrypt's memory is 128·N·r bytes; 256 MiB allows e.g. N=2^18/r=8 or N=2^17/r=16. */
const MAX_SCRYPT_MEMORY = 256 * 1024 * 1024;

export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;
/** An e-mail local part shorter than this is only checked for equality, not containment. */
export const LOCAL_PART_MIN_CONTAINMENT = 4;

/**
 * A valid hash (current parameters) of a random password that was discarded at generation time.
 * Sign-in with an unknown e-mail verifies against it so that both paths do the same KDF work.
 */
export const DUMMY_HASH = 'scrypt$32768$8$1$7-BZ9KsyxSCt1XeFEDB_Qg$vui03LYpspwGSQYOdBZKPbtBJzC8HzsZRLyNs8ogD8w';

function scryptAsync(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** scrypt needs 128·N·r bytes plus slack; Node's default maxmem (32 MiB) is too tight for N=2^15, r=8. */
function maxmemFor(N: number, r: number, p: number): number {
  return 128 * N * r * p + 16 * 1024 * 1024;
}

/**
 * NFC normalisation so that the same visible password typed on different platforms
 * (precomposed vs. combining accents) hashes identically.
 */
function normalizePassword(password: string): string {
  return password.normalize('NFC');
}

export interface ScryptHashParts {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

const B64URL_RE = /^[A-Za-z0-9_-]+$/;
const DECIMAL_RE = /^[1-9][0-9]{0,9}$/;

/** Parses and bounds-checks a stored hash; null when malformed or outside the accepted bounds. */
export function parsePasswordHash(encoded: string): ScryptHashParts | null {
  if (typeof encoded !== 'string') return null;
  const parts = encoded.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [, nS, rS, pS, saltS, hashS] = parts;
  if (!DECIMAL_RE.test(nS) || !DECIMAL_RE.test(rS) || !DECIMAL_RE.test(pS)) return null;
  const N = Number(nS);
  const r = Number(rS);
  const p = Number(pS);
  const log2N = Math.log2(N);
  if (!Number.isInteger(log2N) || log2N < MIN_LOG2_N || log2N > MAX_LOG2_N) return null;
  if (r > MAX_R || p > MAX_P || 128 * N * r > MAX_SCRYPT_MEMORY) return null;
  if (!B64URL_RE.test(saltS) || !B64URL_RE.test(hashS)) return null;
  const salt = Buffer.from(saltS, 'base64url');
  const hash = Buffer.from(hashS, 'base64url');
  // Salt floor 8 bytes for hashes made elsewhere (RFC 7914 vectors use 14); new hashes use 16.
  if (salt.length < 8 || hash.length < 16 || hash.length > 64) return null;
  return { N, r, p, salt, hash };
}

/** Hashes a password with a fresh random salt and the current parameters. Runs on the libuv pool. */
export async function hashPassword(password: string): Promise<string> {
  if (typeof password !== 'string') throw new TypeError('hashPassword: password must be a string');
  const salt = randomBytes(SALT_BYTES);
  const hash = await scryptAsync(normalizePassword(password), salt, HASH_BYTES, {
    N: SCRYPT_N,
    r: SCRYPT_R,
    p: SCRYPT_P,
    maxmem: maxmemFor(SCRYPT_N, SCRYPT_R, SCRYPT_P),
  });
  return ['scrypt', SCRYPT_N, SCRYPT_R, SCRYPT_P, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/**
 * Recomputes scrypt with the stored parameters and compares in constant time.
 * A malformed stored hash verifies as false (fail closed) — after doing the dummy KDF work,
 * so a corrupted record is not distinguishable by timing either.
 */
export async function verifyPassword(password: string, encoded: string): Promise<boolean> {
  const parts = parsePasswordHash(encoded);
  if (parts === null || typeof password !== 'string') {
    await verifyPassword(typeof password === 'string' ? password : '', DUMMY_HASH);
    return false;
  }
  const actual = await scryptAsync(normalizePassword(password), parts.salt, parts.hash.length, {
    N: parts.N,
    r: parts.r,
    p: parts.p,
    maxmem: maxmemFor(parts.N, parts.r, parts.p),
  });
  return actual.length === parts.hash.length && timingSafeEqual(actual, parts.hash);
}

/**
 * Sign-in helper: verifies against the user's stored hash, or — when there is no such user —
 * against DUMMY_HASH and then reports false regardless, so both paths cost one scrypt.
 */
export async function verifySignInPassword(password: string, storedHash: string | null | undefined): Promise<boolean> {
  if (storedHash === null || storedHash === undefined) {
    await verifyPassword(password, DUMMY_HASH);
    return false;
  }
  return verifyPassword(password, storedHash);
}

/** True when a stored hash uses parameters other than the current ones (rehash on next sign-in). */
export function needsRehash(encoded: string): boolean {
  const parts = parsePasswordHash(encoded);
  return (
    parts === null ||
    parts.N !== SCRYPT_N ||
    parts.r !== SCRYPT_R ||
    parts.p !== SCRYPT_P ||
    parts.hash.length !== HASH_BYTES ||
    parts.salt.length !== SALT_BYTES
  );
}

// ---------------------------------------------------------------------------------------
// Password policy (the contract leaves it "not shown"; this is the service's choice)
// ---------------------------------------------------------------------------------------

/**
 * Frequently used passwords of 12+ characters (shorter ones already fail the length rule),
 * drawn from public breach-frequency lists. Compared case-insensitively.
 */
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '123456789012',
  '1234567890123',
  '12345678901234',
  '123456789123',
  '123123123123',
  '111111111111',
  '000000000000',
  '121212121212',
  '123412341234',
  '987654321098',
  '098765432109',
  '012345678901',
  '112233445566',
  '123456123456',
  '123654789000',
  '147258369000',
  '741852963000',
  '123qweasdzxc',
  '1q2w3e4r5t6y',
  '1qaz2wsx3edc',
  'zaq12wsxcde3',
  '1qazxsw23edc',
  'qazwsxedcrfv',
  'qwertyuiopas',
  'qwertyuiop12',
  'qwertyuiop123',
  'qwerty123456',
  'qwertyqwerty',
  'qwerty123qwe',
  'asdfghjkl123',
  'asdfghjklqwe',
  'asdfasdfasdf',
  'zxcvbnm12345',
  'zxcvbnmasdfg',
  'abcdefghijkl',
  'abcdefgh1234',
  'abc123abc123',
  'abc123456789',
  'abcd12345678',
  'aaaaaaaaaaaa',
  'password1234',
  'password12345',
  'password123456',
  'passwordpassword',
  'password1234!',
  'password123!',
  'password2020',
  'password2021',
  'password2022',
  'password2023',
  'password2024',
  'password2025',
  'passw0rd1234',
  'p@ssw0rd1234',
  'p@ssword1234',
  'mypassword123',
  'mypassword1234',
  'newpassword123',
  'changeme1234',
  'changeme12345',
  'welcome12345',
  'welcome123456',
  'welcome2024!',
  'letmein12345',
  'letmein123456',
  'iloveyou1234',
  'iloveyou12345',
  'iloveyouiloveyou',
  'sunshine1234',
  'princess1234',
  'football1234',
  'baseball1234',
  'basketball12',
  'superman1234',
  'batman123456',
  'starwars1234',
  'trustno11234',
  'monkey123456',
  'dragon123456',
  'master123456',
  'shadow123456',
  'michael12345',
  'jennifer1234',
  'computer1234',
  'internet1234',
  'administrator',
  'admin1234567',
  'adminadmin12',
  'administrator1',
  'rootroot1234',
  'secret123456',
  'letmeinplease',
  'correcthorsebatterystaple',
  'thisisapassword',
  'passwordisbad',
  'qwertyuiop[]',
  '1234567890qwerty',
  'qwerty1234567890',
  '1234567890-=',
  '!@#$%^&*()_+',
  'qwertyuiopasdfgh',
  'summer123456',
  'winter123456',
  'spring123456',
  'autumn123456',
  'january12345',
  'hello1234567',
  'helloworld123',
]);

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Sign-up password policy. Returns null when acceptable, otherwise a detail message safe to
 * return to the caller. Rules (in order): 12–256 characters (Unicode code points, after NFC);
 * not the e-mail address or its local part, and not containing either (case-insensitive; the
 * local part only when it has at least 4 characters); not a common password; not a single
 * repeated character.
 */
export function checkPasswordPolicy(password: unknown, email: string): string | null {
  if (typeof password !== 'string') return 'Password must be a string.';
  const pw = normalizePassword(password);
  const length = codePointLength(pw);
  if (length < PASSWORD_MIN_LENGTH) return `Password must be at least ${PASSWORD_MIN_LENGTH} characters long.`;
  if (length > PASSWORD_MAX_LENGTH) return `Password must be at most ${PASSWORD_MAX_LENGTH} characters long.`;

  const lowerPw = pw.toLowerCase();
  const lowerEmail = typeof email === 'string' ? email.trim().toLowerCase() : '';
  if (lowerEmail.length > 0) {
    const at = lowerEmail.lastIndexOf('@');
    const local = at > 0 ? lowerEmail.slice(0, at) : lowerEmail;
    if (lowerPw === lowerEmail || lowerPw.includes(lowerEmail) || lowerPw === local) {
      return 'Password must not contain your e-mail address.';
    }
    if (codePointLength(local) >= LOCAL_PART_MIN_CONTAINMENT && lowerPw.includes(local)) {
      return 'Password must not contain your e-mail address.';
    }
  }

  if (COMMON_PASSWORDS.has(lowerPw)) return 'Password is too common; choose a less predictable one.';
  const first = [...pw][0];
  if ([...pw].every((c) => c === first)) return 'Password is too common; choose a less predictable one.';
  return null;
}
