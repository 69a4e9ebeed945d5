import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  TrustedProxyConfigError,
  canonicalIp,
  clientIp,
  normalizeIp,
  parseTrustedProxies,
} from '../../core/client-ip.js';

describe('normalizeIp', () => {
  it.each<[string, string | null | undefined, string | null]>([
    ['IPv4', '1.2.3.4', '1.2.3.4'],
    ['IPv4 with port', '1.2.3.4:5678', '1.2.3.4'],
    ['IPv4 with port 0', '1.2.3.4:0', '1.2.3.4'],
    ['IPv4 with port 65535', '1.2.3.4:65535', '1.2.3.4'],
    ['IPv4 with port 65536', '1.2.3.4:65536', null],
    ['IPv4 with empty port', '1.2.3.4:', null],
    ['IPv4 surrounded by spaces', '  1.2.3.4 ', '1.2.3.4'],
    ['IPv4 leading zero octet', '01.2.3.4', null],
    ['IPv4 octet 256', '1.2.3.256', null],
    ['IPv4 three octets', '1.2.3', null],
    ['IPv4 in brackets', '[1.2.3.4]', null],
    ['IPv6 loopback', '::1', '::1'],
    ['IPv6 loopback, bracketed with port', '[::1]:443', '::1'],
    ['IPv6 bracketed without port', '[2001:db8::1]', '2001:db8::1'],
    ['IPv6 bracketed, port too large', '[::1]:70000', null],
    ['IPv6 upper case', '2001:DB8::A', '2001:db8::a'],
    ['IPv6 fully expanded', '2001:0db8:0000:0000:0000:0000:0000:0001', '2001:db8::1'],
    ['IPv6 all-zero groups spelled out', '0:0:0:0:0:0:0:1', '::1'],
    ['IPv6 unspecified', '::', '::'],
    ['IPv6 longest zero run compressed, first on tie', '1:0:0:2:0:0:3:4', '1::2:0:0:3:4'],
    ['IPv6 longer second zero run', '1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['IPv6 single zero group not compressed', '1:2:3:4:5:6:0:8', '1:2:3:4:5:6:0:8'],
    ['IPv6 zone id', 'fe80::1%eth0', 'fe80::1'],
    ['IPv6 zone id bracketed with port', '[fe80::1%25eth0]:8080', 'fe80::1'],
    ['IPv4-mapped IPv6', '::ffff:1.2.3.4', '1.2.3.4'],
    ['IPv4-mapped IPv6 upper case', '::FFFF:1.2.3.4', '1.2.3.4'],
    ['IPv4-mapped IPv6 in hex', '::ffff:0102:0304', '1.2.3.4'],
    ['IPv4-mapped IPv6 bracketed with port', '[::ffff:10.0.0.7]:1234', '10.0.0.7'],
    ['IPv4-mapped IPv6 fully expanded', '0:0:0:0:0:ffff:c0a8:0001', '192.168.0.1'],
    ['IPv4-compatible (deprecated) stays IPv6', '::1.2.3.4', '::102:304'],
    ['NAT64 well-known prefix stays IPv6', '64:ff9b::1.2.3.4', '64:ff9b::102:304'],
    ['hostname', 'localhost', null],
    ['unbracketed IPv6 with port-looking suffix is an address', '::1:443', '::1:443'],
    ['nine groups', '1:2:3:4:5:6:7:8:9', null],
    ['two ::', '1::2::3', null],
    ['empty', '', null],
    ['only spaces', '   ', null],
    ['undefined', undefined, null],
    ['null', null, null],
    ['zone id on IPv4', '1.2.3.4%eth0', null],
    ['very long', '1'.repeat(100), null],
  ])('%s: %s', (_name, raw, expected) => {
    expect(normalizeIp(raw)).toBe(expected);
  });

  it('agrees with the canonical form of every IPv4 address', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.integer({ min: 0, max: 65535 }), (ip, port) => {
        expect(normalizeIp(ip)).toBe(ip);
        expect(normalizeIp(`${ip}:${port}`)).toBe(ip);
        expect(normalizeIp(`::ffff:${ip}`)).toBe(ip);
        expect(normalizeIp(`[::ffff:${ip}]:${port}`)).toBe(ip);
      }),
    );
  });

  it('is idempotent and spelling-independent on IPv6', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 8, maxLength: 8 }), (groups) => {
        const expanded = groups.map((g) => g.toString(16).padStart(4, '0')).join(':');
        const short = groups.map((g) => g.toString(16).toUpperCase()).join(':');
        const c = normalizeIp(expanded);
        expect(c).not.toBeNull();
        expect(normalizeIp(short)).toBe(c);
        expect(normalizeIp(`[${expanded}]:80`)).toBe(c);
        expect(normalizeIp(c)).toBe(c);
        expect(canonicalIp(c!)).toBe(c);
      }),
    );
  });
});

