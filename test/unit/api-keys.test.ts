import { describe, expect, it, vi } from 'vitest';
import fc from 'fast-check';
import { crc32 as zlibCrc32 } from 'node:zlib';
import {
  AGENT_PREFIX,
  BASE62_ALPHABET,
  LIVE_PREFIX,
  SCANNER_PATTERNS,
  SVC_LIVE_API_KEY,
  SVC_LIVE_API_KEY_V1,
  TEST_PREFIX,
  base62Encode,
  checksumV2,
  crc32,
  generateAgentToken,
  generateApiKey,
  inspectApiKey,
  isValidV2Body,
  lookupDigest,
  maskApiKey,
  parseApiKey,
  scanForLiveKeys,
  scanForLiveKeysDelimited,
} from '../../core/api-keys.js';

// Checksums below were computed independently (Python zlib.crc32 + a separate Base62 encoder).
const BODY_A = 'A'.repeat(30) + '0uCPlr'; // CRC 0x317f6a1b: one leading pad zero
const BODY_B = '0123456789abcdefghijABCDEFGHIJ3mpbCX'; // CRC 0xced364a5
const BODY_PAD2 = 'k00000000000000000000000000044008INp'; // CRC 0x001e2bcd: two leading pad zeros
const K2 = LIVE_PREFIX + BODY_A;
const K2B = LIVE_PREFIX + BODY_B;
const K2_BAD = LIVE_PREFIX + 'A'.repeat(30) + '0uCPls';
const TEST_K2 = TEST_PREFIX + BODY_B;

// v1 bodies: 43 characters of [A-Za-z0-9_-].
const V1_DASH_BODY = 'Ab3_'.repeat(10) + 'xy-';
const V1_UNDER_BODY = 'Zq9-'.repeat(10) + 'xy_';
const V1_BASE64URL_BODY = Buffer.alloc(32, 0xfb).toString('base64url'); // '-_-_…' mixture
const V1_DASH = LIVE_PREFIX + V1_DASH_BODY;
const V1_UNDER = LIVE_PREFIX + V1_UNDER_BODY;
const V1_B64 = LIVE_PREFIX + V1_BASE64URL_BODY;

const base62Char = fc.constantFrom(...BASE62_ALPHABET.split(''));
const base62String = (n: number) => fc.array(base62Char, { minLength: n, maxLength: n }).map((a) => a.join(''));
const v1Char = fc.constantFrom(...(BASE62_ALPHABET + '_-').split(''));
const v1Body = fc.array(v1Char, { minLength: 43, maxLength: 43 }).map((a) => a.join(''));

function base62Decode(s: string): number {
  return [...s].reduce((acc, c) => acc * 62 + BASE62_ALPHABET.indexOf(c), 0);
}

describe('fixture sanity', () => {
  it('v1 fixtures have 43 body characters', () => {
    expect([V1_DASH_BODY.length, V1_UNDER_BODY.length, V1_BASE64URL_BODY.length]).toEqual([43, 43, 43]);
    expect(V1_DASH.endsWith('-')).toBe(true);
    expect(V1_UNDER.endsWith('_')).toBe(true);
    expect(V1_BASE64URL_BODY).toMatch(/[-_]/);
  });
});

describe('crc32 and base62', () => {
  it('matches the standard CRC32 check value', () => {
    expect(crc32(Buffer.from('123456789', 'ascii'))).toBe(0xcbf43926);
    expect(crc32(new Uint8Array(0))).toBe(0);
  });

  it('agrees with zlib.crc32 on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => crc32(bytes) === zlibCrc32(bytes) >>> 0));
  });

  it('encodes most significant digit first, zero-padded', () => {
    expect(base62Encode(0, 6)).toBe('000000');
    expect(base62Encode(61, 6)).toBe('00000z');
    expect(base62Encode(62, 6)).toBe('000010');
    expect(base62Encode(0xffffffff, 6)).toBe('4gfFC3');
    expect(() => base62Encode(62 ** 6, 6)).toThrow(RangeError);
    expect(() => base62Encode(-1, 6)).toThrow(RangeError);
  });

  it('round-trips every 32-bit value at width 6', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffffff }), (v) => {
        const s = base62Encode(v, 6);
        return s.length === 6 && base62Decode(s) === v;
      }),
    );
  });
});

