/**
 * Snappy raw-format decoder (what RocksDB and LevelDB store for Snappy blocks), in JS so a scan decodes
 * into one reused buffer with no native call or allocation per block.
 *
 *   stream  := uncompressed length varint32, element*
 *   element := tag byte, low 2 bits:
 *     00 literal: length-1 in the upper 6 bits (< 60), or in the next 1-4 LE bytes (60..63)
 *     01 copy, 1-byte offset: length 4 + bits 2-4, offset = bits 5-7 << 8 | next byte
 *     10 copy, 2-byte offset: length 1 + bits 2-7, offset fixed16 LE
 *     11 copy, 4-byte offset: length 1 + bits 2-7, offset fixed32 LE
 */

export class SnappyError extends Error {}

/** Uncompressed length from the stream's preamble, and where the elements start. */
export function snappyLength(src: Buffer, ip: number, iend: number): [length: number, start: number] {
  let result = 0;
  for (let shift = 0; shift <= 28; shift += 7) {
    if (ip >= iend) throw new SnappyError("truncated length preamble");
    const b = src[ip++]!;
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [result, ip];
  }
  throw new SnappyError("bad length preamble");
}

/** Decode elements `src[ip, iend)` into `dst[op, op + size)`. Returns bytes written. */
export function snappyDecode(
  src: Buffer,
  ip: number,
  iend: number,
  dst: Buffer,
  op: number,
  size: number,
): number {
  const start = op;
  const oend = op + size;
  while (ip < iend) {
    const tag = src[ip++]!;
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const extra = len - 59;
        if (ip + extra > iend) throw new SnappyError("truncated literal length");
        len = 0;
        for (let i = extra - 1; i >= 0; i--) len = len * 256 + src[ip + i]!;
        ip += extra;
      }
      len += 1;
      if (ip + len > iend || op + len > oend) throw new SnappyError("literal runs past the block");
      if (len < 256) for (let i = 0; i < len; i++) dst[op + i] = src[ip + i]!;
      else dst.set(src.subarray(ip, ip + len), op);
      ip += len;
      op += len;
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      if (ip >= iend) throw new SnappyError("truncated copy");
      len = ((tag >>> 2) & 7) + 4;
      offset = ((tag >>> 5) << 8) | src[ip++]!;
    } else if (kind === 2) {
      if (ip + 2 > iend) throw new SnappyError("truncated copy");
      len = (tag >>> 2) + 1;
      offset = src[ip]! | (src[ip + 1]! << 8);
      ip += 2;
    } else {
      if (ip + 4 > iend) throw new SnappyError("truncated copy");
      len = (tag >>> 2) + 1;
      offset = (src[ip]! | (src[ip + 1]! << 8) | (src[ip + 2]! << 16) | (src[ip + 3]! << 24)) >>> 0;
      ip += 4;
    }
    let from = op - offset;
    if (offset === 0 || from < start) throw new SnappyError(`bad copy offset ${offset}`);
    if (op + len > oend) throw new SnappyError("copy runs past the block");
    if (offset >= len) {
      for (let i = 0; i < len; i++) dst[op + i] = dst[from + i]!;
      op += len;
    } else {
      const end = op + len;
      while (op < end) dst[op++] = dst[from++]!;
    }
  }
  return op - start;
}
