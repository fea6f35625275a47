/**
 * The memtable a read-only open rebuilds: RocksDB's DB::OpenForReadOnly replays every live WAL into
 * memtables, so keys written after the last flush are answered there, before any SST is consulted.
 * The probe's reader path does the same from the WAL files, through the shared replay
 * (datadir/memtable.ts; WriteBatch layout in datadir/write_batch.ts), keeping the last write per key.
 */
import { replayWalWrites } from "../datadir/memtable.js";
import { forEachBatchWrite, type BatchWrite } from "../datadir/write_batch.js";
import { isTombstone, ValueType } from "../base/internal_key.js";

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

const KIND: Partial<Record<number, MemEntryKind>> = {
  [ValueType.Value]: "value",
  [ValueType.Deletion]: "deletion",
  [ValueType.SingleDeletion]: "deletion",
  [ValueType.Merge]: "merge",
  [ValueType.BlobIndex]: "blobIndex",
  [ValueType.WideColumnEntity]: "entity",
};
/** TimedPut values carry a packed write time this lookup does not split off: such a batch is undecodable. */
const UNSUPPORTED: ReadonlySet<number> = new Set([ValueType.ValuePreferredSeqno]);

function applyWrite(w: BatchWrite, mem: Memtable): void {
  if (w.type === ValueType.RangeDeletion) {
    mem.rangeDeletions++;
    return;
  }
  const kind = KIND[w.type]!;
  const hasValue = !isTombstone(w.type);
  mem.entries.set(Buffer.from(w.key).toString("hex"), {
    kind,
    value: hasValue ? Buffer.from(w.value) : undefined,
  });
}

/** Apply one WriteBatch to `mem` for column family `cfId` (later writes win). */
export function applyWriteBatch(rec: Uint8Array, cfId: number, mem: Memtable): void {
  const r = forEachBatchWrite(rec, (w) => {
    if (UNSUPPORTED.has(w.type)) return false;
    if (w.cf === cfId) applyWrite(w, mem);
  });
  if (r.error || r.stopped) mem.undecodable++;
}

/** Replay the WALs (oldest first) into a memtable for one column family. */
export function replayWals(
  wals: { path: string; logNumber: number }[],
  cfId: number,
  opts: { pebble?: boolean } = {},
): Memtable {
  const mem: Memtable = { entries: new Map(), rangeDeletions: 0, undecodable: 0 };
  const sorted = [...wals].sort((a, b) => a.logNumber - b.logNumber);
  const r = replayWalWrites(sorted, cfId, (w) => applyWrite(w, mem), {
    unsupportedTypes: UNSUPPORTED,
    pebble: opts.pebble,
  });
  mem.undecodable = r.undecodable;
  return mem;
}
