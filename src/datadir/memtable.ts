/**
 * WAL → memtable replay: the writes of one column family that live WALs still hold, which is what
 * RocksDB's recovery (and DB::OpenForReadOnly) rebuilds into memtables above every SST. WAL records are
 * WriteBatches (layout and tag table in write_batch.ts):
 *
 *   batch  := sequence fixed64 | count fixed32 | record*
 *   record := tag u8 [cf varint32 for the CF variants] key (varint32 len + bytes) [value (len + bytes)]
 *
 * Each Put/Delete/SingleDelete/DeleteRange/Merge/BlobIndex/PutEntity/TimedPut takes the next sequence
 * number. A WAL n holds unflushed writes of CF c iff n >= c's log number (the MANIFEST's per-CF log
 * number says everything older was flushed). Records the log reader flags as torn at the tail are not
 * returned by it (RocksDB's point-in-time recovery drops them too).
 *
 * Memory is the size of the replayed writes (RocksDB's own memtables hold the same), bounded by the
 * WAL files' size.
 */
import { scanLogFile } from "./log_reader.js";
import { forEachBatchWrite, type BatchWrite } from "./write_batch.js";
import { ValueType } from "../base/internal_key.js";
import { LsmscopeError } from "../util/errors.js";
import { lowerBound } from "../util/lower_bound.js";

export interface WalFileRef {
  path: string;
  /** The log's file number: passed to the log reader (recycled-log check) and to `minLogNumber`. */
  logNumber?: number;
}

export interface ReplayOptions {
  /** Skip WALs numbered below this (the CF's log number). Needs `logNumber` on every file. */
  minLogNumber?: number;
  /**
   * What a batch that cannot be decoded does: "throw" an LsmscopeError naming the WAL and record
   * offset, or "keep" the writes before the failure (RocksDB's tolerate-corrupted-tail recovery).
   * Batches shorter than the 12-byte header are skipped and counted either way. Default "keep".
   */
  onUndecodable?: "throw" | "keep";
  /** Value types this caller cannot interpret: a write of one ends its batch's decoding, counted as
   *  undecodable (the writes before it were delivered). */
  unsupportedTypes?: ReadonlySet<number>;
  /** The WALs are a Pebble store's (Pebble's chunk types and batch kinds). */
  pebble?: boolean;
}

export interface ReplayResult {
  /** Batches that were shorter than their header or could not be decoded to their end. */
  undecodable: number;
}

/**
 * Deliver every write of column family `cfId` in the given WALs (in the order given, then record
 * order) to `onWrite`. Key and value are views into the record: copy them to keep them.
 */
export function replayWalWrites(
  wals: readonly WalFileRef[],
  cfId: number,
  onWrite: (w: BatchWrite) => void,
  opts: ReplayOptions = {},
): ReplayResult {
  const out: ReplayResult = { undecodable: 0 };
  const unsupported = opts.unsupportedTypes;
  for (const w of wals) {
    if (opts.minLogNumber !== undefined && (w.logNumber ?? -1) < opts.minLogNumber) continue;
    scanLogFile(
      w.path,
      (rec) => {
        const r = forEachBatchWrite(
          rec.data,
          (write) => {
            if (unsupported?.has(write.type)) return false;
            if (write.cf === cfId) onWrite(write);
          },
          undefined,
          { pebble: opts.pebble },
        );
        if (r.stopped) out.undecodable++;
        if (!r.error) return;
        out.undecodable++;
        if (r.error.at === 0 || opts.onUndecodable !== "throw") return;
        throw new LsmscopeError(`WAL record cannot be decoded: ${r.error.message}`, {
          file: w.path,
          offset: rec.offset,
        });
      },
      w.logNumber !== undefined ? { logNumber: w.logNumber, pebble: opts.pebble } : { pebble: opts.pebble },
    );
  }
  return out;
}

export interface MemEntry {
  key: Buffer;
  seqno: number;
  /** ValueType of the equivalent table entry (Value, Deletion, SingleDeletion, Merge, BlobIndex...). */
  type: number;
  value: Buffer;
}

export interface MemRangeDel {
  start: Buffer;
  end: Buffer;
  seqno: number;
}

/** One CF's memtable layer: point entries in merge order, range deletions in WAL order. */
export interface MemLayer {
  entries: MemEntry[];
  rangeDels: MemRangeDel[];
  undecodable: number;
}

/** Compare (user key asc, seqno desc): the merge order of internal keys. */
export function compareMem(a: MemEntry, b: MemEntry): number {
  const c = a.key.compare(b.key);
  return c !== 0 ? c : b.seqno - a.seqno;
}

/**
 * The entries of a layer (sorted by user key, as loadMemLayer gives them) whose keys lie in [lo, hi):
 * a key range's share of the layer, for the merges that read one range at a time (sizes' tasks, the
 * live contents of a range). An absent bound does not bound.
 */
export function memEntriesIn(entries: readonly MemEntry[], lo?: Buffer, hi?: Buffer): MemEntry[] {
  const firstAtOrAfter = (key: Buffer) => lowerBound(entries.length, (i) => entries[i]!.key.compare(key) < 0);
  return entries.slice(
    lo !== undefined ? firstAtOrAfter(lo) : 0,
    hi !== undefined ? firstAtOrAfter(hi) : entries.length,
  );
}

/**
 * Replay the WALs into one CF's memtable layer: entries sorted (user key asc, newest first; the sort
 * is stable, so equal sequence numbers keep WAL order), range deletions apart.
 */
export function loadMemLayer(wals: readonly WalFileRef[], cfId: number, opts: ReplayOptions = {}): MemLayer {
  const entries: MemEntry[] = [];
  const rangeDels: MemRangeDel[] = [];
  const { undecodable } = replayWalWrites(
    wals,
    cfId,
    (w) => {
      if (w.type === ValueType.RangeDeletion)
        rangeDels.push({ start: Buffer.from(w.key), end: Buffer.from(w.value), seqno: w.seqno });
      else
        entries.push({ key: Buffer.from(w.key), seqno: w.seqno, type: w.type, value: Buffer.from(w.value) });
    },
    opts,
  );
  entries.sort(compareMem);
  return { entries, rangeDels, undecodable };
}
