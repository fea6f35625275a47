/**
 * Block and footer checksums (table/format.cc ComputeBuiltinChecksum, table/format.h
 * ChecksumModifierForContext, util/crc32c.h Mask).
 *
 * Every block is followed by a 5-byte trailer: compression type (1 byte) and a fixed32 checksum over
 * the stored block bytes plus that type byte:
 *   crc32c   : masked crc32c, mask(c) = ((c >>> 15) | (c << 17)) + 0xa282ead8
 *   xxHash   : XXH32(seed 0)
 *   xxHash64 : lower 32 bits of XXH64(seed 0)
 *   XXH3     : lower 32 bits of XXH3-64(block bytes without the type byte)
 *              XOR (type byte * 0x6b9083d9 mod 2^32)
 * From format_version 6 the stored value also has ChecksumModifierForContext(base, blockOffset) added
 * (mod 2^32): base ^ (lower32(offset) + upper32(offset)), or 0 when base is 0.
 */
import { createRequire } from "node:module";
import { crc32c, maskCrc32c } from "../base/crc.js";
import { ChecksumType } from "../base/checksum_type.js";

// xxHash loads on the first xxHash-checksummed block (crc32c is the default of every format up to
// 5 and of LevelDB): ~7 ms less start-up per thread on most stores.
const require = createRequire(import.meta.url);
let xxhash: typeof import("@node-rs/xxhash") | undefined;
const xx = () => (xxhash ??= require("@node-rs/xxhash") as typeof import("@node-rs/xxhash"));

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/** ComputeBuiltinChecksum(type, data): checksum over all of `data` (its last byte is the "type" byte). */
export function computeChecksum(type: ChecksumType, data: Uint8Array): number {
  const b = asBuffer(data);
  switch (type) {
    case ChecksumType.CRC32c:
      return maskCrc32c(crc32c(b) >>> 0);
    case ChecksumType.XXHash:
      return xx().xxh32(b, 0) >>> 0;
    case ChecksumType.XXHash64:
      return Number(xx().xxh64(b, 0n) & 0xffffffffn);
    case ChecksumType.XXH3: {
      if (b.length === 0) return 0;
      const v = Number(xx().xxh3.xxh64(b.subarray(0, b.length - 1)) & 0xffffffffn);
      return (v ^ Math.imul(b[b.length - 1]!, 0x6b9083d9)) >>> 0;
    }
    default:
      return 0;
  }
}

export function checksumModifierForContext(base: number, offset: number): number {
  if (base === 0) return 0;
  const lo = offset >>> 0;
  const hi = Math.floor(offset / 4294967296) >>> 0;
  return (base ^ ((lo + hi) >>> 0)) >>> 0;
}
