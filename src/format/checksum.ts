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
import { maskedCrc32cRange } from "../base/crc.js";
import { checksumHelper } from "../base/checksum_helper.js";
import { ChecksumType } from "../base/checksum_type.js";
import { napiRsBinding } from "../util/napi_rs.js";
import { WasmHasher } from "../util/wasm_hasher.js";

// xxHash loads on the first xxHash-checksummed block (crc32c is the default of every format up to
// 5 and of LevelDB): ~7 ms less start-up per thread on most stores.
const require = createRequire(import.meta.url);
let xxhash: typeof import("@node-rs/xxhash") | undefined;
const xx = () => (xxhash ??= napiRsBinding<typeof import("@node-rs/xxhash")>("@node-rs/xxhash", "xxhash"));

/**
 * XXH3 through hash-wasm's WebAssembly build, once this thread has loaded it (prepareChecksums()):
 * the native binding's XXH3 runs at ~2.5 GB/s (1.6 us per 4 KiB block, 6 us per 16 KiB; its XXH64
 * and crc32c are 5-10x faster), the WASM one 3x faster, and a full scan checks every block. Both give
 * the same value; the native one stays for everything read before the WASM module is ready.
 */
const wasmXxh3 = new WasmHasher(() =>
  (require("hash-wasm/dist/xxhash3.umd.min.js") as typeof import("hash-wasm")).createXXHash3(),
);

/**
 * Start loading the WASM XXH3 on this thread (compiled off the main thread; ~15 ms to ready); await
 * before a scan that checks many blocks. Failing to load leaves the native binding in use. Nothing to
 * load where the checksum helper is built (base/checksum_helper.ts): its XXH3 is faster still.
 */
export function prepareChecksums(): Promise<void> {
  return checksumHelper() ? Promise.resolve() : wasmXxh3.prepare();
}

/** Lower 32 bits of XXH3-64 (seed 0) of `data`. */
function xxh3Low32(data: Uint8Array): number {
  const h = wasmXxh3.hasher;
  if (h === undefined) return Number(BigInt.asUintN(32, xx().xxh3.xxh64(data)));
  h.init();
  h.update(data);
  const d = h.digest("binary"); // big-endian: the low 32 bits are the last four bytes
  return ((d[4]! << 24) | (d[5]! << 16) | (d[6]! << 8) | d[7]!) >>> 0;
}

/** `buf[start, end)` as a Buffer view (the xxHash binding takes Buffers). */
function rangeBuffer(buf: Uint8Array, start: number, end: number): Buffer {
  return Buffer.from(buf.buffer, buf.byteOffset + start, end - start);
}

/** ComputeBuiltinChecksum(type, data): checksum over all of `data` (its last byte is the "type" byte). */
export function computeChecksum(type: ChecksumType, data: Uint8Array): number {
  return computeChecksumRange(type, data, 0, data.length);
}

/**
 * computeChecksum over `buf[start, end)` without making a Buffer of the range: the scan checks every
 * block, and a Buffer view (subarray) per block, with XXH3 a second one and a BigInt mask, cost a
 * fifth of the check itself.
 */
export function computeChecksumRange(
  type: ChecksumType,
  buf: Uint8Array,
  start: number,
  end: number,
): number {
  const helper = checksumHelper();
  switch (type) {
    case ChecksumType.CRC32c:
      return maskedCrc32cRange(buf, start, end);
    case ChecksumType.XXHash:
      if (helper) return helper.xxh32(buf, start, end);
      return xx().xxh32(rangeBuffer(buf, start, end), 0) >>> 0;
    case ChecksumType.XXHash64:
      if (helper) return helper.xxh64Low32(buf, start, end);
      return Number(xx().xxh64(rangeBuffer(buf, start, end), 0n) & 0xffffffffn);
    case ChecksumType.XXH3: {
      if (end <= start) return 0;
      const v = helper
        ? helper.xxh3Low32(buf, start, end - 1)
        : xxh3Low32(new Uint8Array(buf.buffer, buf.byteOffset + start, end - 1 - start));
      return (v ^ Math.imul(buf[end - 1]!, 0x6b9083d9)) >>> 0;
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
