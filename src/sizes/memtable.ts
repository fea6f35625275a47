/**
 * Unflushed WAL writes as a sorted in-memory layer (what a memtable would hold after recovery), so the
 * newest-version merge sees them above every SST. WAL records are WriteBatches (datadir/write_batch.ts
 * has the full tag table); here we only need each write's CF, key, value and sequence number:
 *
 *   batch := sequence fixed64 | count fixed32 | record*
 *   record := tag u8 [cf varint32 for the CF variants] key (varint32 len + bytes) [value (len + bytes)]
 *   Put 0x01/0x05, Delete 0x00/0x04, SingleDelete 0x07/0x08, DeleteRange 0x0F/0x0E (value = end key),
 *   Merge 0x02/0x06, BlobIndex 0x11/0x10, PutEntity 0x16/0x17, TimedPut 0x18/0x19; LogData 0x03 and
 *   2PC markers (0x09-0x0D, 0x12, 0x13, 0x15) take no sequence number.
 *
 * A WAL n holds unflushed writes of CF c iff n >= c's log number (datadir/wal.ts). Memory is the size
 * of those writes (RocksDB's own memtables hold the same), bounded by the WAL files' size.
 */
import { scanLogFile } from "../datadir/log_reader.js";
import { cursor, getFixed32, getLengthPrefixed, getVarint32, readFixed32 } from "../util/coding.js";
import { ValueType } from "../format/internal_key.js";

export interface MemEntry {
  key: Buffer;
  seqno: number;
  type: number;
  value: Buffer;
}

export interface MemRangeDel {
  start: Buffer;
  end: Buffer;
  seqno: number;
}

export interface MemLayer {
  entries: MemEntry[];
  rangeDels: MemRangeDel[];
}

/** tag → [value type, has CF id, has value]; undefined value type = takes no sequence number. */
const TAGS: Record<number, [number | undefined, boolean, boolean]> = {
  0x01: [ValueType.Value, false, true],
  0x05: [ValueType.Value, true, true],
  0x00: [ValueType.Deletion, false, false],
  0x04: [ValueType.Deletion, true, false],
  0x07: [ValueType.SingleDeletion, false, false],
  0x08: [ValueType.SingleDeletion, true, false],
  0x0f: [ValueType.RangeDeletion, false, true],
  0x0e: [ValueType.RangeDeletion, true, true],
  0x02: [ValueType.Merge, false, true],
  0x06: [ValueType.Merge, true, true],
  0x11: [ValueType.BlobIndex, false, true],
  0x10: [ValueType.BlobIndex, true, true],
  0x16: [ValueType.WideColumnEntity, false, true],
  0x17: [ValueType.WideColumnEntity, true, true],
  0x18: [ValueType.ValuePreferredSeqno, false, true],
  0x19: [ValueType.ValuePreferredSeqno, true, true],
  0x03: [undefined, false, true],
};
const NO_FIELDS = new Set([0x09, 0x0d, 0x12, 0x13]);
const XID = new Set([0x0a, 0x0b, 0x0c]);

/** Compare (user key asc, seqno desc): the merge order of internal keys. */
export function compareMem(a: MemEntry, b: MemEntry): number {
  const c = a.key.compare(b.key);
  return c !== 0 ? c : b.seqno - a.seqno;
}

/**
 * Writes of column family `cfId` in the given WAL files, restricted to user keys in [lo, hi)
 * (undefined = unbounded), sorted in merge order. A batch that fails to decode contributes the
 * writes before the failure (like RocksDB's recovery in tolerate-corrupted-tail mode).
 */
export function loadMemLayer(walPaths: string[], cfId: number, lo?: Buffer, hi?: Buffer): MemLayer {
  const entries: MemEntry[] = [];
  const rangeDels: MemRangeDel[] = [];
  const inRange = (k: Buffer) =>
    (lo === undefined || k.compare(lo) >= 0) && (hi === undefined || k.compare(hi) < 0);
  for (const path of walPaths) {
    scanLogFile(path, (rec) => {
      const data = rec.data;
      if (data.length < 12) return;
      const seqLo = readFixed32(data, 0);
      const seqHi = readFixed32(data, 4);
      let seq = seqHi * 4294967296 + seqLo;
      const c = cursor(data, 8, data.length);
      try {
        getFixed32(c); // count
        while (c.pos < c.end) {
          const tag = data[c.pos++]!;
          if (NO_FIELDS.has(tag)) continue;
          if (XID.has(tag)) {
            getLengthPrefixed(c);
            continue;
          }
          if (tag === 0x15) {
            getLengthPrefixed(c);
            getLengthPrefixed(c);
            continue;
          }
          const t = TAGS[tag];
          if (!t) return; // unknown tag: stop decoding this batch
          const [type, hasCf, hasValue] = t;
          const cf = hasCf ? getVarint32(c) : 0;
          const key = getLengthPrefixed(c);
          const value = hasValue ? getLengthPrefixed(c) : new Uint8Array(0);
          if (type === undefined) continue; // LogData
          const s = seq++;
          if (cf !== cfId) continue;
          const k = Buffer.from(key);
          if (type === ValueType.RangeDeletion) {
            rangeDels.push({ start: k, end: Buffer.from(value), seqno: s });
          } else if (inRange(k)) {
            entries.push({ key: k, seqno: s, type, value: Buffer.from(value) });
          }
        }
      } catch {
        // truncated batch: keep what decoded
      }
    });
  }
  entries.sort(compareMem);
  return { entries, rangeDels };
}
