/**
 * Blocks of key/value entries: data, index, metaindex, properties and range-deletion blocks
 * (table/block_based/block.cc, block_builder.cc, data_block_footer.h, data_block_hash_index.cc).
 *
 *   entry*                      prefix-compressed, see below
 *   [hash index]                only with the footer's hash bit (data blocks, kDataBlockBinaryAndHash):
 *                               bucket bytes [num_buckets] | num_buckets fixed16
 *   restart offsets             fixed32 * num_restarts, offsets of entries stored with shared == 0
 *   footer                      fixed32: bits 0-27 num_restarts, bit 31 hash index present,
 *                               bit 29 "uniform keys" hint, bit 28 separated key/value storage
 *                               (newer RocksDB; refused), bit 30 reserved. LevelDB: plain num_restarts.
 *
 * entry (data and meta blocks):   shared varint32 | non_shared varint32 | value_length varint32 |
 *                                 key delta [non_shared] | value [value_length]
 * entry (index blocks with index_value_is_delta_encoded, format_version >= 4):
 *                                 shared varint32 | non_shared varint32 | key delta [non_shared] |
 *                                 value: shared == 0 -> BlockHandle (varint64 offset, varint64 size)
 *                                        shared != 0 -> varsigned64 (size - previous size); offset is
 *                                                       previous offset + previous size + 5
 *                                 [first key: varint32 length + bytes, index type kBinarySearchWithFirstKey]
 * The key of an entry is the previous key's first `shared` bytes followed by the delta. Index values
 * without delta encoding are an encoded BlockHandle (+ length-prefixed first key) in the value bytes.
 */
import { LsmscopeError } from "../util/errors.js";
import { blockCorruption } from "./errors.js";
import { BLOCK_TRAILER_SIZE } from "./handle.js";
import { grownKeeping } from "../util/grow.js";

const HASH_INDEX_BIT = 0x80000000;
const RESERVED_BIT = 0x40000000;
const SEPARATED_KV_BIT = 0x10000000;
const RESTARTS_MASK = 0x0fffffff;

/** Where a block came from, for error messages. */
export interface BlockOrigin {
  file: string;
  kind: string;
  offset: number;
}

export class Block {
  // not readonly: a scan re-points one Block at each data block it reads (load()), no object per block
  data!: Buffer;
  /** Offset of the restart array (= end of the entries). */
  restartsOffset = 0;
  numRestarts = 0;
  /** The data-block hash index footer bit. */
  hasHashIndex = false;
  origin!: BlockOrigin;

  constructor(data: Buffer, origin: BlockOrigin) {
    this.load(data, origin);
  }

  /** Point this block at another block's bytes (parsed as the constructor does). */
  load(data: Buffer, origin: BlockOrigin): this {
    this.data = data;
    this.origin = origin;
    const n = data.length;
    if (n < 4) throw this.corrupt(`block too short (${n} bytes)`);
    const packed = data.readUInt32LE(n - 4);
    let limit = n - 4;
    this.hasHashIndex = (packed & HASH_INDEX_BIT) !== 0;
    if (packed & SEPARATED_KV_BIT) {
      throw new LsmscopeError(
        `${origin.kind} block uses separated key/value storage (a newer RocksDB feature) that this reader does not support`,
        { file: origin.file, offset: origin.offset },
      );
    }
    if (packed & RESERVED_BIT)
      throw this.corrupt(`block footer has a reserved bit set (0x${packed.toString(16)})`);
    const numRestarts = packed & RESTARTS_MASK;
    if (this.hasHashIndex) {
      if (limit < 2) throw this.corrupt("hash index does not fit in the block");
      const buckets = data.readUInt16LE(limit - 2);
      if (buckets === 0 || buckets + 2 > limit) throw this.corrupt(`bad hash index (${buckets} buckets)`);
      limit -= 2 + buckets;
    }
    if (numRestarts * 4 > limit) throw this.corrupt(`${numRestarts} restart points do not fit in ${n} bytes`);
    this.numRestarts = numRestarts;
    this.restartsOffset = limit - numRestarts * 4;
    return this;
  }

  restartPoint(i: number): number {
    const p = this.data.readUInt32LE(this.restartsOffset + 4 * i);
    if (p >= this.restartsOffset && !(p === 0 && this.restartsOffset === 0)) {
      throw this.corrupt(`restart point ${i} (${p}) outside the entries`);
    }
    return p;
  }

  corrupt(what: string, at?: number): Error {
    const where = at === undefined ? "" : ` (at byte ${at} of the block)`;
    return blockCorruption(this.origin.file, this.origin.kind, this.origin.offset, what + where);
  }
}

