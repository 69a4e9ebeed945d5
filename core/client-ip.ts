// Client IP for the per-IP limit on anonymous /auth/* (contract "Limits → Per-IP limit").
//
// The direct peer address is the key. X-Forwarded-For is attacker-controlled unless a proxy we
// trust wrote it, so it is ignored unless the peer matches SVC_AUTH_TRUSTED_PROXIES; then the
// rightmost hop (the one that proxy appended) is used. Addresses are canonicalised so that one
// client cannot spread itself over several buckets by spelling its address differently
// (ports, brackets, zone ids, IPv4-mapped IPv6, zero-compression, hex case).

import { BlockList, isIPv4, isIPv6 } from 'node:net';

// ---------------------------------------------------------------------------------------
// Address parsing and canonical form
// ---------------------------------------------------------------------------------------

/** Eight 16-bit groups of an IPv6 address, or null if `s` is not a bare IPv6 address. */
function ipv6Groups(s: string): number[] | null {
  if (!isIPv6(s) || s.includes('%')) return null;
  let text = s;
  // Embedded dotted IPv4 in the last 32 bits (e.g. ::ffff:1.2.3.4): rewrite as two hex groups.
  const lastColon = text.lastIndexOf(':');
  const last = text.slice(lastColon + 1);
  if (last.includes('.')) {
    if (!isIPv4(last)) return null;
    const o = last.split('.').map(Number);
    text = text.slice(0, lastColon + 1) + (((o[0] << 8) | o[1]).toString(16) + ':' + ((o[2] << 8) | o[3]).toString(16));
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (h: string): number[] => (h === '' ? [] : h.split(':').map((g) => parseInt(g, 16)));
  let groups: number[];
  if (halves.length === 2) {
    const head = parse(halves[0]);
    const rest = parse(halves[1]);
    const zeros = 8 - head.length - rest.length;
    if (zeros < 0) return null;
    groups = [...head, ...new Array<number>(zeros).fill(0), ...rest];
  } else {
    groups = parse(text);
  }
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  return groups;
}

function isMappedV4(g: number[]): boolean {
  return g[0] === 0 && g[1] === 0 && g[2] === 0 && g[3] === 0 && g[4] === 0 && g[5] === 0xffff;
}

function mappedToV4(g: number[]): string {
  return [g[6] >> 8, g[6] & 0xff, g[7] >> 8, g[7] & 0xff].join('.');
}

/** RFC 5952 text form: lowercase, no leading zeros, longest run (≥ 2) of zero groups as '::'. */
function formatIPv6(g: number[]): string {
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (g[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = g.map((x) => x.toString(16));
  if (bestLen < 2) return hex.join(':');
  return hex.slice(0, bestStart).join(':') + '::' + hex.slice(bestStart + bestLen).join(':');
}

/**
 * Canonical form of a bare IP address (no port, no brackets): IPv4 as dotted quad (Node's
 * isIPv4 already rejects leading zeros and out-of-range octets), IPv4-mapped IPv6 as IPv4,
 * other IPv6 per RFC 5952. Null when not an address.
 */
export function canonicalIp(address: string): string | null {
  if (isIPv4(address)) return address;
  const g = ipv6Groups(address);
  if (g === null) return null;
  return isMappedV4(g) ? mappedToV4(g) : formatIPv6(g);
}

const V4_WITH_PORT_RE = /^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$/;
const BRACKETED_V6_RE = /^\[([^\]]+)\](?::(\d{1,5}))?$/;

/**
 * Canonical address from a peer address or a forwarded hop as it appears on the wire:
 * strips `:port` from IPv4, `[…]` and `]:port` from IPv6, and an IPv6 zone id (`%eth0`).
 * A bare IPv6 address is never port-stripped (its colons are ambiguous). Null when malformed.
 */
export function normalizeIp(raw: string | null | undefined): string | null {
  if (typeof raw !== 'string') return null;
  let s = raw.trim();
  if (s.length === 0 || s.length > 64) return null;
  const v4 = V4_WITH_PORT_RE.exec(s);
  const br = BRACKETED_V6_RE.exec(s);
  const port = v4?.[2] ?? br?.[2];
  if (port !== undefined && Number(port) > 65535) return null;
  if (v4) s = v4[1];
  else if (br) {
    s = br[1];
    if (!s.includes(':')) return null; // brackets are only for IPv6
  }
  const zone = s.indexOf('%');
  if (zone !== -1) {
    if (!s.includes(':')) return null; // zone ids exist only on IPv6
    s = s.slice(0, zone);
  }
  return canonicalIp(s);
}

// ---------------------------------------------------------------------------------------
// Trusted proxies
// ---------------------------------------------------------------------------------------

export interface TrustedProxies {
  /** Canonical entries (`10.0.0.0/8`, `::1`), host bits of ranges cleared. */
  readonly entries: readonly string[];
  /** Whether a bare address is a trusted proxy (IPv4 only against IPv4 entries, IPv6 against IPv6). */
  contains(address: string): boolean;
}

export class TrustedProxyConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrustedProxyConfigError';
  }
}

const PREFIX_RE = /^(0|[1-9][0-9]{0,2})$/;