describe('checksumV2', () => {
  it.each([
    ['A'.repeat(30), '0uCPlr'],
    ['0123456789abcdefghijABCDEFGHIJ', '3mpbCX'],
    ['0'.repeat(30), '2C8GjS'],
    ['z'.repeat(30), '4IlJEz'],
    ['k00000000000000000000000000044', '008INp'],
  ])('checksumV2(%s) = %s', (body30, expected) => {
    expect(checksumV2(body30)).toBe(expected);
  });

  it('always has width 6 and only Base62 characters', () => {
    fc.assert(fc.property(base62String(30), (s) => /^[0-9A-Za-z]{6}$/.test(checksumV2(s))));
  });

  it.each([['A'.repeat(29)], ['A'.repeat(31)], ['A'.repeat(29) + '-'], ['A'.repeat(29) + 'é']])(
    'rejects non-30-Base62 input %s',
    (bad) => {
      expect(() => checksumV2(bad)).toThrow(TypeError);
    },
  );

  it('isValidV2Body checks shape and checksum', () => {
    expect(isValidV2Body(BODY_A)).toBe(true);
    expect(isValidV2Body(BODY_PAD2)).toBe(true);
    expect(isValidV2Body(K2_BAD.slice(LIVE_PREFIX.length))).toBe(false);
    expect(isValidV2Body(BODY_A.slice(0, 35))).toBe(false);
    expect(isValidV2Body(BODY_A.toLowerCase())).toBe(false);
  });
});

describe('inspectApiKey / parseApiKey', () => {
  it.each<[string, unknown, unknown]>([
    ['live v2', K2, { ok: true, prefix: LIVE_PREFIX, version: 'v2', body: BODY_A }],
    [
      'live v2 (two pad zeros)',
      LIVE_PREFIX + BODY_PAD2,
      { ok: true, prefix: LIVE_PREFIX, version: 'v2', body: BODY_PAD2 },
    ],
    ['test v2', TEST_K2, { ok: true, prefix: TEST_PREFIX, version: 'v2', body: BODY_B }],
    ['agent v2', AGENT_PREFIX + BODY_B, { ok: true, prefix: AGENT_PREFIX, version: 'v2', body: BODY_B }],
    ['live v1 ending in -', V1_DASH, { ok: true, prefix: LIVE_PREFIX, version: 'v1', body: V1_DASH_BODY }],
    ['live v1 ending in _', V1_UNDER, { ok: true, prefix: LIVE_PREFIX, version: 'v1', body: V1_UNDER_BODY }],
    [
      'test v1',
      TEST_PREFIX + V1_BASE64URL_BODY,
      { ok: true, prefix: TEST_PREFIX, version: 'v1', body: V1_BASE64URL_BODY },
    ],
    ['bad checksum', K2_BAD, { ok: false, reason: 'bad_checksum' }],
    [
      'bad checksum (test prefix)',
      TEST_PREFIX + K2_BAD.slice(LIVE_PREFIX.length),
      { ok: false, reason: 'bad_checksum' },
    ],
    ['bad checksum (case flipped)', LIVE_PREFIX + 'A'.repeat(30) + '0UCPlr', { ok: false, reason: 'bad_checksum' }],
    ['agent with v1 body', AGENT_PREFIX + V1_DASH_BODY, { ok: false, reason: 'bad_shape' }],
    ['35-char body', K2.slice(0, -1), { ok: false, reason: 'bad_shape' }],
    ['37-char body', K2 + 'a', { ok: false, reason: 'bad_shape' }],
    ['36 chars with -', LIVE_PREFIX + BODY_A.slice(0, 35) + '-', { ok: false, reason: 'bad_shape' }],
    ['42-char v1 body', V1_DASH.slice(0, -1), { ok: false, reason: 'bad_shape' }],
    ['44-char v1 body', V1_DASH + 'a', { ok: false, reason: 'bad_shape' }],
    ['v1 body with +', LIVE_PREFIX + 'a'.repeat(42) + '+', { ok: false, reason: 'bad_shape' }],
    ['trailing newline', K2 + '\n', { ok: false, reason: 'bad_shape' }],
    ['prefix only', LIVE_PREFIX, { ok: false, reason: 'bad_shape' }],
    ['leading space', ' ' + K2, { ok: false, reason: 'unknown_prefix' }],
    ['upper-case prefix', 'SVC_LIVE_' + BODY_A, { ok: false, reason: 'unknown_prefix' }],
    ['foreign prefix', 'sk_live_' + BODY_A, { ok: false, reason: 'unknown_prefix' }],
    ['empty', '', { ok: false, reason: 'unknown_prefix' }],
    ['number', 12345, { ok: false, reason: 'not_a_string' }],
    ['undefined', undefined, { ok: false, reason: 'not_a_string' }],
  ])('%s', (_name, key, expected) => {
    expect(inspectApiKey(key)).toEqual(expected);
    const parsed = parseApiKey(key);
    if ((expected as { ok: boolean }).ok) {
      const { ok: _ok, ...rest } = expected as Record<string, unknown>;
      expect(parsed).toEqual(rest);
    } else {
      expect(parsed).toBeNull();
    }
  });

  it('round-trips every arbitrary v2 body for live and test prefixes', () => {
    fc.assert(
      fc.property(fc.constantFrom(LIVE_PREFIX, TEST_PREFIX), base62String(30), (prefix, random) => {
        const body = random + checksumV2(random);
        expect(parseApiKey(prefix + body)).toEqual({ prefix, version: 'v2', body });
      }),
    );
  });

  it('rejects every single-character corruption of the checksum', () => {
    fc.assert(
      fc.property(base62String(30), fc.integer({ min: 30, max: 35 }), base62Char, (random, pos, c) => {
        const body = random + checksumV2(random);
        fc.pre(body[pos] !== c);
        const corrupted = body.slice(0, pos) + c + body.slice(pos + 1);
        expect(inspectApiKey(LIVE_PREFIX + corrupted)).toEqual({ ok: false, reason: 'bad_checksum' });
      }),
    );
  });

  it('accepts every arbitrary v1 body on live keys', () => {
    fc.assert(
      fc.property(v1Body, (body) => {
        expect(parseApiKey(LIVE_PREFIX + body)).toEqual({ prefix: LIVE_PREFIX, version: 'v1', body });
      }),
    );
  });
});

