/**
 * Recursive Length Prefix (RLP), the Ethereum serialisation of byte strings and lists
 * (Yellow Paper appendix B). Account records in every client store are RLP lists.
 *
 * Encoding of one item, by its first byte:
 *   0x00..0x7f            a single byte, itself
 *   0x80+len  (len ≤ 55)  a string of len bytes follows
 *   0xb7+n, len(n bytes BE), bytes        a string longer than 55 bytes
 *   0xc0+len  (len ≤ 55)  a list whose concatenated items take len bytes
 *   0xf7+n, len(n bytes BE), items        a longer list
 *
 * The decoder treats its input as untrusted: every length is checked against the end of the buffer,
 * non-canonical forms (a single byte < 0x80 wrapped as a string, long forms for short payloads,
 * leading zeros in a length) are rejected, and nesting depth is capped.
 */
import { LsmscopeError } from "../util/errors.js";

/** A decoded RLP item: a byte string or a list of items. */
export type RlpItem = Uint8Array | RlpItem[];

/** Bad RLP; `offset` is the byte position inside the decoded value. */
export class RlpError extends LsmscopeError {
  constructor(message: string, offset: number) {
    super(`bad RLP: ${message} at byte ${offset}`, { offset });
    this.name = "RlpError";
  }
}

const MAX_DEPTH = 64;

function encodeLength(len: number, offset: number): Uint8Array {
  if (len <= 55) return Uint8Array.of(offset + len);
  const be: number[] = [];
  for (let x = len; x > 0; x = Math.floor(x / 256)) be.unshift(x & 0xff);
  return Uint8Array.from([offset + 55 + be.length, ...be]);
}

function concat(parts: Uint8Array[]): Uint8Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Uint8Array(total);
  let pos = 0;
  for (const p of parts) {
    out.set(p, pos);
    pos += p.length;
  }
  return out;
}

/** RLP-encode a byte string or a (nested) list of them. */
export function rlpEncode(item: RlpItem): Uint8Array {
  if (item instanceof Uint8Array) {
    if (item.length === 1 && item[0]! < 0x80) return Uint8Array.of(item[0]!);
    return concat([encodeLength(item.length, 0x80), item]);
  }
  const payload = concat(item.map(rlpEncode));
  return concat([encodeLength(payload.length, 0xc0), payload]);
}

/**
 * Minimal big-endian bytes of a non-negative integer, as RLP scalars are stored (0 → empty string).
 */
export function bigintToBytes(n: bigint): Uint8Array {
  if (n < 0n) throw new RangeError("RLP scalars are non-negative");
  if (n === 0n) return new Uint8Array(0);
  let hex = n.toString(16);
  if (hex.length % 2) hex = "0" + hex;
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

/** Big-endian bytes to a bigint; rejects leading zeros (non-canonical scalar) when `strict`. */
export function bytesToBigint(b: Uint8Array, strict = true): bigint {
  if (strict && b.length > 0 && b[0] === 0) throw new RlpError("scalar with a leading zero byte", 0);
  if (b.length === 0) return 0n;
  return BigInt("0x" + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex"));
}

interface Header {
  isList: boolean;
  /** offset of the payload */
  start: number;
  /** end of the payload (exclusive) */
  end: number;
}

function readHeader(buf: Uint8Array, pos: number, limit: number): Header {
  if (pos >= limit) throw new RlpError("item runs past the end", pos);
  const b = buf[pos]!;
  if (b < 0x80) return { isList: false, start: pos, end: pos + 1 };
  const isList = b >= 0xc0;
  const base = isList ? 0xc0 : 0x80;
  const short = b - base;
  if (short <= 55) {
    const end = pos + 1 + short;
    if (end > limit) throw new RlpError(`length ${short} runs past the end`, pos);
    if (!isList && short === 1 && buf[pos + 1]! < 0x80)
      throw new RlpError("single byte below 0x80 encoded as a string", pos);
    return { isList, start: pos + 1, end };
  }
  const n = short - 55;
  if (pos + 1 + n > limit) throw new RlpError("length of length runs past the end", pos);
  if (buf[pos + 1] === 0) throw new RlpError("length with a leading zero byte", pos);
  let len = 0;
  for (let i = 0; i < n; i++) {
    len = len * 256 + buf[pos + 1 + i]!;
    if (len > Number.MAX_SAFE_INTEGER / 256) throw new RlpError("length too large", pos);
  }
  if (len <= 55) throw new RlpError("long form used for a short payload", pos);
  const start = pos + 1 + n;
  if (start + len > limit) throw new RlpError(`length ${len} runs past the end`, pos);
  return { isList, start, end: start + len };
}

function decodeAt(buf: Uint8Array, pos: number, limit: number, depth: number): [RlpItem, number] {
  if (depth > MAX_DEPTH) throw new RlpError("nesting too deep", pos);
  const h = readHeader(buf, pos, limit);
  if (!h.isList) return [buf.subarray(h.start, h.end), h.end];
  const items: RlpItem[] = [];
  let p = h.start;
  while (p < h.end) {
    const [item, next] = decodeAt(buf, p, h.end, depth + 1);
    items.push(item);
    p = next;
  }
  return [items, h.end];
}

/**
 * Decode exactly one RLP item filling `buf` (trailing bytes are an error). Strings are views into
 * `buf`, not copies.
 */
export function rlpDecode(buf: Uint8Array): RlpItem {
  const [item, end] = decodeAt(buf, 0, buf.length, 0);
  if (end !== buf.length) throw new RlpError(`${buf.length - end} trailing bytes`, end);
  return item;
}
