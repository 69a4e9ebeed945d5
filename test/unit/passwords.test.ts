import { describe, expect, it, vi } from 'vitest';
import {
  COMMON_PASSWORDS,
  DUMMY_HASH,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  checkPasswordPolicy,
  hashPassword,
  needsRehash,
  parsePasswordHash,
  verifyPassword,
  verifySignInPassword,
} from '../../core/passwords.js';

const b64url = (s: string | Buffer) => Buffer.from(s).toString('base64url');

// RFC 7914 §12, third vector: scrypt(P="pleaseletmein", S="SodiumChloride", N=16384, r=8, p=1, dkLen=64).
const RFC7914_HASH = Buffer.from(
  '7023bdcb3afd7348461c06cd81fd38ebfda8fbba904f8e3ea9b543f6545da1f2d5432955613f0fcf62d49705242a9af9e61e85dc0d651e40dfcf017b45575887',
  'hex',
);
const RFC7914_ENCODED = `scrypt$16384$8$1$${b64url('SodiumChloride')}$${b64url(RFC7914_HASH)}`;

describe('hashPassword / verifyPassword', () => {
  it('encodes scrypt$N$r$p$salt$hash with the current parameters', async () => {
    const h = await hashPassword('correct horse battery staple');
    expect(h).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(needsRehash(h)).toBe(false);
    expect(await verifyPassword('correct horse battery staple', h)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', h)).toBe(false);
    expect(await verifyPassword('Correct horse battery staple', h)).toBe(false);
    expect(await verifyPassword('', h)).toBe(false);
  });

  it('uses a fresh salt per hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same-password-twice'), hashPassword('same-password-twice')]);
    expect(a).not.toBe(b);
    expect(parsePasswordHash(a)!.salt.equals(parsePasswordHash(b)!.salt)).toBe(false);
  });

  it('verifies the RFC 7914 scrypt test vector using the parameters stored in the hash', async () => {
    expect(await verifyPassword('pleaseletmein', RFC7914_ENCODED)).toBe(true);
    expect(await verifyPassword('pleaseletmeim', RFC7914_ENCODED)).toBe(false);
    expect(needsRehash(RFC7914_ENCODED)).toBe(true);
    // Same vector, one bit flipped in the stored hash.
    const flipped = Buffer.from(RFC7914_HASH);
    flipped[63] ^= 1;
    expect(
      await verifyPassword('pleaseletmein', `scrypt$16384$8$1$${b64url('SodiumChloride')}$${b64url(flipped)}`),
    ).toBe(false);
  });

  it('normalises to NFC, so composed and decomposed accents match', async () => {
    const composed = 'caf\u00e9-au-lait-2024';
    const decomposed = 'cafe\u0301-au-lait-2024';
    const h = await hashPassword(composed);
    expect(await verifyPassword(decomposed, h)).toBe(true);
  });

  it.each([
    ['other scheme', 'bcrypt$2b$10$abcdefghijklmnopqrstuv$abcdefghijklmnopqrstuvwxyz0123456789AB'],
    ['too few fields', 'scrypt$16384$8$1$' + b64url('SodiumChloride')],
    ['too many fields', RFC7914_ENCODED + '$x'],
    ['N not a power of two', RFC7914_ENCODED.replace('$16384$', '$16383$')],
    ['N below 2^14', RFC7914_ENCODED.replace('$16384$', '$8192$')],
    ['N above 2^20', RFC7914_ENCODED.replace('$16384$', '$2097152$')],
    ['N with leading zero', RFC7914_ENCODED.replace('$16384$', '$016384$')],
    ['N·r over 256 MiB', RFC7914_ENCODED.replace('$16384$8$', '$1048576$8$')],
    ['r zero', RFC7914_ENCODED.replace('$8$1$', '$0$1$')],
    ['r too large', RFC7914_ENCODED.replace('$8$1$', '$33$1$')],
    ['p too large', RFC7914_ENCODED.replace('$8$1$', '$8$17$')],
    ['salt not base64url', RFC7914_ENCODED.replace(b64url('SodiumChloride'), 'Sodium+Chloride')],
    ['salt too short', RFC7914_ENCODED.replace(b64url('SodiumChloride'), b64url('salt'))],
    ['hash too short', `scrypt$16384$8$1$${b64url('SodiumChloride')}$${b64url(RFC7914_HASH.subarray(0, 8))}`],
    ['empty', ''],
  ])('a malformed stored hash (%s) does not parse and verifies as false', async (_name, encoded) => {
    expect(parsePasswordHash(encoded)).toBeNull();
    expect(needsRehash(encoded)).toBe(true);
    expect(await verifyPassword('pleaseletmein', encoded)).toBe(false);
  });
});

