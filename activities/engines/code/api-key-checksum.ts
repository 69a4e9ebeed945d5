// The v2 `svc_live_` key checksum of the contract ("API key" section): CRC32 (IEEE) over the
// ASCII bytes of the first 30 body characters, Base62-encoded most significant digit first
// and left-padded with `0` to width 6. Implemented here (table-driven CRC32) so the scanner
// does not depend on node:zlib's crc32, which only exists from Node 20.15 / 22.2.

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

const CRC_TABLE: Uint32Array = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32/ISO-HDLC (the zlib/IEEE 802.3 CRC) of the bytes. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Base62 of a non-negative integer, most significant digit first, left-padded with `0` to `width`. */
export function base62(value: number, width: number): string {
  let out = '';
  let v = value;
  do {
    out = BASE62[v % 62] + out;
    v = Math.floor(v / 62);
  } while (v > 0);
  return out.padStart(width, '0');
}

/** The 6-character checksum of a v2 key body's first 30 characters. */
export function v2Checksum(first30: string): string {
  return base62(crc32(Buffer.from(first30, 'ascii')), 6);
}

/** True when a 36-character v2 body carries the checksum of its first 30 characters. */
export function isValidV2Body(body: string): boolean {
  return /^[A-Za-z0-9]{36}$/.test(body) && v2Checksum(body.slice(0, 30)) === body.slice(30);
}
