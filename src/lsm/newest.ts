/**
 * A key's newest version as a point lookup sees it (LevelDB DBImpl::Get: memtable, then Version::Get):
 * the column family's writes still only in live WALs first (newer than any table), then the tables in
 * lookup order (Version.get, version.ts). A range deletion newer than the version found deletes it; a
 * table's own covering deletions are already its get's answer, so `Shadows` carries those of the WAL
 * (and, for callers that look up only some of the files, the tables').
 */
import { compareMemKey, memEntry, memKeysEqual, type MemEntry, type MemLayer } from "../datadir/memtable.js";
import { lowerBound } from "../util/lower_bound.js";
import { toHex } from "../util/bytes.js";
import type { RangeTombstone } from "./merge.js";
import type { TableSource } from "./table_cache.js";
import type { LiveFile, Version } from "./version.js";

/** A range deletion: [start, end) user keys (hex), deleting versions older than `seqno`. */
export interface HexRangeDeletion {
  startHex: string;
  endHex: string;
  seqno: number;
}

/** What shadows a table version besides the tables' own newer versions. */
export interface Shadows {
  /** The column family's unflushed WAL writes: the newest write per user key (hex), tombstones included. */
  newest: ReadonlyMap<string, MemEntry>;
  /** Range deletions of its WAL (and of whichever tables the caller adds). */
  rangeDels: readonly HexRangeDeletion[];
}

/** Range deletions (of a table or a WAL) with their keys in hex. */
export const hexRangeDels = (tombstones: readonly RangeTombstone[]): HexRangeDeletion[] =>
  tombstones.map((r) => ({ startHex: toHex(r.start), endHex: toHex(r.end), seqno: r.seqno }));

/** The shadows of a column family's memtable layer (loadMemLayer), beside `tableRangeDels`. */
export function shadowsOf(mem: MemLayer, tableRangeDels: readonly HexRangeDeletion[] = []): Shadows {
  const newest = new Map<string, MemEntry>();
  const m = mem.entries;
  // sorted key ascending, newest first: a key's first entry is its newest
  for (let i = m.from; i < m.to; i++) {
    if (i > m.from && memKeysEqual(m, i, i - 1)) continue;
    const e = memEntry(m, i);
    newest.set(toHex(e.key), e);
  }
  return { newest, rangeDels: [...tableRangeDels, ...hexRangeDels(mem.rangeDels)] };
}

/** The same for one key only (a single lookup: no map of every write). */
export function keyShadows(mem: MemLayer, key: Buffer): Shadows {
  // the memtable layer is sorted key ascending, newest first: the first entry of the key is its newest
  const m = mem.entries;
  const i = m.from + lowerBound(m.to - m.from, (k) => compareMemKey(m, m.from + k, key) < 0);
  const e = i < m.to && compareMemKey(m, i, key) === 0 ? memEntry(m, i) : undefined;
  return { newest: new Map(e ? [[toHex(key), e]] : []), rangeDels: hexRangeDels(mem.rangeDels) };
}

/** Whether a version (user key hex, sequence number) lies under a newer range deletion. */
export function rangeDeleted(s: Shadows, hex: string, seqno: number): boolean {
  for (const r of s.rangeDels) if (r.seqno > seqno && r.startHex <= hex && hex < r.endHex) return true;
  return false;
}

/** A key's newest version: its type, sequence number and stored value, and whether a range deletion covers it. */
export interface NewestEntry {
  type: number;
  seqno: number;
  value?: Uint8Array;
  rangeDeleted: boolean;
}

/** The newest version of `key` (any type, tombstones included), or undefined when no file or write has one. */
export function newestVersion<F extends LiveFile>(
  key: Buffer,
  shadows: Shadows,
  version: Version<F>,
  tables: TableSource,
): NewestEntry | undefined {
  const hex = toHex(key);
  const found = shadows.newest.get(hex) ?? version.get(key, tables)?.result;
  if (!found) return undefined;
  const seqno = found.seqno ?? 0;
  return {
    type: found.type ?? 0,
    seqno,
    value: found.value,
    rangeDeleted: rangeDeleted(shadows, hex, seqno),
  };
}