/**
 * A forward cursor over a block's entries. The key is decoded into a reused buffer (`key`, valid bytes
 * [0, keyLength)); the value is the range [valueOffset, valueOffset + valueLength) of `block.data`.
 * Nothing is allocated per entry.
 */
/**
 * A copy of `src[start, start + n)`. Half the time of Buffer.from(src.subarray(...)) for the short keys
 * and property values copied per entry (no intermediate view; a JS loop below 64 bytes, where the
 * native copy's call costs more than it saves).
 */
export function copyRange(src: Uint8Array, start: number, n: number): Buffer {
  const out = Buffer.allocUnsafe(n);
  if (n < 64) for (let i = 0; i < n; i++) out[i] = src[start + i]!;
  else out.set(src.subarray(start, start + n));
  return out;
}

/**
 * The data-block handles of an index, tallied (deep mode's figures): how many, their stored bytes
 * (without trailers), the smallest and largest, and the index partitions they came from.
 */
export class HandleTally {
  blocks = 0;
  bytes = 0;
  min = Infinity;
  max = -Infinity;
  /** Offsets of the partitions that held at least one handle (a two-level index). */
  readonly partitions = new Set<number>();

  /** One handle of `size` bytes, from the partition at `partitionOffset` (-1: a single-level index). */
  add(size: number, partitionOffset = -1): void {
    this.blocks++;
    this.bytes += size;
    if (size < this.min) this.min = size;
    if (size > this.max) this.max = size;
    if (partitionOffset >= 0) this.partitions.add(partitionOffset);
  }
}

export class BlockCursor {
  block!: Block;
  data!: Buffer;
  key: Buffer = Buffer.allocUnsafe(256);
  keyLength = 0;
  valueOffset = 0;
  valueLength = 0;
  /** Offset of the current entry, and of the next one. */
  entryOffset = 0;
  nextOffset = 0;
  private end = 0;
  shared = 0;
  /** Views of `block.data` and of `key` (the key buffer they were made for: callers may replace `key`). */
  private dataView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  /** The bytes `dataView` views (`data` may point elsewhere meanwhile: a Pebble cursor's resolved values). */
  private dataViewOf: Buffer | undefined;
  private keyView: DataView<ArrayBufferLike> = new DataView(new ArrayBuffer(0));
  private keyViewOf: Buffer | undefined;

  /** Index mode: values are (delta-encoded) block handles, optionally followed by a first key. */
  indexValueDelta = false;
  indexHasFirstKey = false;
  handleOffset = 0;
  handleSize = 0;
  firstKeyOffset = 0;
  firstKeyLength = 0;
  private isIndex = false;

  constructor(opts: { index?: boolean; valueDelta?: boolean; firstKey?: boolean } = {}) {
    this.isIndex = Boolean(opts.index);
    this.indexValueDelta = Boolean(opts.valueDelta);
    this.indexHasFirstKey = Boolean(opts.firstKey);
  }

  reset(block: Block): this {
    this.block = block;
    const data = (this.data = block.data);
    // the same bytes again (a kept index's cursor, reset at every seek): the view over them stands (a
    // Block re-pointed by load() has other bytes, and gets a view of them)
    if (data !== this.dataViewOf) {
      this.dataView = new DataView(data.buffer, data.byteOffset, data.byteLength);
      this.dataViewOf = data;
    }
    this.end = block.restartsOffset;
    this.nextOffset = 0;
    this.keyLength = 0;
    this.handleOffset = 0;
    this.handleSize = 0;
    return this;
  }

  seekToRestart(i: number): void {
    this.nextOffset = this.block.restartPoint(i);
    this.keyLength = 0;
  }

