/**
 * The memtable a read-only open rebuilds: RocksDB's DB::OpenForReadOnly replays every live WAL into
 * memtables, so keys written after the last flush are answered there, before any SST is consulted.
 * The probe's reader path does the same from the WAL files.
 *
 * WriteBatch record (db/write_batch.cc), one per log record:
 *   sequence fixed64 | count fixed32 | records...
 *   record := tag u8 [cf id varint32 when the tag is a *ColumnFamily* variant] key (varint32 len + bytes)
 *             [value (varint32 len + bytes) for puts, merges, blob indexes, range deletions]
 * Tags: 0x01/0x05 Put, 0x00/0x04 Delete, 0x07/0x08 SingleDelete, 0x0f/0x0e DeleteRange, 0x02/0x06 Merge,
 *       0x11/0x10 BlobIndex, 0x16/0x17 PutEntity, 0x03 LogData, 0x0d Noop, 0x09-0x0c/0x12/0x13/0x15 2PC markers.
 */
import { cursor, getFixed32, getFixed64, getLengthPrefixed, getVarint32 } from "../util/coding.js";
import { scanLogFile } from "../datadir/log_reader.js";

export type MemEntryKind = "value" | "deletion" | "merge" | "blobIndex" | "entity";

export interface MemEntry {
  kind: MemEntryKind;
  value?: Buffer;
}

export interface Memtable {
  entries: Map<string, MemEntry>;
  /** Range deletions seen for the CF (not applied to lookups: noted instead). */
  rangeDeletions: number;
  /** Batches that could not be decoded to their end. */
  undecodable: number;
}

// tag → [kind or null for markers, has cf id, has value]
const TAGS: Record<number, [MemEntryKind | "rangeDel", boolean, boolean]> = {
  0x01: ["value", false, true],
  0x05: ["value", true, true],
  0x00: ["deletion", false, false],
  0x04: ["deletion", true, false],
  0x07: ["deletion", false, false],
  0x08: ["deletion", true, false],
  0x0f: ["rangeDel", false, true],
  0x0e: ["rangeDel", true, true],
  0x02: ["merge", false, true],
  0x06: ["merge", true, true],
  0x11: ["blobIndex", false, true],
  0x10: ["blobIndex", true, true],
  0x16: ["entity", false, true],
  0x17: ["entity", true, true],
};

/** Apply one WriteBatch to `mem` for column family `cfId` (later writes win). */
export function applyWriteBatch(rec: Uint8Array, cfId: number, mem: Memtable): void {
  if (rec.length < 12) {
    mem.undecodable++;
    return;
  }
  const c = cursor(rec);
  getFixed64(c);
  getFixed32(c);
  try {
    while (c.pos < c.end) {
      const tag = c.buf[c.pos++]!;
      const spec = TAGS[tag];
      if (spec) {
        const [kind, hasCf, hasValue] = spec;
        const cf = hasCf ? getVarint32(c) : 0;
        const key = getLengthPrefixed(c);
        const value = hasValue ? getLengthPrefixed(c) : undefined;
        if (cf !== cfId) continue;
        if (kind === "rangeDel") {
          mem.rangeDeletions++;
          continue;
        }
        const k = Buffer.from(key).toString("hex");
        mem.entries.set(k, { kind, value: value ? Buffer.from(value) : undefined });
        continue;
      }
      switch (tag) {
        case 0x03:
        case 0x0a:
        case 0x0b:
        case 0x0c:
          getLengthPrefixed(c);
          break;
        case 0x15:
          getLengthPrefixed(c);
          getLengthPrefixed(c);
          break;
        case 0x0d:
        case 0x09:
        case 0x12:
        case 0x13:
          break;
        default:
          mem.undecodable++;
          return;
      }
    }
  } catch {
    mem.undecodable++;
  }
}

/** Replay the WALs (oldest first) into a memtable for one column family. */
export function replayWals(wals: { path: string; logNumber: number }[], cfId: number): Memtable {
  const mem: Memtable = { entries: new Map(), rangeDeletions: 0, undecodable: 0 };
  for (const w of [...wals].sort((a, b) => a.logNumber - b.logNumber)) {
    scanLogFile(w.path, (r) => applyWriteBatch(r.data, cfId, mem), { logNumber: w.logNumber });
  }
  return mem;
}
