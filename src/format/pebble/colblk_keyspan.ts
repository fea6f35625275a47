/**
 * Pebble's columnar keyspan blocks ((Pebble,v5)+ range deletions "rocksdb.range_del2" and range keys
 * "pebble.range_key"; sstable/colblk/keyspan.go). Spans are stored fragmented:
 *
 *   boundary count uint32 | columnar block (colblk.ts), rows = keys:
 *     boundary user keys   bytes  (boundary count rows) the distinct span bounds, ascending
 *     boundary key index   uint   (boundary count rows) index of the first key of the span starting here
 *     trailer              uint   (seqno << 8) | kind per key
 *     suffix               bytes  range keys' suffix
 *     value                bytes  range keys' value
 *
 * Span i = [boundary i, boundary i+1) holds keys [index i, index i+1) (none between spans that do not
 * touch).
 */
import { ColumnarBlock } from "./colblk.js";

const KEYSPAN_HEADER_SIZE = 4;

export interface KeyspanKey {
  start: Buffer;
  end: Buffer;
  seqno: number;
  kind: number;
  suffix: Buffer;
  value: Buffer;
}

export interface KeyspanBlock {
  keys: KeyspanKey[];
  /** Spans holding at least one key. */
  spans: number;
  /** Bytes of their start and end keys (what Pebble's columnar writer counts in raw key sizes). */
  boundaryKeyBytes: number;
  /** Bytes of the keys' values. */
  valueBytes: number;
}

export function decodeKeyspanBlock(data: Buffer): KeyspanBlock {
  if (data.length < KEYSPAN_HEADER_SIZE) throw new RangeError("keyspan block too short");
  const boundaries = data.readUInt32LE(0);
  const b = new ColumnarBlock(data, KEYSPAN_HEADER_SIZE);
  if (b.columns !== 5) throw new RangeError(`keyspan block of ${b.columns} columns (expected 5)`);
  if (boundaries > data.length) throw new RangeError(`${boundaries} span bounds`);
  const bounds = b.rawBytes(0, boundaries);
  const firstKey = b.uints(1, boundaries);
  const trailers = b.uints(2);
  const suffixes = b.rawBytes(3);
  const values = b.rawBytes(4);
  const out: KeyspanBlock = { keys: [], spans: 0, boundaryKeyBytes: 0, valueBytes: 0 };
  if (boundaries === 0) {
    if (b.rows !== 0) throw new RangeError(`${b.rows} keys without span bounds`);
    return out;
  }
  if (firstKey.at(0) !== 0 || firstKey.at(boundaries - 1) !== b.rows)
    throw new RangeError("span bounds do not cover the block's keys");
  for (let i = 0; i + 1 < boundaries; i++) {
    const from = firstKey.at(i);
    const to = firstKey.at(i + 1);
    if (to < from || to > b.rows) throw new RangeError(`span ${i} holds keys [${from}, ${to})`);
    if (to === from) continue;
    const start = bounds.at(i);
    const end = bounds.at(i + 1);
    out.spans++;
    out.boundaryKeyBytes += start.length + end.length;
    for (let k = from; k < to; k++) {
      trailers.get64(k);
      const value = values.at(k);
      out.valueBytes += value.length;
      out.keys.push({
        start,
        end,
        seqno: trailers.hi * 0x1000000 + (trailers.lo >>> 8),
        kind: trailers.lo & 0xff,
        suffix: suffixes.at(k),
        value,
      });
    }
  }
  return out;
}