  /** Decode the next entry; false at the end of the block. */
  next(): boolean {
    const d = this.data;
    let p = this.nextOffset;
    const end = this.end;
    if (p >= end) return false;
    this.entryOffset = p;
    let shared: number;
    let nonShared: number;
    let valueLength = 0;
    // fast path: the two or three varints are single bytes
    const delta = this.isIndex && this.indexValueDelta;
    if (p + 3 <= end && (d[p]! | d[p + 1]! | (delta ? 0 : d[p + 2]!)) < 0x80) {
      shared = d[p]!;
      nonShared = d[p + 1]!;
      if (delta) p += 2;
      else {
        valueLength = d[p + 2]!;
        p += 3;
      }
    } else {
      shared = this.varint(p);
      p = this.vpos;
      nonShared = this.varint(p);
      p = this.vpos;
      if (!delta) {
        valueLength = this.varint(p);
        p = this.vpos;
      }
    }
    if (shared > this.keyLength)
      throw this.block.corrupt(
        `entry shares ${shared} bytes of a ${this.keyLength}-byte key`,
        this.entryOffset,
      );
    if (nonShared > end - p) throw this.block.corrupt("entry key runs past the entries", this.entryOffset);
    const keyLength = shared + nonShared;
    if (keyLength > this.key.length) this.growKey(keyLength);
    const k = this.key;
    if (nonShared < 96) {
      // four bytes at a time through DataViews, the rest bytewise: the key copy was most of a data
      // entry's decoding (db_bench's 28-byte internal keys: ~25 bytes per entry past the shared part).
      // Below ~96 bytes this beats Buffer.copy, whose call costs ~40 ns at any length (measured:
      // 8 against 37 ns for 24 bytes, 19 against 41 for 40, even at 100)
      let i = 0;
      if (nonShared >= 8) {
        let kv = this.keyView;
        if (this.keyViewOf !== k) {
          kv = this.keyView = new DataView(k.buffer, k.byteOffset, k.length);
          this.keyViewOf = k;
        }
        const dv = this.dataView;
        for (; i + 4 <= nonShared; i += 4) kv.setUint32(shared + i, dv.getUint32(p + i));
      }
      for (; i < nonShared; i++) k[shared + i] = d[p + i]!;
    } else {
      d.copy(k, shared, p, p + nonShared);
    }
    p += nonShared;
    this.keyLength = keyLength;
    this.shared = shared;
    if (!this.isIndex) {
      if (valueLength > end - p)
        throw this.block.corrupt("entry value runs past the entries", this.entryOffset);
      this.valueOffset = p;
      this.valueLength = valueLength;
      this.nextOffset = p + valueLength;
      return true;
    }
    // index entry
    let vend: number;
    if (delta) {
      vend = end;
    } else {
      if (valueLength > end - p)
        throw this.block.corrupt("entry value runs past the entries", this.entryOffset);
      vend = p + valueLength;
    }
    this.valueOffset = p;
    if (delta && shared !== 0) {
      const z = this.varint64(p, vend);
      p = this.vpos;
      const diff = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      const prevEnd = this.handleOffset + this.handleSize + BLOCK_TRAILER_SIZE;
      this.handleOffset = prevEnd;
      this.handleSize = this.handleSize + diff;
      if (this.handleSize < 0)
        throw this.block.corrupt("delta-encoded block handle has a negative size", this.entryOffset);
    } else {
      this.handleOffset = this.varint64(p, vend);
      p = this.vpos;
      this.handleSize = this.varint64(p, vend);
      p = this.vpos;
    }
    if (this.indexHasFirstKey) {
      const n = this.varint(p, vend);
      p = this.vpos;
      if (n > vend - p) throw this.block.corrupt("first key runs past the entry", this.entryOffset);
      this.firstKeyOffset = p;
      this.firstKeyLength = n;
      p += n;
    }
    if (delta) {
      this.valueLength = p - this.valueOffset;
      this.nextOffset = p;
    } else {
      this.valueLength = valueLength;
      this.nextOffset = vend;
    }
    return true;
  }

