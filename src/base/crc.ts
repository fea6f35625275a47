/**
 * The crc32c mask of LevelDB and RocksDB (util/crc32c.h Mask/Unmask): stored crc32c values are
 * rotated right by 15 bits and offset, so that a crc over bytes that embed crcs stays well-behaved.
 * Block trailers and log (WAL, MANIFEST) records both store masked values.
 *
 *   mask(c)   = ((c >>> 15) | (c << 17)) + 0xa282ead8
 *   unmask(m) = rotl(m − 0xa282ead8, 15)
 */
import { napiRsBinding } from "../util/napi_rs.js";
import { checksumHelper } from "./checksum_helper.js";

// @node-rs/crc32 is CommonJS: imported from ESM, Node first scans its source for export names
// (cjs-module-lexer) and links it as a module, ~6-10 ms of start-up. Loaded on the first crc instead
// (util/napi_rs.ts), and only where the checksum helper is not built (base/checksum_helper.ts).
let native: typeof import("@node-rs/crc32") | undefined;

/** crc32c (Castagnoli) of `data[start, end)`, unmasked; callers apply `>>> 0` (the binding may return it signed). */
export function crc32cRange(data: Uint8Array, start: number, end: number): number {
  const helper = checksumHelper();
  // a range outside the array is a RangeError either way (the helper's; a view's below), which the
  // readers report as a located corruption when it comes from a damaged block
  if (helper) return helper.crc32c(data, start, end);
  native ??= napiRsBinding<typeof import("@node-rs/crc32")>("@node-rs/crc32", "crc32");
  if (start === 0 && end === data.length) return native.crc32c(data);
  if (!(start >= 0 && end <= data.length && start <= end))
    throw new RangeError("checksum range outside its array");
  return native.crc32c(data.subarray(start, end));
}

/** crc32c (Castagnoli) of `data`, unmasked; callers apply `>>> 0`. */
export function crc32c(data: Uint8Array): number {
  return crc32cRange(data, 0, data.length);
}

const MASK_DELTA = 0xa282ead8;

export function maskCrc32c(crc: number): number {
  return ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;
}

/** The masked crc32c of `data`, as the formats store it (compare it with the stored value as is). */
export function maskedCrc32c(data: Uint8Array): number {
  return maskCrc32c(crc32c(data) >>> 0);
}

/** maskedCrc32c of `data[start, end)`, without a view of the range. */
export function maskedCrc32cRange(data: Uint8Array, start: number, end: number): number {
  return maskCrc32c(crc32cRange(data, start, end) >>> 0);
}

export function unmaskCrc32c(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}