describe('generation', () => {
  it('generateApiKey defaults to svc_live_ v2 and parses back', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^svc_live_[A-Za-z0-9]{36}$/);
      expect(parseApiKey(key)).toEqual({ prefix: LIVE_PREFIX, version: 'v2', body: key.slice(9) });
    }
  });

  it('generateApiKey(svc_test_) and generateAgentToken produce their prefixes', () => {
    const t = generateApiKey(TEST_PREFIX);
    expect(parseApiKey(t)).toEqual({ prefix: TEST_PREFIX, version: 'v2', body: t.slice(9) });
    const a = generateAgentToken();
    expect(a).toMatch(/^svc_agent_[A-Za-z0-9]{36}$/);
    expect(parseApiKey(a)).toEqual({ prefix: AGENT_PREFIX, version: 'v2', body: a.slice(10) });
  });

  it('rejects unknown prefixes', () => {
    expect(() => generateApiKey('sk_live_' as never)).toThrow(TypeError);
  });

  it('produces distinct keys', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey()));
    expect(keys.size).toBe(1000);
  });

  it('uses all 62 characters, each within a broad band of its expected frequency', () => {
    const counts = new Map<string, number>();
    const n = 2000;
    for (let i = 0; i < n; i++) {
      for (const c of generateApiKey().slice(9, 39)) counts.set(c, (counts.get(c) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(BASE62_ALPHABET.split('').sort());
    const expected = (n * 30) / 62; // ≈ 968, σ ≈ 31
    for (const [, count] of counts) {
      expect(count).toBeGreaterThan(expected * 0.7);
      expect(count).toBeLessThan(expected * 1.3);
    }
  });

  it('rejection sampling discards bytes >= 248 instead of reducing them modulo 62', async () => {
    vi.resetModules();
    const bytes = [248, 255, 0, 61, 62, 247, 250, 123];
    vi.doMock('node:crypto', async (importOriginal) => {
      const orig = await importOriginal<typeof import('node:crypto')>();
      return {
        ...orig,
        randomBytes: (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => bytes[i % bytes.length])),
      };
    });
    try {
      const mod = await import('../../core/api-keys.js');
      // 248, 255, 250 rejected; 0→'0', 61→'z', 62→'0', 247→'z', 123→'z' (123 % 62 = 61).
      expect(mod.randomBase62(5)).toBe('0z0zz');
    } finally {
      vi.doUnmock('node:crypto');
      vi.resetModules();
    }
  });
});