describe('DUMMY_HASH and sign-in', () => {
  it('DUMMY_HASH uses the current parameters', () => {
    const parts = parsePasswordHash(DUMMY_HASH)!;
    expect([parts.N, parts.r, parts.p, parts.salt.length, parts.hash.length]).toEqual([32768, 8, 1, 16, 32]);
    expect(needsRehash(DUMMY_HASH)).toBe(false);
  });

  it('verifySignInPassword: unknown user is always false; known user checks the hash', async () => {
    const h = await hashPassword('a-real-users-password');
    expect(await verifySignInPassword('a-real-users-password', h)).toBe(true);
    expect(await verifySignInPassword('a-wrong-password', h)).toBe(false);
    expect(await verifySignInPassword('a-real-users-password', null)).toBe(false);
    expect(await verifySignInPassword('a-real-users-password', undefined)).toBe(false);
  });

  it('runs exactly one scrypt with the current parameters whether or not the user exists', async () => {
    vi.resetModules();
    const calls: Array<{ N: number; r: number; p: number }> = [];
    vi.doMock('node:crypto', async (importOriginal) => {
      const orig = await importOriginal<typeof import('node:crypto')>();
      const scrypt = (pw: string, salt: Buffer, len: number, opts: { N: number; r: number; p: number }, cb: never) => {
        calls.push({ N: opts.N, r: opts.r, p: opts.p });
        return (orig.scrypt as (...a: unknown[]) => void)(pw, salt, len, opts, cb);
      };
      return { ...orig, scrypt };
    });
    try {
      const mod = await import('../../core/passwords.js');
      const stored = await mod.hashPassword('known-user-password');
      calls.length = 0;
      expect(await mod.verifySignInPassword('known-user-password', stored)).toBe(true);
      expect(calls).toEqual([{ N: 32768, r: 8, p: 1 }]);
      calls.length = 0;
      expect(await mod.verifySignInPassword('known-user-password', null)).toBe(false);
      expect(calls).toEqual([{ N: 32768, r: 8, p: 1 }]);
      calls.length = 0;
      expect(await mod.verifyPassword('known-user-password', 'corrupted$record')).toBe(false);
      expect(calls).toEqual([{ N: 32768, r: 8, p: 1 }]);
    } finally {
      vi.doUnmock('node:crypto');
      vi.resetModules();
    }
  });
});

describe('checkPasswordPolicy', () => {
  const TOO_SHORT = 'Password must be at least 12 characters long.';
  const TOO_LONG = 'Password must be at most 256 characters long.';
  const EMAIL = 'Password must not contain your e-mail address.';
  const COMMON = 'Password is too common; choose a less predictable one.';

  it.each<[string, unknown, string, string | null]>([
    ['11 characters', 'abcdefghij1', 'x@example.com', TOO_SHORT],
    ['12 characters', 'tangerine-42', 'x@example.com', null],
    ['empty', '', 'x@example.com', TOO_SHORT],
    ['256 characters', 'ab3$'.repeat(64), 'x@example.com', null],
    ['257 characters', 'ab3$'.repeat(64) + 'z', 'x@example.com', TOO_LONG],
    ['12 astral code points (24 UTF-16 units)', '🍎🍐🍊🍋🍌🍉🍇🍓🫐🍈🍒🍑', 'x@example.com', null],
    ['6 astral code points (12 UTF-16 units)', '🍎🍐🍊🍋🍌🍉', 'x@example.com', TOO_SHORT],
    ['decomposed accents counted after NFC', 'e\u0301'.repeat(11), 'x@example.com', TOO_SHORT],
    ['equals the e-mail', 'alexander.hamilton@example.com', 'alexander.hamilton@example.com', EMAIL],
    ['equals the e-mail, other case', 'Alexander.Hamilton@EXAMPLE.com', 'alexander.hamilton@example.com', EMAIL],
    ['contains the e-mail', 'my:alexander.hamilton@example.com!', 'Alexander.Hamilton@example.com', EMAIL],
    ['equals the local part', 'alexander.hamilton', 'alexander.hamilton@example.com', EMAIL],
    ['contains the local part, other case', 'xxALEXANDER.HAMILTONxx', 'alexander.hamilton@example.com', EMAIL],
    ['contains a 5-char local part', 'bobby-secure-pass', 'bobby@example.com', EMAIL],
    ['contains a 3-char local part (too short to count)', 'bob-secure-passphrase', 'bob@example.com', null],
    ['contains the domain only', 'example.com-is-my-home', 'bobby@example.com', null],
    ['common', 'password1234', 'x@example.com', COMMON],
    ['common, other case', 'QwertyUiopAS', 'x@example.com', COMMON],
    ['common digits', '123456789012', 'x@example.com', COMMON],
    ['common with symbol', 'P@ssw0rd1234', 'x@example.com', COMMON],
    ['single repeated character', 'zzzzzzzzzzzzzzzz', 'x@example.com', COMMON],
    ['not a string', 123456789012, 'x@example.com', 'Password must be a string.'],
    ['strong passphrase', 'violet tractor wanders north', 'jane.doe@example.com', null],
  ])('%s', (_name, password, email, expected) => {
    expect(checkPasswordPolicy(password, email)).toBe(expected);
  });

  it('bounds are 12 and 256', () => {
    expect([PASSWORD_MIN_LENGTH, PASSWORD_MAX_LENGTH]).toEqual([12, 256]);
  });

  it('the common-password list has 108 lower-case entries of at least 12 characters, all rejected', () => {
    expect(COMMON_PASSWORDS.size).toBe(108);
    for (const p of COMMON_PASSWORDS) {
      expect(p.length).toBeGreaterThanOrEqual(12);
      expect(p).toBe(p.toLowerCase());
      expect(checkPasswordPolicy(p, 'someone@example.org')).toBe(COMMON);
      expect(checkPasswordPolicy(p.toUpperCase(), 'someone@example.org')).toBe(COMMON);
    }
  });
});
