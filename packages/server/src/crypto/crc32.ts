/**
 * CRC-32 as used by zlib, PNG and Ethernet (CRC-32/IEEE 802.3, a.k.a. CRC-32/ISO-HDLC): reflected polynomial
 * 0xEDB88320, initial value 0xFFFFFFFF, final XOR 0xFFFFFFFF. Check value: crc32("123456789") = 0xcbf43926.
 *
 * A checksum, not a security primitive: it catches typos and truncated copy-pastes in API keys, and lets secret
 * scanners tell a real key from random text without asking us. Anyone can compute a valid CRC, so it proves nothing
 * about who made a key.
 */

const TABLE = buildTable();

function buildTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let bit = 0; bit < 8; bit++) {
      c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    }
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32/IEEE of `bytes`, as an unsigned 32-bit integer. */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc = TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** CRC-32/IEEE of the UTF-8 bytes of `text`, as 8 lowercase hex characters. */
export function crc32Hex(text: string): string {
  return crc32(new TextEncoder().encode(text)).toString(16).padStart(8, "0");
}