describe('maskApiKey', () => {
  it.each([
    [K2, 'svc_live_********CPlr'],
    [V1_DASH, 'svc_live_********_xy-'],
    [TEST_K2, 'svc_test_********pbCX'],
    [AGENT_PREFIX + BODY_B, 'svc_agent_********pbCX'],
    ['ghp_abcdefghijklmnopqrstuvwxyz', '********wxyz'],
    ['svc_live_short', 'svc_live_********'],
    ['tiny', '********'],
    ['', '********'],
  ])('masks %s', (key, expected) => {
    expect(maskApiKey(key)).toBe(expected);
  });

  it('never reveals more than the last 4 body characters', () => {
    const anyKey = fc.oneof(
      fc.string({ maxLength: 80 }),
      base62String(30).map((r) => LIVE_PREFIX + r + checksumV2(r)),
      v1Body.map((b) => LIVE_PREFIX + b),
      fc
        .tuple(fc.constantFrom(LIVE_PREFIX, TEST_PREFIX, AGENT_PREFIX), fc.string({ maxLength: 60 }))
        .map(([p, s]) => p + s),
    );
    fc.assert(
      fc.property(anyKey, (key) => {
        const masked = maskApiKey(key);
        const prefix = [AGENT_PREFIX, LIVE_PREFIX, TEST_PREFIX].find((p) => key.startsWith(p)) ?? '';
        expect(masked.startsWith(prefix + '********')).toBe(true);
        const revealed = masked.slice(prefix.length + 8);
        expect(revealed.length).toBeLessThanOrEqual(4);
        expect(key.endsWith(revealed)).toBe(true);
      }),
    );
  });
});