describe('parseTrustedProxies', () => {
  it.each<[string, string | undefined, string[]]>([
    ['undefined', undefined, []],
    ['empty', '', []],
    ['blanks and commas', ' , ,', []],
    ['single IPv4', '10.0.0.1', ['10.0.0.1']],
    ['IPv4 CIDR', '10.0.0.0/8', ['10.0.0.0/8']],
    ['IPv4 CIDR with host bits set', '10.1.2.3/8', ['10.0.0.0/8']],
    ['IPv4 /32 and /0', '192.0.2.1/32,0.0.0.0/0', ['192.0.2.1/32', '0.0.0.0/0']],
    ['IPv6 address', '::1', ['::1']],
    ['IPv6 CIDR', '2001:DB8:0:0:1::/48', ['2001:db8::/48']],
    ['IPv6 /128', 'fd00::5/128', ['fd00::5/128']],
    ['IPv6 /0', '::/0', ['::/0']],
    ['IPv4-mapped address', '::ffff:10.0.0.9', ['10.0.0.9']],
    ['IPv4-mapped range', '::ffff:192.168.0.0/112', ['192.168.0.0/16']],
    [
      'mixed list with spaces',
      ' 10.0.0.0/8 , 172.16.0.0/12,::1 ,fd00::/8 ',
      ['10.0.0.0/8', '172.16.0.0/12', '::1', 'fd00::/8'],
    ],
  ])('%s', (_name, csv, entries) => {
    expect(parseTrustedProxies(csv).entries).toEqual(entries);
  });

  it.each([
    ['hostname', 'proxy.internal'],
    ['IPv4 prefix 33', '10.0.0.0/33'],
    ['IPv6 prefix 129', 'fd00::/129'],
    ['negative prefix', '10.0.0.0/-1'],
    ['prefix with leading zero', '10.0.0.0/08'],
    ['empty prefix', '10.0.0.0/'],
    ['two slashes', '10.0.0.0/8/8'],
    ['port', '10.0.0.1:8080'],
    ['brackets', '[::1]'],
    ['zone id', 'fe80::1%eth0'],
    ['leading-zero octet', '010.0.0.1'],
    ['IPv4-mapped range below /96', '::ffff:0.0.0.0/95'],
    ['one bad entry among good ones', '10.0.0.1, 10.0.0.300, ::1'],
    ['space inside an entry', '10.0.0.1 10.0.0.2'],
  ])('throws on %s', (_name, csv) => {
    expect(() => parseTrustedProxies(csv)).toThrow(TrustedProxyConfigError);
  });

  it('names the invalid entry in the message', () => {
    expect(() => parseTrustedProxies('10.0.0.1, 10.0.0.300')).toThrow(
      'SVC_AUTH_TRUSTED_PROXIES: invalid entry "10.0.0.300": expected an IPv4/IPv6 address or CIDR range',
    );
    expect(() => parseTrustedProxies('10.0.0.0/33')).toThrow(
      'SVC_AUTH_TRUSTED_PROXIES: invalid entry "10.0.0.0/33": IPv4 prefix length must be at most 32',
    );
  });

  it.each<[string, string, string, boolean]>([
    ['IPv4 /24 first', '192.0.2.0/24', '192.0.2.0', true],
    ['IPv4 /24 last', '192.0.2.0/24', '192.0.2.255', true],
    ['IPv4 /24 below', '192.0.2.0/24', '192.0.1.255', false],
    ['IPv4 /24 above', '192.0.2.0/24', '192.0.3.0', false],
    ['IPv4 /31 both', '198.51.100.6/31', '198.51.100.7', true],
    ['IPv4 /31 outside', '198.51.100.6/31', '198.51.100.8', false],
    ['IPv4 /32 exact', '203.0.113.9/32', '203.0.113.9', true],
    ['IPv4 /32 neighbour', '203.0.113.9/32', '203.0.113.10', false],
    ['IPv4 /0 anything', '0.0.0.0/0', '8.8.8.8', true],
    ['IPv4 /0 is not IPv6', '0.0.0.0/0', '2001:db8::1', false],
    ['single address', '10.0.0.1', '10.0.0.1', true],
    ['single address neighbour', '10.0.0.1', '10.0.0.2', false],
    ['IPv6 /64 inside', '2001:db8:1:2::/64', '2001:db8:1:2:ffff:ffff:ffff:ffff', true],
    ['IPv6 /64 outside', '2001:db8:1:2::/64', '2001:db8:1:3::', false],
    ['IPv6 /127', 'fd00::/127', 'fd00::1', true],
    ['IPv6 /127 outside', 'fd00::/127', 'fd00::2', false],
    ['IPv6 loopback', '::1', '::1', true],
    ['IPv6 /0 is not IPv4', '::/0', '10.0.0.1', false],
    ['mapped entry matches IPv4 peer', '::ffff:10.0.0.9', '10.0.0.9', true],
    ['mapped spelling of an IPv4 peer', '10.0.0.0/8', '::ffff:10.0.0.9', true],
    ['mapped IPv6 range does not trust all IPv4', '::/0', '::ffff:10.0.0.9', false],
    ['host-bit entry masks', '10.1.2.3/16', '10.1.200.1', true],
  ])('contains: %s', (_name, csv, address, expected) => {
    expect(parseTrustedProxies(csv).contains(address)).toBe(expected);
  });

  it('contains() is false for anything that is not an address', () => {
    const t = parseTrustedProxies('0.0.0.0/0,::/0');
    expect(t.contains('localhost')).toBe(false);
    expect(t.contains('')).toBe(false);
  });
});

