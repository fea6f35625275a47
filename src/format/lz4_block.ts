/**
 * LZ4 block decoder (the raw block format RocksDB writes after its varint32 size prefix), in JS so a
 * scan decodes into one reused buffer with no native call or allocation per block.
 *
 *   sequence := token (literal length hi nibble, match length lo nibble)
 *               [literal length continuation: bytes while 255] literals
 *               match offset fixed16 LE [match length continuation] (match length = nibble + 4)
 *   The last sequence has literals only. A dictionary (RocksDB "rocksdb.compression_dict") is the
 *   history before the first output byte: matches may reach back into it.
 */

export class Lz4Error extends Error {}

/**
 * Decode `src[ip, iend)` into `dst[op, op + size)`; `dst[op - dictLen, op)` must already hold the
 * dictionary (its last `dictLen` bytes). Returns the number of bytes written (must equal `size`).
 */
export function lz4DecodeBlock(
  src: Buffer,
  ip: number,
  iend: number,
  dst: Buffer,
  op: number,
  size: number,
  dictLen = 0,
): number {
  const start = op;
  const oend = op + size;
  const lowest = start - dictLen;
  while (ip < iend) {
    const token = src[ip++]!;
    let lit = token >>> 4;
    if (lit === 15) {
      let b: number;
      do {
        if (ip >= iend) throw new Lz4Error("literal length runs past the input");
        b = src[ip++]!;
        lit += b;
      } while (b === 255);
    }
    if (lit > 0) {
      if (ip + lit > iend || op + lit > oend) throw new Lz4Error("literals run past the block");
      if (lit < 256) {
        for (let i = 0; i < lit; i++) dst[op + i] = src[ip + i]!;
      } else {
        dst.set(src.subarray(ip, ip + lit), op);
      }
      ip += lit;
      op += lit;
    }
    if (ip >= iend) break; // last sequence: literals only
    if (ip + 2 > iend) throw new Lz4Error("truncated match offset");
    const offset = src[ip]! | (src[ip + 1]! << 8);
    ip += 2;
    let mlen = (token & 15) + 4;
    if ((token & 15) === 15) {
      let b: number;
      do {
        if (ip >= iend) throw new Lz4Error("match length runs past the input");
        b = src[ip++]!;
        mlen += b;
      } while (b === 255);
    }
    let from = op - offset;
    if (offset === 0 || from < lowest) throw new Lz4Error(`bad match offset ${offset}`);
    if (op + mlen > oend) throw new Lz4Error("match runs past the block");
    if (offset >= mlen) {
      if (mlen < 256) {
        for (let i = 0; i < mlen; i++) dst[op + i] = dst[from + i]!;
      } else {
        dst.copyWithin(op, from, from + mlen);
      }
      op += mlen;
    } else {
      // overlapping copy (run-length): byte by byte
      const end = op + mlen;
      while (op < end) dst[op++] = dst[from++]!;
    }
  }
  return op - start;
}