describe('lookupDigest', () => {
  it('is HMAC-SHA256 in hex (RFC 4231 test case 2)', () => {
    expect(lookupDigest('what do ya want for nothing?', 'Jefe')).toBe(
      '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
    );
  });

  it('is deterministic, depends on the secret and covers the prefix', () => {
    const secret = 'lookup-secret-0123456789abcdef';
    expect(lookupDigest(K2, secret)).toBe(lookupDigest(K2, secret));
    expect(lookupDigest(K2, secret)).not.toBe(lookupDigest(K2, secret + 'x'));
    expect(lookupDigest(K2, secret)).not.toBe(lookupDigest(TEST_PREFIX + BODY_A, secret));
    expect(lookupDigest(K2, Buffer.from(secret))).toBe(lookupDigest(K2, secret));
    expect(lookupDigest(K2, secret)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses an empty secret or key', () => {
    expect(() => lookupDigest(K2, '')).toThrow(TypeError);
    expect(() => lookupDigest(K2, new Uint8Array(0))).toThrow(TypeError);
    expect(() => lookupDigest('', 'secret')).toThrow(TypeError);
  });
});

describe('scanner patterns', () => {
  it('are registered under the contract names', () => {
    expect(SCANNER_PATTERNS.map((p) => [p.name, p.version])).toEqual([
      ['SVC_LIVE_API_KEY', 'v2'],
      ['SVC_LIVE_API_KEY_V1', 'v1'],
    ]);
  });

  it('anchor with charset-complement lookarounds, never \\b', () => {
    expect(SVC_LIVE_API_KEY.source).toBe('(?<![A-Za-z0-9_])svc_live_[A-Za-z0-9]{36}(?![A-Za-z0-9])');
    expect(SVC_LIVE_API_KEY_V1.source).toBe('(?<![A-Za-z0-9_-])svc_live_[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])');
    for (const p of SCANNER_PATTERNS) expect(p.source).not.toContain('\\b');
  });

  it('delimiter-class variants have no lookarounds and capture the key alone in group 1', () => {
    for (const p of SCANNER_PATTERNS) {
      expect(p.delimitedSource).not.toMatch(/\(\?[=!<]/);
      expect(p.delimitedSource).not.toContain('\\b');
    }
    const m2 = new RegExp(SVC_LIVE_API_KEY.delimitedSource).exec(`key="${K2}";`)!;
    expect(m2[0]).toBe(`"${K2}"`);
    expect(m2[1]).toBe(K2);
    const m1 = new RegExp(SVC_LIVE_API_KEY_V1.delimitedSource).exec(`k=${V1_DASH}&x`)!;
    expect(m1[0]).toBe(`=${V1_DASH}&`);
    expect(m1[1]).toBe(V1_DASH);
    expect(new RegExp(SVC_LIVE_API_KEY_V1.delimitedSource).exec(V1_UNDER)![1]).toBe(V1_UNDER);
  });
});

describe('scanForLiveKeys', () => {
  type Case = [name: string, text: string, expected: Array<[key: string, version: 'v1' | 'v2']>];
  const cases: Case[] = [
    ['JSON value', `{"api_key":"${K2}","n":1}`, [[K2, 'v2']]],
    ['JSON v1 ending in -', `{"k":"${V1_DASH}"}`, [[V1_DASH, 'v1']]],
    [
      'JSON array of two keys',
      `["${K2}","${V1_UNDER}"]`,
      [
        [K2, 'v2'],
        [V1_UNDER, 'v1'],
      ],
    ],
    ['URL query, v2', `https://api.example/v1/x?key=${K2}&y=1`, [[K2, 'v2']]],
    ['URL query, v1 ending in -', `https://api.example/x?key=${V1_DASH}&y=1`, [[V1_DASH, 'v1']]],
    ['URL query, v1 ending in _ at end', `https://api.example/x?key=${V1_UNDER}`, [[V1_UNDER, 'v1']]],
    ['.env line', `SVC_API_KEY=${K2}\nOTHER=1\n`, [[K2, 'v2']]],
    ['.env export v1', `export SVC_API_KEY=${V1_B64}\n`, [[V1_B64, 'v1']]],
    ['single quotes', `key = '${K2B}'`, [[K2B, 'v2']]],
    ['double quotes', `key = "${V1_UNDER}"`, [[V1_UNDER, 'v1']]],
    ['back quotes', 'const k = `' + V1_DASH + '`;', [[V1_DASH, 'v1']]],
    ['YAML mapping', `svc:\n  api_key: ${K2}\n  region: eu\n`, [[K2, 'v2']]],
    ['YAML list, v1', `keys:\n  - ${V1_DASH}\n  - other\n`, [[V1_DASH, 'v1']]],
    ['whole text is the key', K2, [[K2, 'v2']]],
    ['whole text is a v1 key', V1_UNDER, [[V1_UNDER, 'v1']]],
    [
      'two keys separated by one space',
      `${K2} ${K2B}`,
      [
        [K2, 'v2'],
        [K2B, 'v2'],
      ],
    ],
    [
      'two v1 keys separated by one comma',
      `${V1_DASH},${V1_UNDER}`,
      [
        [V1_DASH, 'v1'],
        [V1_UNDER, 'v1'],
      ],
    ],
    ['Authorization header', `X-API-Key: ${K2B}\r\n`, [[K2B, 'v2']]],
    ['v2 followed by _ (not a v2 body character)', `${K2}_bak`, [[K2, 'v2']]],
    // 36 + 7 = 43 v1 characters: both readings are reported (over-reporting is harmless).
    [
      'v2 key that is also a 43-char v1 shape',
      `${K2}_backup`,
      [
        [K2, 'v2'],
        [`${K2}_backup`, 'v1'],
      ],
    ],
    ['v2 preceded by - (not a key character before a prefix)', `x-${K2}`, [[K2, 'v2']]],
    // Adjacent to key characters: not a key of its own.
    ['v2 preceded by a letter', `x${K2}`, []],
    ['v2 preceded by a digit', `9${K2}`, []],
    ['v2 preceded by _', `MY_${K2}`, []],
    ['v2 followed by a letter', `${K2}x`, []],
    ['v2 followed by a digit', `${K2}0`, []],
    ['v1 preceded by a letter', `a${V1_DASH}`, []],
    ['v1 preceded by -', `-${V1_DASH}`, []],
    ['v1 preceded by _', `_${V1_UNDER}`, []],
    ['v1 followed by -', `${V1_UNDER}-`, []],
    ['v1 followed by _', `${V1_DASH}_`, []],
    ['v1 followed by a letter', `${V1_DASH}q`, []],
    ['42-char v1 body', `"${V1_DASH.slice(0, -1)}"`, []],
    ['35-char v2 body', `"${K2.slice(0, -1)}"`, []],
    // Never test keys, agent tokens, foreign case.
    ['test key v2', `key=${TEST_K2}`, []],
    ['test key v1', `key=${TEST_PREFIX}${V1_DASH_BODY}`, []],
    ['test prefix glued to a live key', `${TEST_PREFIX}${K2}`, []],
    ['agent token', `X-Agent-Token: ${AGENT_PREFIX}${BODY_B}`, []],
    ['upper-case prefix', `SVC_LIVE_${BODY_A}`, []],
    // Bad checksum is discarded.
    ['bad-checksum v2', `key=${K2_BAD}`, []],
    ['bad-checksum v2 next to a good one', `${K2_BAD} ${K2B}`, [[K2B, 'v2']]],
    ['empty text', '', []],
  ];

  it.each(cases)('%s', (_name, text, expected) => {
    const want = expected.map(([key, version]) => ({
      key,
      version,
      index: text.indexOf(key),
      pattern: version === 'v2' ? 'SVC_LIVE_API_KEY' : 'SVC_LIVE_API_KEY_V1',
    }));
    expect(scanForLiveKeys(text)).toEqual(want);
    expect(scanForLiveKeysDelimited(text)).toEqual(want);
  });

  it('reports the index of the key, not of the delimiter', () => {
    expect(scanForLiveKeys(`abc "${K2}"`)).toEqual([{ key: K2, version: 'v2', index: 5, pattern: 'SVC_LIVE_API_KEY' }]);
  });

  it('finds generated keys inside random delimiter context', () => {
    const v2Before = fc.constantFrom(
      ' ',
      '"',
      "'",
      '`',
      '=',
      ':',
      '/',
      '?',
      '&',
      '\n',
      '\t',
      '{',
      '(',
      ',',
      '-',
      '.',
      '[',
    );
    const v2After = fc.constantFrom(' ', '"', "'", '`', '&', '\n', '}', ')', ',', ';', '_', '-', '.', ']');
    const v1Delim = fc.constantFrom(' ', '"', "'", '`', '=', ':', '/', '?', '&', '\n', '{', '}', ',', ';', '.');
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }),
        v2Before,
        base62String(30),
        v2After,
        fc.string({ maxLength: 30 }),
        (l, b, r30, a, r) => {
          const key = LIVE_PREFIX + r30 + checksumV2(r30);
          const text = l + b + key + a + r;
          const want = { key, version: 'v2', index: l.length + 1, pattern: 'SVC_LIVE_API_KEY' };
          expect(scanForLiveKeys(text)).toContainEqual(want);
          expect(scanForLiveKeysDelimited(text)).toContainEqual(want);
        },
      ),
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }),
        v1Delim,
        v1Body,
        v1Delim,
        fc.string({ maxLength: 30 }),
        (l, b, body, a, r) => {
          const key = LIVE_PREFIX + body;
          const text = l + b + key + a + r;
          expect(scanForLiveKeys(text)).toContainEqual({
            key,
            version: 'v1',
            index: l.length + 1,
            pattern: 'SVC_LIVE_API_KEY_V1',
          });
        },
      ),
    );
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(scanForLiveKeys(`SVC_API_KEY="${key}"`)).toEqual([
        { key, version: 'v2', index: 13, pattern: 'SVC_LIVE_API_KEY' },
      ]);
      expect(scanForLiveKeys(`SVC_API_KEY="${generateApiKey(TEST_PREFIX)}"`)).toEqual([]);
    }
  });

  it('lookaround and delimiter-class scans agree on arbitrary mixtures', () => {
    const fragment = fc.oneof(
      fc.constantFrom(
        K2,
        K2B,
        K2_BAD,
        V1_DASH,
        V1_UNDER,
        V1_B64,
        TEST_K2,
        LIVE_PREFIX,
        'svc_live',
        '_',
        '-',
        ' ',
        '"',
        'a',
        '9',
        '\n',
      ),
      fc.string({ maxLength: 5 }),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 12 }), (parts) => {
        const text = parts.join('');
        expect(scanForLiveKeysDelimited(text)).toEqual(scanForLiveKeys(text));
      }),
      { numRuns: 500 },
    );
  });

  it('never reports a key that fails parseApiKey as a live key', () => {
    const fragment = fc.oneof(
      fc.constantFrom(K2, K2_BAD, V1_DASH, TEST_K2, LIVE_PREFIX),
      base62String(8),
      fc.string({ maxLength: 6 }),
    );
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 10 }), (parts) => {
        for (const m of scanForLiveKeys(parts.join(''))) {
          expect(parseApiKey(m.key)).toEqual({ prefix: LIVE_PREFIX, version: m.version, body: m.key.slice(9) });
        }
      }),
      { numRuns: 300 },
    );
  });
});