  /**
   * Tally the data-block handles of this index block from the cursor's position on, as next() steps
   * through them (and stopping where it would refuse an entry), without its per-entry work: no key
   * copy (no caller of a tally reads the separators), no calls. Deep mode tallies every index entry of
   * every table, mostly before V8 has optimised anything: next() and the walk's callbacks cost ~1.5 µs
   * an entry there, this loop about half. It takes the usual entry as it is, and stops at the first
   * other one, the cursor left on it: a length over one byte, a handle number over seven bytes,
   * anything that does not fit. next() then decodes that entry as always, refusing a corrupt one with
   * its own error, and the caller goes on with this loop. Also stops once the tally holds `limit`
   * handles. True at the block's end. The cursor's key is not the last entry's key after a tally.
   */
  tallyHandles(t: HandleTally, limit: number): boolean {
    const d = this.data;
    const end = this.end;
    const delta = this.indexValueDelta;
    const firstKey = this.indexHasFirstKey;
    let p = this.nextOffset;
    let keyLength = this.keyLength;
    let offset = this.handleOffset;
    let size = this.handleSize;
    let blocks = t.blocks;
    let bytes = t.bytes;
    let min = t.min;
    let max = t.max;
    let done = false;
    entries: for (;;) {
      if (p >= end) {
        done = true;
        break;
      }
      if (blocks >= limit || p + 3 > end) break;
      const shared = d[p]!;
      const nonShared = d[p + 1]!;
      const valueLength = delta ? 0 : d[p + 2]!;
      if ((shared | nonShared | valueLength) >= 0x80 || shared > keyLength) break;
      let q = p + (delta ? 2 : 3);
      if (nonShared > end - q) break;
      q += nonShared;
      const vend = delta ? end : q + valueLength;
      if (vend > end) break;
      // the handle's numbers, up to seven bytes each (below 2^49, safe integers): the offset and the
      // size, or for a delta-encoded entry the size's change alone
      const numbers = delta && shared !== 0 ? 1 : 2;
      let first = 0;
      let z = 0;
      for (let k = 0; k < numbers; k++) {
        z = 0;
        let mul = 1;
        let b = 0x80;
        for (let i = 0; b >= 0x80; i++) {
          if (i === 7 || q >= vend) break entries;
          b = d[q++]!;
          z += (b & 0x7f) * mul;
          mul *= 128;
        }
        if (k === 0) first = z;
      }
      let o: number;
      let s: number;
      if (numbers === 1) {
        s = size + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
        if (s < 0) break;
        o = offset + size + BLOCK_TRAILER_SIZE;
      } else {
        o = first;
        s = z;
      }
      if (firstKey) {
        if (q >= vend) break;
        const n = d[q]!;
        if (n >= 0x80 || n > vend - q - 1) break;
        q += 1 + n;
      }
      p = delta ? q : vend;
      keyLength = shared + nonShared;
      offset = o;
      size = s;
      blocks++;
      bytes += s;
      if (s < min) min = s;
      if (s > max) max = s;
    }
    this.nextOffset = p;
    this.keyLength = keyLength;
    this.handleOffset = offset;
    this.handleSize = size;
    t.blocks = blocks;
    t.bytes = bytes;
    t.min = min;
    t.max = max;
    return done;
  }

  private vpos = 0;

  private varint(p: number, end = this.end): number {
    const d = this.data;
    let result = 0;
    for (let shift = 0; shift <= 28; shift += 7) {
      if (p >= end) throw this.block.corrupt("varint runs past the entries", this.entryOffset);
      const b = d[p++]!;
      result |= (b & 0x7f) << shift;
      if (b < 0x80) {
        this.vpos = p;
        return result >>> 0;
      }
    }
    throw this.block.corrupt("varint32 too long", this.entryOffset);
  }

  private varint64(p: number, end: number): number {
    const d = this.data;
    let result = 0;
    let mul = 1;
    for (let i = 0; i < 10; i++) {
      if (p >= end) throw this.block.corrupt("varint64 runs past the entry", this.entryOffset);
      const b = d[p++]!;
      result += (b & 0x7f) * mul;
      if (b < 0x80) {
        if (result > Number.MAX_SAFE_INTEGER)
          throw this.block.corrupt("varint64 beyond 2^53", this.entryOffset);
        this.vpos = p;
        return result;
      }
      mul *= 128;
    }
    throw this.block.corrupt("varint64 too long", this.entryOffset);
  }

  private growKey(n: number): void {
    this.key = grownKeeping(this.key, this.keyLength, n);
  }

  /** Copy of the current key. */
  keyCopy(): Buffer {
    return copyRange(this.key, 0, this.keyLength);
  }

  /** Copy of the current value. */
  valueCopy(): Buffer {
    return copyRange(this.data, this.valueOffset, this.valueLength);
  }

  /**
   * Position at the first entry whose key, compared by `cmp(entryKey, entryKeyLength)` (< 0 when the
   * entry sorts before the target), is not before the target. False if every entry sorts before it.
   */
  seek(cmp: (key: Buffer, keyLength: number) => number): boolean {
    const b = this.block;
    if (b.numRestarts === 0) return false;
    // RocksDB's BinarySeek, not util/lower_bound.ts: the last restart whose key is before the target
    // (restart 0 when none is, which is never read to find out), decoded where the search looks
    let lo = 0;
    let hi = b.numRestarts - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      this.seekToRestart(mid);
      if (!this.next()) throw b.corrupt(`restart point ${mid} holds no entry`);
      if (this.shared !== 0) throw b.corrupt(`restart point ${mid} entry is prefix-compressed`);
      if (cmp(this.key, this.keyLength) < 0) lo = mid;
      else hi = mid - 1;
    }
    this.seekToRestart(lo);
    while (this.next()) {
      if (cmp(this.key, this.keyLength) >= 0) return true;
    }
    return false;
  }
}
