/**
 * The prefix hash index of a kHashSearch table (table/block_based/block_prefix_index.cc), used by RocksDB
 * for Get when the CF's prefix extractor is the one the table was built with. Two meta blocks, raw bytes
 * (not block format):
 *
 *   "rocksdb.hashindex.prefixes": the distinct key prefixes, concatenated
 *   "rocksdb.hashindex.metadata": per prefix varint32 length | varint32 first block | varint32 blocks
 *
 * Buckets: prefixes + 1, bucket = Hash(prefix, seed 0) % buckets (util/hash.cc, RocksDB's signed tail);
 * prefixes of one bucket whose block spans touch (distance <= 1) are merged; a bucket lists the block
 * ids (index entry numbers) of its spans in order.
 */
import { cursor, getVarint32 } from "../util/coding.js";
import { murmurHash32 } from "./hash.js";

export const HASH_INDEX_PREFIXES = "rocksdb.hashindex.prefixes";
export const HASH_INDEX_METADATA = "rocksdb.hashindex.metadata";

export class PrefixHashIndex {
  private constructor(readonly buckets: number[][]) {}

  /** Decode the two meta blocks' payloads; throws RangeError when the metadata overruns the prefixes. */
  static decode(prefixes: Uint8Array, meta: Uint8Array): PrefixHashIndex {
    const recs: { prefix: Uint8Array; start: number; end: number }[] = [];
    const c = cursor(meta);
    let pos = 0;
    while (c.pos < c.end) {
      const size = getVarint32(c);
      const start = getVarint32(c);
      const n = getVarint32(c);
      if (pos + size > prefixes.length)
        throw new RangeError("hash index metadata overruns the prefixes block");
      recs.push({ prefix: prefixes.subarray(pos, pos + size), start, end: start + n - 1 });
      pos += size;
    }
    const numBuckets = recs.length + 1;
    const spans: { start: number; end: number }[][] = Array.from({ length: numBuckets }, () => []);
    for (const r of recs) {
      const b = murmurHash32(r.prefix, 0, false) % numBuckets;
      const list = spans[b]!;
      const prev = list[list.length - 1];
      if (prev && r.start - prev.end <= 1) {
        prev.end = r.end;
        continue;
      }
      list.push({ start: r.start, end: r.end });
    }
    const buckets = spans.map((list) => {
      const ids: number[] = [];
      for (const sp of list) for (let i = sp.start; i <= sp.end; i++) ids.push(i);
      return ids;
    });
    return new PrefixHashIndex(buckets);
  }

  /** Block ids of the bucket `prefix` hashes to (ascending; empty: no key with that prefix's bucket). */
  blocksFor(prefix: Uint8Array): number[] {
    return this.buckets[murmurHash32(prefix, 0, false) % this.buckets.length]!;
  }
}
