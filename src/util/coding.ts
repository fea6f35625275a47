/**
 * Little-endian fixed-width integers and LEB128 varints as RocksDB/LevelDB encode them
 * (util/coding.h). Every reader decodes through here, with bounds checked against the buffer end:
 * a varint that runs off the end or is longer than its width throws RangeError, which the format
 * readers turn into a CorruptionError naming file and offset.
 */

export interface Cursor {
  buf: Uint8Array;
  pos: number;
  end: number;
}

export function cursor(buf: Uint8Array, pos = 0, end = buf.length): Cursor {
  return { buf, pos, end };
}

export function getVarint32(c: Cursor): number {
  // one-byte fast path: most lengths and shared-prefix counts are < 128
  if (c.pos < c.end) {
    const b = c.buf[c.pos]!;
    if (b < 0x80) {
      c.pos++;
      return b;
    }
  }
  let result = 0;
  for (let shift = 0; shift <= 28; shift += 7) {
    if (c.pos >= c.end) throw new RangeError("varint32 runs past end of buffer");
    const b = c.buf[c.pos++]!;
    result |= (b & 0x7f) << shift;
    if (b < 0x80) return result >>> 0;
  }
  throw new RangeError("varint32 too long");
}

/** Varint64 as a bigint (sequence numbers, file sizes up to 2^64). */
export function getVarint64(c: Cursor): bigint {
  let result = 0n;
  for (let shift = 0n; shift <= 63n; shift += 7n) {
    if (c.pos >= c.end) throw new RangeError("varint64 runs past end of buffer");
    const b = c.buf[c.pos++]!;
    result |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return result;
  }
  throw new RangeError("varint64 too long");
}

/** Varint64 as a number; throws if it does not fit in 2^53 (offsets and sizes always do). */
export function getVarint64Number(c: Cursor): number {
  const start = c.pos;
  // values < 2^49 exactly in doubles, without BigInt (a MANIFEST's times and sizes pass 2^28: two
  // BigInts per byte made ~1.3 KiB of garbage per table on an L0 pile-up)
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 7; i++) {
    if (c.pos >= c.end) throw new RangeError("varint64 runs past end of buffer");
    const b = c.buf[c.pos++]!;
    result += (b & 0x7f) * mul;
    if (b < 0x80) return result;
    mul *= 128;
  }
  c.pos = start;
  const big = getVarint64(c);
  if (big > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError("varint64 value exceeds 2^53");
  return Number(big);
}

export function getFixed32(c: Cursor): number {
  if (c.pos + 4 > c.end) throw new RangeError("fixed32 runs past end of buffer");
  const b = c.buf;
  const p = c.pos;
  c.pos += 4;
  return (b[p]! | (b[p + 1]! << 8) | (b[p + 2]! << 16) | (b[p + 3]! << 24)) >>> 0;
}

export function getFixed64(c: Cursor): bigint {
  const lo = BigInt(getFixed32(c));
  const hi = BigInt(getFixed32(c));
  return (hi << 32n) | lo;
}

/** Length-prefixed slice (varint32 length + bytes); returns a view, not a copy. */
export function getLengthPrefixed(c: Cursor): Uint8Array {
  const at = skipLengthPrefixed(c);
  return c.buf.subarray(at, c.pos);
}

/**
 * A length-prefixed slice at the cursor (varint32 length, bytes) without a view of it: where its bytes
 * begin (they end at the cursor, which moves past them).
 */
export function skipLengthPrefixed(c: Cursor): number {
  const len = getVarint32(c);
  if (c.pos + len > c.end) throw new RangeError("length-prefixed slice runs past end of buffer");
  const at = c.pos;
  c.pos += len;
  return at;
}

export function readFixed32(buf: Uint8Array, pos: number): number {
  return (buf[pos]! | (buf[pos + 1]! << 8) | (buf[pos + 2]! << 16) | (buf[pos + 3]! << 24)) >>> 0;
}

export function readFixed64(buf: Uint8Array, pos: number): bigint {
  return (BigInt(readFixed32(buf, pos + 4)) << 32n) | BigInt(readFixed32(buf, pos));
}

export function putVarint32(out: number[], v: number): void {
  let x = v >>> 0;
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80);
    x >>>= 7;
  }
  out.push(x);
}

export function putVarint64(out: number[], v: bigint): void {
  let x = v;
  while (x >= 0x80n) {
    out.push(Number(x & 0x7fn) | 0x80);
    x >>= 7n;
  }
  out.push(Number(x));
}
