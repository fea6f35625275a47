/**
 * The memtable a read-only open rebuilds: RocksDB's DB::OpenForReadOnly replays every live WAL into
 * memtables, so keys written after the last flush are answered there, before any SST is consulted.
 * The probe's reader path does the same from the WAL files, through the shared replay into the WAL
 * layer's columns (datadir/memtable.ts loadMemLayer; WriteBatch layout in datadir/write_batch.ts): a
 * key's newest write is the first of its entries. A map of every key's hex and its write took 54 s and
 * 1.9 GB for a WAL of 3 M writes (462 MB); the columns take the writes' bytes and a binary search.
 */
import { loadMemLayer, memIndexOf, memValue, type MemEntries } from "../datadir/memtable.js";
import { isTombstone, ValueType } from "../base/internal_key.js";

export type MemEntryKind = "value" | "deletion" | "merge" | "blobIndex" | "entity";

export interface MemEntry {
  kind: MemEntryKind;
  value?: Buffer;
}

export interface Memtable {
  /** The newest write of `key` in the WALs, if any. */
  get(key: Uint8Array): MemEntry | undefined;
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

/** The newest write of `key` among the entries (sorted by key, newest first). */
function newestWrite(m: MemEntries, key: Uint8Array): MemEntry | undefined {
  const i = memIndexOf(m, key);
  if (i < 0) return undefined;
  const type = m.type[i]!;
  return { kind: KIND[type]!, value: isTombstone(type) ? undefined : memValue(m, i) };
}

/** Replay the WALs (oldest first) into a memtable for one column family. */
export function replayWals(
  wals: { path: string; logNumber: number }[],
  cfId: number,
  opts: { pebble?: boolean } = {},
): Memtable {
  const sorted = [...wals].sort((a, b) => a.logNumber - b.logNumber);
  const layer = loadMemLayer(sorted, cfId, { unsupportedTypes: UNSUPPORTED, pebble: opts.pebble });
  const m = layer.entries;
  return {
    get: (key) => newestWrite(m, key),
    rangeDeletions: layer.rangeDels.length,
    undecodable: layer.undecodable,
  };
}