describe('clientIp', () => {
  const NONE = parseTrustedProxies('');
  const LB = parseTrustedProxies('10.0.0.0/8, fd00::/8, 127.0.0.1');

  it.each<[string, string | undefined, string | string[] | undefined, string | null]>([
    // No trusted proxies: the peer is the key, X-Forwarded-For is ignored.
    ['untrusted peer, no header', '203.0.113.5', undefined, '203.0.113.5'],
    ['untrusted peer spoofs XFF', '203.0.113.5', '1.1.1.1', '203.0.113.5'],
    ['untrusted peer spoofs a list', '203.0.113.5', '1.1.1.1, 2.2.2.2', '203.0.113.5'],
    ['untrusted peer with port', '203.0.113.5:51000', '1.1.1.1', '203.0.113.5'],
    ['untrusted IPv4-mapped peer', '::ffff:203.0.113.5', '1.1.1.1', '203.0.113.5'],
    ['untrusted IPv6 peer', '2001:db8::7', '1.1.1.1', '2001:db8::7'],
  ])('no trusted proxies: %s', (_name, peer, xff, expected) => {
    expect(clientIp(peer, xff, NONE)).toBe(expected);
  });

  it.each<[string, string | undefined, string | string[] | undefined, string | null]>([
    ['peer outside the trusted ranges is still the key', '11.0.0.1', '1.1.1.1', '11.0.0.1'],
    ['trusted peer, one hop', '10.1.2.3', '198.51.100.20', '198.51.100.20'],
    ['trusted peer, rightmost hop of a list', '10.1.2.3', '6.6.6.6, 198.51.100.20', '198.51.100.20'],
    [
      'trusted peer, spoofed leftmost entries ignored',
      '10.1.2.3',
      '127.0.0.1, 10.9.9.9, 198.51.100.20',
      '198.51.100.20',
    ],
    ['trusted peer, hop with port', '10.1.2.3', '198.51.100.20:4711', '198.51.100.20'],
    ['trusted peer, IPv6 hop bracketed with port', '10.1.2.3', '[2001:db8::42]:443', '2001:db8::42'],
    ['trusted peer, IPv6 hop', '10.1.2.3', '1.1.1.1, 2001:DB8::42', '2001:db8::42'],
    ['trusted peer, IPv4-mapped hop', '10.1.2.3', '::ffff:198.51.100.20', '198.51.100.20'],
    ['trusted IPv4-mapped peer', '::ffff:10.1.2.3', '198.51.100.20', '198.51.100.20'],
    ['trusted IPv6 peer', 'fd00::1', '198.51.100.20', '198.51.100.20'],
    ['trusted peer with port', '127.0.0.1:39000', '198.51.100.20', '198.51.100.20'],
    ['repeated headers as array', '10.1.2.3', ['6.6.6.6', '198.51.100.20'], '198.51.100.20'],
    ['repeated headers joined by Node', '10.1.2.3', '6.6.6.6, 198.51.100.20', '198.51.100.20'],
    ['hop surrounded by spaces', '10.1.2.3', '  198.51.100.20  ', '198.51.100.20'],
    // Absent, empty or malformed rightmost hop: the trusted peer itself (one shared bucket).
    ['trusted peer, no header', '10.1.2.3', undefined, '10.1.2.3'],
    ['trusted peer, empty header', '10.1.2.3', '', '10.1.2.3'],
    ['trusted peer, whitespace header', '10.1.2.3', '   ', '10.1.2.3'],
    ['trusted peer, empty array', '10.1.2.3', [], '10.1.2.3'],
    ['trusted peer, trailing comma', '10.1.2.3', '198.51.100.20,', '10.1.2.3'],
    ['trusted peer, garbage hop', '10.1.2.3', '1.1.1.1, not-an-ip', '10.1.2.3'],
    ['trusted peer, obfuscated hop', '10.1.2.3', '1.1.1.1, unknown', '10.1.2.3'],
    ['trusted peer, hop with bad port', '10.1.2.3', '198.51.100.20:99999', '10.1.2.3'],
    ['trusted peer, RFC 7239 syntax is not XFF', '10.1.2.3', 'for=198.51.100.20', '10.1.2.3'],
    ['trusted peer, leading-zero octet', '10.1.2.3', '198.051.100.20', '10.1.2.3'],
    // Unusable peer.
    ['missing peer', undefined, '198.51.100.20', null],
    ['empty peer', '', '198.51.100.20', null],
    ['garbage peer', 'nonsense', '198.51.100.20', null],
  ])('trusted proxies: %s', (_name, peer, xff, expected) => {
    expect(clientIp(peer, xff, LB)).toBe(expected);
  });

  it('an untrusted peer always gets its own bucket, whatever X-Forwarded-For says', () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.string({ maxLength: 60 }), (peer, xff) => {
        fc.pre(!peer.startsWith('10.') && peer !== '127.0.0.1');
        expect(clientIp(peer, xff, LB)).toBe(peer);
      }),
    );
  });

  it('a trusted peer yields the rightmost hop for any well-formed list', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.ipV4(), fc.ipV6()), { minLength: 1, maxLength: 5 }), (hops) => {
        expect(clientIp('10.0.0.1', hops.join(', '), LB)).toBe(canonicalIp(hops[hops.length - 1]));
      }),
    );
  });
});
