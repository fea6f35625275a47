/**
 * The order of a level's live files, as a point lookup walks them (LevelDB db/version_set.cc NewestFirst
 * and the level-sorted files of a Version; RocksDB's NewestFirstBySeqNo and BySmallestKey):
 *
 *  - L0 files may overlap and are searched newest first. Newest = higher epoch number (RocksDB ≥ 7.10
 *    records one), then higher largest sequence number, then higher smallest sequence number, then higher
 *    file number (LevelDB tables carry no sequence numbers in the MANIFEST, so the file number decides, as
 *    LevelDB's NewestFirst does).
 *  - Each deeper level is sorted by smallest user key (disjoint ranges).
 *
 * Below both the datadir model (which keeps its levels in this order) and the LSM view over it
 * (src/lsm/version.ts). Keys are hex of the user key; hex order is byte order.
 */

/** What the view needs of a live file (a subset of the datadir model's SstFileModel). */
export interface LiveFile {
  level: number;
  fileNumber: number;
  path: string;
  /** Smallest/largest user key, hex. */
  smallestKey: string;
  largestKey: string;
  smallestSeqno?: number;
  largestSeqno?: number;
  epochNumber?: number;
  /** False when the MANIFEST names a file that is not on disk (the model's flag); default true. */
  present?: boolean;
}

/** L0 order, newest first (see the header). */
export function l0NewestFirst(a: LiveFile, b: LiveFile): number {
  return (
    (b.epochNumber ?? 0) - (a.epochNumber ?? 0) ||
    (b.largestSeqno ?? 0) - (a.largestSeqno ?? 0) ||
    (b.smallestSeqno ?? 0) - (a.smallestSeqno ?? 0) ||
    b.fileNumber - a.fileNumber
  );
}

/** Order of a level ≥ 1: by smallest user key. */
export function bySmallestKey(a: { smallestKey: string }, b: { smallestKey: string }): number {
  return a.smallestKey < b.smallestKey ? -1 : a.smallestKey > b.smallestKey ? 1 : 0;
}

/** Sort a level's files in place in lookup order. */
export function sortLevelFiles<F extends LiveFile>(level: number, files: F[]): F[] {
  return files.sort(level === 0 ? l0NewestFirst : bySmallestKey);
}
