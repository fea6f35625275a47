/**
 * The writes a WAL still holds, per column family, as entries (user key, sequence, type, value), for the
 * logical digest. A WAL record is a WriteBatch (layout in src/datadir/write_batch.ts):
 *
 *   sequence fixed64 | count fixed32 | record*
 *   record := tag u8 [varint32 cf id] key [value]      (key/value = varint32 length + bytes)
 *
 * Each Put/Delete/SingleDelete/DeleteRange/Merge/BlobIndex/PutEntity/TimedPut takes the next sequence
 * number. Only WALs numbered at or after a column family's log number hold writes that are in no SST
 * yet (the MANIFEST's per-CF log number says everything older was flushed), so only those count.
 */
import { scanLogFile } from "../datadir/log_reader.js";
import { cursor, getFixed32, getFixed64, getLengthPrefixed, getVarint32 } from "../util/coding.js";
import { LsmscopeError } from "../util/errors.js";
import { ValueType } from "../format/internal_key.js";

export interface WalEntry {
  userKey: Buffer;
  seqno: number;
  /** ValueType of the equivalent table entry (Value, Deletion, SingleDeletion, Merge, BlobIndex...). */
  type: number;
  value: Buffer;
}

export interface WalRangeDeletion {
  start: Buffer;
  end: Buffer;
  seqno: number;
}

/** tag → [value type, has CF id, has value] */
const TAGS: Record<number, [number, boolean, boolean]> = {
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
  0x18: [0x18, false, true],
  0x19: [0x18, true, true],
};
/** Tags that take no sequence number: LogData (with a blob), markers (none), 2PC (with an xid). */
const NO_SEQ_WITH_BLOB = new Set([0x03, 0x0a, 0x0b, 0x0c]);
const NO_SEQ_EMPTY = new Set([0x0d, 0x09, 0x12, 0x13]);

export interface WalWrites {
  entries: WalEntry[];
  rangeDeletions: WalRangeDeletion[];
}

/**
 * Every write for CF `cfId` in the given WALs whose number is >= `cfLogNumber`. Records the log reader
 * flags as torn at the tail are not returned by it (RocksDB's point-in-time recovery drops them too).
 */
export function walWritesForCf(
  wals: { path: string; logNumber: number }[],
  cfId: number,
  cfLogNumber: number,
): WalWrites {
  const out: WalWrites = { entries: [], rangeDeletions: [] };
  for (const w of wals) {
    if (w.logNumber < cfLogNumber) continue;
    scanLogFile(
      w.path,
      (rec) => {
        const c = cursor(rec.data);
        if (rec.data.length < 12) return;
        let seq = Number(getFixed64(c));
        getFixed32(c);
        try {
          while (c.pos < c.end) {
            const tag = c.buf[c.pos++]!;
            const spec = TAGS[tag];
            if (spec) {
              const [type, hasCf, hasValue] = spec;
              const cf = hasCf ? getVarint32(c) : 0;
              const key = getLengthPrefixed(c);
              const value = hasValue ? getLengthPrefixed(c) : new Uint8Array(0);
              if (cf === cfId) {
                if (type === ValueType.RangeDeletion)
                  out.rangeDeletions.push({ start: Buffer.from(key), end: Buffer.from(value), seqno: seq });
                else
                  out.entries.push({
                    userKey: Buffer.from(key),
                    seqno: seq,
                    type,
                    value: Buffer.from(value),
                  });
              }
              seq++;
            } else if (NO_SEQ_WITH_BLOB.has(tag)) {
              getLengthPrefixed(c);
            } else if (tag === 0x15) {
              getLengthPrefixed(c); // commit timestamp
              getLengthPrefixed(c); // xid
            } else if (!NO_SEQ_EMPTY.has(tag)) {
              throw new RangeError(`unknown WriteBatch tag 0x${tag.toString(16)}`);
            }
          }
        } catch (err) {
          throw new LsmscopeError(`WAL record cannot be decoded: ${(err as Error).message}`, {
            file: w.path,
            offset: rec.offset,
          });
        }
      },
      { logNumber: w.logNumber },
    );
  }
  return out;
}