function v4ToInt(a: string): number {
  return a.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
}

function intToV4(n: number): string {
  return [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff].join('.');
}

function maskV4(address: string, prefix: number): string {
  const mask = prefix === 0 ? 0 : (0xffffffff << (32 - prefix)) >>> 0;
  return intToV4((v4ToInt(address) & mask) >>> 0);
}

function maskV6(g: number[], prefix: number): number[] {
  return g.map((x, i) => {
    const bits = Math.min(16, Math.max(0, prefix - i * 16));
    return bits === 0 ? 0 : x & ((0xffff << (16 - bits)) & 0xffff);
  });
}

/**
 * Parses SVC_AUTH_TRUSTED_PROXIES: comma-separated IPv4/IPv6 addresses and CIDR ranges;
 * blanks are ignored, so undefined or '' means "trust no proxy". Any invalid entry throws
 * TrustedProxyConfigError naming it (the server should refuse to start). An IPv4-mapped IPv6
 * entry is stored as IPv4 because peer addresses are normalised the same way.
 */
export function parseTrustedProxies(csv: string | null | undefined): TrustedProxies {
  // Separate lists per family: BlockList would otherwise match an IPv4 address against IPv6
  // ranges covering ::ffff:0:0/96 (so `::/0` would silently trust every IPv4 peer).
  const v4 = new BlockList();
  const v6 = new BlockList();
  const entries: string[] = [];
  const raw =
    typeof csv === 'string'
      ? csv
          .split(',')
          .map((e) => e.trim())
          .filter((e) => e.length > 0)
      : [];
  for (const entry of raw) {
    const bad = (why: string): never => {
      throw new TrustedProxyConfigError(`SVC_AUTH_TRUSTED_PROXIES: invalid entry ${JSON.stringify(entry)}: ${why}`);
    };
    const slash = entry.indexOf('/');
    const addrText = slash === -1 ? entry : entry.slice(0, slash);
    if (addrText.includes('%') || addrText.includes('['))
      bad('expected a bare IP address (no zone id, brackets or port)');
    if (!isIPv4(addrText) && !isIPv6(addrText)) bad('expected an IPv4/IPv6 address or CIDR range');
    if (slash === -1) {
      const ip = canonicalIp(addrText) ?? bad('expected an IPv4/IPv6 address or CIDR range');
      if (isIPv4(ip)) v4.addAddress(ip, 'ipv4');
      else v6.addAddress(ip, 'ipv6');
      entries.push(ip);
      continue;
    }
    const prefixText = entry.slice(slash + 1);
    if (!PREFIX_RE.test(prefixText)) bad('prefix length must be a decimal integer');
    let prefix = Number(prefixText);
    if (isIPv4(addrText)) {
      if (prefix > 32) bad('IPv4 prefix length must be at most 32');
      const net = maskV4(addrText, prefix);
      v4.addSubnet(net, prefix, 'ipv4');
      entries.push(`${net}/${prefix}`);
      continue;
    }
    if (prefix > 128) bad('IPv6 prefix length must be at most 128');
    const g = ipv6Groups(addrText) ?? bad('expected an IPv4/IPv6 address or CIDR range');
    if (isMappedV4(g)) {
      if (prefix < 96) bad('an IPv4-mapped range needs a prefix length of at least 96; write it in IPv4 notation');
      prefix -= 96;
      const net = maskV4(mappedToV4(g), prefix);
      v4.addSubnet(net, prefix, 'ipv4');
      entries.push(`${net}/${prefix}`);
      continue;
    }
    const net = formatIPv6(maskV6(g, prefix));
    v6.addSubnet(net, prefix, 'ipv6');
    entries.push(`${net}/${prefix}`);
  }
  return {
    entries,
    contains(address: string): boolean {
      const ip = canonicalIp(address);
      if (ip === null) return false;
      return isIPv4(ip) ? v4.check(ip, 'ipv4') : v6.check(ip, 'ipv6');
    },
  };
}

// ---------------------------------------------------------------------------------------
// Client IP
// ---------------------------------------------------------------------------------------

/**
 * The rate-limit key for a request. `peerAddress` is the socket's remote address;
 * `xForwardedFor` is the raw header (Node joins repeated headers with ', '; an array is also
 * accepted). Returns null only when the peer address itself is unusable — the caller should
 * then use one shared fallback bucket, never skip the limit.
 *
 * Untrusted peer: its own address, whatever the header says. Trusted peer: the rightmost hop
 * of X-Forwarded-For; when the header is absent, or that hop is empty or malformed, the peer's
 * address (so garbage headers cannot mint fresh buckets).
 */
export function clientIp(
  peerAddress: string | null | undefined,
  xForwardedFor: string | readonly string[] | null | undefined,
  trusted: TrustedProxies,
): string | null {
  const peer = normalizeIp(peerAddress);
  if (peer === null) return null;
  if (!trusted.contains(peer)) return peer;
  const header =
    typeof xForwardedFor === 'string' ? xForwardedFor : Array.isArray(xForwardedFor) ? xForwardedFor.join(',') : '';
  if (header.trim().length === 0) return peer;
  const hops = header.split(',');
  return normalizeIp(hops[hops.length - 1]) ?? peer;
}
