/**
 * Placement: how a column family's tables sit against its bottom level. The one definition that
 * `inspect` (the model's `placement`, the layout and its flags), `check` (placement-overlay), `compact`'s
 * plan and the TUI all use, so they state the same numbers:
 *
 * - bottom level = the deepest level holding a table; "above the bottom" = every table in a shallower level.
 * - When every table is in L0 (flushed, never compacted) and there are several, the oldest L0 table (last
 *   in L0's lookup order, src/base/level_order.ts: epoch, sequence numbers, file number) plays the bottom
 *   and the newer L0 tables sit above it: a bottommost compaction merges them all, and the newer ones
 *   shadow keys of the oldest exactly as an upper level shadows the bottom (`oldestL0AsBottom`).
 *
 * Byte figures are table file bytes as the MANIFEST records them.
 */
import { l0NewestFirst } from "../base/level_order.js";
import type { LevelModel, SstFileModel } from "./model.js";

export interface Placement {
  /** The deepest level holding a table. */
  bottomLevel: number;
  /** Every table is in L0 (more than one): the oldest L0 table is taken as the bottom, the newer as above. */
  oldestL0AsBottom: boolean;
  filesAboveBottom: number;
  /** Table file bytes above the bottom. */
  bytesAboveBottom: number;
  filesInBottom: number;
  bytesInBottom: number;
  /** bytesAboveBottom / (bytesAboveBottom + bytesInBottom), rounded to 4 decimals. */
  byteShareAboveBottom: number;
  /** Tables and table file bytes per non-empty level. */
  perLevel: { level: number; files: number; bytes: number }[];
}

/** The tables split at the bottom (see the header): what placement-overlay's lookups walk. */
export interface PlacementSplit {
  placement: Placement;
  bottom: LevelModel;
  /** The levels above the bottom, shallowest first (with oldestL0AsBottom: L0's newer tables). */
  upper: LevelModel[];
}

/** Deepest level holding at least one file. */
export function bottomLevelOf(levels: readonly LevelModel[]): number | undefined {
  let b: number | undefined;
  for (const l of levels) if (l.files.length > 0 && (b === undefined || l.level > b)) b = l.level;
  return b;
}

/** Placement of a column family's levels; undefined when it holds no table. */
export function placementSplit(levels: readonly LevelModel[]): PlacementSplit | undefined {
  const bottomLevel = bottomLevelOf(levels);
  if (bottomLevel === undefined) return undefined;
  const nonEmpty = levels.filter((l) => l.files.length > 0);
  let bottom = nonEmpty.find((l) => l.level === bottomLevel)!;
  let upper = nonEmpty.filter((l) => l.level < bottomLevel);
  const oldestL0AsBottom = bottomLevel === 0 && bottom.files.length > 1;
  if (oldestL0AsBottom) {
    // oldest first: L0's lookup order (newest first, src/base/level_order.ts) reversed
    const byAge = [...bottom.files].sort((a, b) => l0NewestFirst(b, a));
    const newer = byAge.slice(1);
    bottom = { level: 0, files: [byAge[0]!], bytes: byAge[0]!.fileSize };
    upper = [{ level: 0, files: newer, bytes: newer.reduce((a, f) => a + f.fileSize, 0) }];
  }
  const bytesAboveBottom = upper.reduce((s, l) => s + l.bytes, 0);
  const total = bytesAboveBottom + bottom.bytes;
  return {
    placement: {
      bottomLevel,
      oldestL0AsBottom,
      filesAboveBottom: upper.reduce((s, l) => s + l.files.length, 0),
      bytesAboveBottom,
      filesInBottom: bottom.files.length,
      bytesInBottom: bottom.bytes,
      byteShareAboveBottom: total > 0 ? Math.round((bytesAboveBottom / total) * 10000) / 10000 : 0,
      perLevel: nonEmpty.map((l) => ({ level: l.level, files: l.files.length, bytes: l.bytes })),
    },
    bottom,
    upper,
  };
}

export const placementOf = (levels: readonly LevelModel[]): Placement | undefined =>
  placementSplit(levels)?.placement;

/** One line saying which definition a placement uses (for text output). */
export function placementDefinition(p: Placement): string {
  return p.oldestL0AsBottom
    ? "all tables in L0: the oldest L0 table counts as the bottom, the newer ones as above it"
    : `bottom = L${p.bottomLevel}, the deepest level holding a table`;
}

/**
 * The bottom's name in text: "L3", or "the oldest L0 table" when every table is in L0 (README glossary,
 * `placement.bottomLevel`). Every command names it so.
 */
export function placementBottomName(p: Pick<Placement, "oldestL0AsBottom" | "bottomLevel">): string {
  return p.oldestL0AsBottom ? "the oldest L0 table" : `L${p.bottomLevel}`;
}

/**
 * Entries in the tables of `levels`: each table's "rocksdb.num.entries", or `counted` (entries counted by
 * reading its data blocks) where it has no such property; null when some table has neither.
 */
export function tableEntries(
  levels: readonly LevelModel[],
  counted?: (f: SstFileModel) => number | undefined,
): number | null {
  let n: number | null = 0;
  for (const l of levels) for (const f of l.files) n = addTableEntries(n, f, counted);
  return n;
}

/**
 * `sum` (entries of the tables before, null when unknown) with table `f`'s entries added, as
 * tableEntries counts them: for a caller that meets the tables one at a time (deep_stream.ts).
 */
export function addTableEntries(
  sum: number | null,
  f: SstFileModel,
  counted?: (f: SstFileModel) => number | undefined,
): number | null {
  const e = f.details?.numEntries ?? counted?.(f);
  return e === undefined || sum === null ? null : sum + e;
}
